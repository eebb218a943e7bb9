import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command } from '../../../extension/cli/rollouts';
import { patchFor, runReport, sweAgentTraj, workSteps, writeJson } from '../../fixtures/rollouts/runWriter';
import { G7, W101, W202, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';
import { runCli } from '../../helpers/cliRunner';

/** A SWE-agent run cut by the step limit: nothing submitted, the working-tree diff kept in its last step's state. */
function cutAtStepLimit(instance: string, diff: string | undefined): unknown {
  const traj = sweAgentTraj({ instance, steps: workSteps(6), exit: 'exit_step_limit', patch: '', namedInConfig: true }) as {
    trajectory: { state: Record<string, unknown> }[];
  };
  if (diff !== undefined) traj.trajectory[traj.trajectory.length - 1]!.state.diff = diff;
  return traj;
}

describe('forced submission, measured', () => {
  let root: string;
  let out: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-forced-'));
    out = mkdtempSync(join(tmpdir(), 'swe-workbench-forced-out-'));
    writeTrainingRun(root);
    writeJson(root, `attempt_5/${W101}/${W101}.traj`, cutAtStepLimit(W101, patchFor('src/widgets/resize.py')));
    writeJson(root, `attempt_5/${G7}/${G7}.traj`, cutAtStepLimit(G7, patchFor('src/gadgets/spin.py')));
    writeJson(root, `attempt_5/${W202}/${W202}.traj`, cutAtStepLimit(W202, undefined));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  test('lists the runs cut by the step limit and whether their last state keeps a patch', async () => {
    const { stdout } = await runCli(command, ['forced', root]);
    // Four candidates: the three attempt_5 runs and the R2E-Gym W202 run of attempt_4, whose record keeps no diff.
    assert.match(stdout, /^4 run\(s\) stopped at the step limit without submitting; 2 keep the patch of their last state$/m);
    assert.match(stdout, new RegExp(`^  attempt_5/${W101}/${W101}\\.traj  6 steps: \\d+ characters \\(the working-tree diff recorded at step 6\\)$`, 'm'));
    assert.match(stdout, /^ {2}attempt_4\/deepswe\.jsonl:2 {2}40 steps: no patch \(the r2e-gym record keeps no diff of its last state\)$/m);
  });

  test('writes the patches as SWE-bench predictions and counts what the harness report says would have passed', async () => {
    const preds = join(out, 'preds');
    const first = await runCli(command, ['forced', root, '--write-preds', preds]);
    assert.match(first.stdout, /predictions for the harness: .*forced-attempt-5\.jsonl$/m);
    const lines = readFileSync(join(preds, 'forced-attempt-5.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { instance_id: string; model_name_or_path: string; model_patch: string });
    assert.deepEqual(lines.map((l) => [l.instance_id, l.model_name_or_path]).sort(), [
      [G7, 'forced-attempt-5'],
      [W101, 'forced-attempt-5'],
    ]);
    assert.equal(lines.find((l) => l.instance_id === W101)!.model_patch, patchFor('src/widgets/resize.py'));
    // The harness's run report of those predictions (named after model_name_or_path and the run id).
    const report = join(out, 'forced-attempt-5.forced.json');
    writeFileSync(report, JSON.stringify({ ...(runReport({ resolved: [W101], unresolved: [G7] }) as object) }));
    const { stdout } = await runCli(command, ['forced', root, '--forced-reports', report]);
    assert.match(stdout, /^forced submission would have passed 1 of 2 graded \(50\.0%; SWE-Master found 24\.3%\)$/m);
  });

  test('a report not named after forced predictions is refused, saying why', async () => {
    const other = join(out, 'acme.run.json');
    writeFileSync(other, JSON.stringify(runReport({ resolved: [W101] })));
    await assert.rejects(runCli(command, ['forced', root, '--forced-reports', other]), /acme\.run\.json: not a report of forced predictions/);
    await assert.rejects(
      runCli(command, ['list', root, '--write-preds', out]),
      /rollouts list has no option --write-preds: it is an option of rollouts forced/,
    );
  });
});
