import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { alignPair, alignRuns, normaliseAction } from '../../../extension/core/trajectory/alignSteps';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Action } from '../../../extension/core/trajectory/model';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const bash = (command: string): Action => ({ raw: command, tool: 'bash', args: { command } });
const norm = (actions: Action[], repo = '/repo') => actions.map((a) => normaliseAction(a, repo));

describe('aligning runs of one task by action', () => {
  test('normalised: the same command with other whitespace, the same file under another repository root', () => {
    assert.equal(normaliseAction(bash('python  -m pytest\n-q')).key, normaliseAction(bash('python -m pytest -q')).key);
    const a = normaliseAction({ raw: '', tool: 'str_replace_editor', args: { command: 'view', path: '/testbed/src/a.py' } }, '/testbed');
    const b = normaliseAction({ raw: 'open src/a.py', tool: 'open', args: { path: 'src/a.py' } }, '/other');
    assert.equal(a.key, b.key);
  });

  test('a step one run inserted is a gap in the other, and the rest still pairs up', () => {
    const a = norm([bash('ls'), bash('cat x'), bash('pytest')]);
    const b = norm([bash('ls'), bash('pip install y'), bash('cat x'), bash('pytest')]);
    assert.deepEqual(alignPair(a, b), [
      [0, 0],
      [-1, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  test('three runs: identical first steps, then the first point where they part is marked', () => {
    const base = [bash('ls'), bash('grep -n CENTS money.py')];
    const runs = [
      norm([...base, bash('sed -i s/100/1000/ money.py'), bash('pytest')]),
      norm([...base, bash('sed -i s/100/1000/ money.py'), bash('pytest')]),
      norm([...base, bash('rm money.py')]),
    ];
    const { rows, firstDivergence } = alignRuns(runs);
    assert.equal(firstDivergence, 2);
    assert.deepEqual(
      rows.slice(0, 2).map((r) => r.steps),
      [
        [0, 0, 0],
        [1, 1, 1],
      ],
    );
    assert.equal(rows.length, 4);
    assert.deepEqual(
      rows.map((r) => r.same),
      [true, true, false, false],
    );
    assert.deepEqual(
      rows.map((r) => r.steps[0]),
      [0, 1, 2, 3],
      'every step of the first run is in order',
    );
  });

  test('runs that do the same throughout have no divergence', () => {
    const run = norm([bash('ls'), bash('pytest')]);
    assert.equal(alignRuns([run, run]).firstDivergence, null);
  });

  thirdPartyFiles.test(
    'the two marshmallow-1867 recordings (windowed and function calling) write the same reproduction script and part at step 7, the edit of fields.py',
    async () => {
      const load = async (f: string) => (await loadTrajectory(thirdParty(f))).trajectory;
      const runs = await Promise.all(['swe-agent/marshmallow-1867.windowed.traj', 'swe-agent/marshmallow-1867.function_calling.traj'].map(load));
      const { rows, firstDivergence } = alignRuns(runs.map((t) => t.steps.map((s) => normaliseAction(s.action, t.task.repoPath))));
      assert.equal(firstDivergence, 6);
      assert.deepEqual(rows[6]!.steps, [6, 6]);
      // Both end with the same run of commands and the submit, paired step for step.
      assert.deepEqual(
        rows.slice(-3).map((r) => r.steps),
        [
          [8, 8],
          [9, 9],
          [10, 10],
        ],
      );
      assert.ok(rows.slice(-3).every((r) => r.same));
    },
  );
});
