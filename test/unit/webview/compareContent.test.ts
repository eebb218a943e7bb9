import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { CompareContentSchema } from '../../../extension/protocol/compare';
import { safeParse } from '../../../extension/protocol/ipc';
import { compareContent, type LoadedRun } from '../../../extension/views/compareView';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

async function run(file: string): Promise<LoadedRun> {
  return { label: file.split('/').pop()!, path: thirdParty(file), trajectory: (await loadTrajectory(thirdParty(file))).trajectory };
}

describe('the compare view content', () => {
  thirdPartyFiles.test('three runs of marshmallow-1867: aligned, parted at the first edit of fields.py, a fork that stopped early leaves gaps', async () => {
    const windowed = await run('swe-agent/marshmallow-1867.windowed.traj');
    const fc = await run('swe-agent/marshmallow-1867.function_calling.traj');
    // A fork of the function-calling run after its step 5 that then ran the tests and gave up.
    const forkSteps = [
      ...fc.trajectory.steps.slice(0, 5),
      { ...fc.trajectory.steps[2]!, index: 5, action: { raw: 'python -m pytest tests', tool: 'bash', args: { command: 'python -m pytest tests' } } },
    ];
    const fork: LoadedRun = {
      label: 'fork.traj.json',
      path: '/tmp/fork.traj.json',
      trajectory: { ...fc.trajectory, steps: forkSteps, outcome: { exitStatus: 'exit_cost' } },
    };
    const content = compareContent([windowed, fc, fork]);
    assert.ok(safeParse(CompareContentSchema, content).success, 'the content is what the protocol allows');
    assert.equal(content.title, 'Compare 3 runs of marshmallow-code__marshmallow-1867');
    assert.equal(content.warning, undefined);
    assert.equal(content.firstDivergence, 5, 'the fork parts first, at its step 6');
    assert.deepEqual(
      content.rows.slice(0, 5).map((r) => r.same),
      [true, true, true, true, true],
    );
    assert.deepEqual(
      content.runs.map((r) => r.stepCount),
      [11, 11, 6],
    );
    assert.deepEqual(
      content.runs.map((r) => r.patch !== ''),
      [true, true, false],
    );
    assert.deepEqual(
      content.runs.map((r) => r.cost),
      [undefined, undefined, undefined],
      'the zeros these files record are not counts',
    );
    const gaps = content.rows.filter((r) => r.cells[2] === null).length;
    assert.ok(gaps >= 5, `the fork's missing steps are gaps (${gaps})`);
  });

  thirdPartyFiles.test('runs of different tasks are compared with a warning that says so', async () => {
    const content = compareContent([await run('swe-agent/marshmallow-1867.windowed.traj'), await run('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj')]);
    assert.match(content.warning ?? '', /^These runs are of different tasks \(marshmallow-code__marshmallow-1867, pandas-dev__pandas\.95280573\.pr_53856\)/);
    assert.equal(content.runs[1]!.cost, 0.24830985);
  });
});
