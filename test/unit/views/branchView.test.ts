import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { branchValues } from '../../../extension/core/reward/branchValues';
import { branchPointItem, branchProgressText, branchStrip, continuationItem, criticalStepText } from '../../../extension/views/branchView';

// A hand-made tree: V(0) = 3/4, V(1) = 1, V(2) = 1/4 (critical: step 2), after step 3 every continuation masked.
const summary = branchValues([
  { at: 0, continuations: [{ reward: 1 }, { reward: 1 }, { reward: 1 }, { reward: 0 }] },
  { at: 1, continuations: [{ reward: 1 }, { reward: 1 }, { reward: null, mask: 'container or policy error: engine gone' }] },
  { at: 2, continuations: [{ reward: 0 }, { reward: 0 }, { reward: 0 }, { reward: 1 }] },
  {
    at: 3,
    continuations: [
      { reward: null, mask: 'context window exceeded' },
      { reward: null, mask: 'context window exceeded' },
    ],
  },
]);

describe('branch values as the stepper and the Branches view show them', () => {
  test('the strip: V and its interval per branched state, n and the masked count, the critical step marked, unknown never 0', () => {
    const strip = branchStrip(summary, 'run.traj.branches');
    assert.deepEqual(
      strip.cells.map((c) => [c.afterStep, c.value, c.interval, c.n, c.masked, c.critical]),
      [
        [0, '0.75', '[0.30, 0.95]', 4, 0, false],
        [1, '1.00', '[0.34, 1.00]', 2, 1, false],
        [2, '0.25', '[0.05, 0.70]', 4, 0, true],
        [3, 'unknown', 'unknown', 0, 2, false],
      ],
    );
    assert.equal(strip.critical, 'critical step: step 2 (V falls 0.75, from 1.00 to 0.25)');
    assert.match(strip.cells[3]!.title, /2 masked: context window exceeded/);
  });

  test("the tree's rows: a branch point's V line, a continuation's outcome and reward, masked with its reason", () => {
    const critical = branchPointItem(summary.values[2]!, summary);
    assert.deepEqual([critical.label, critical.description], ['after step 2 (critical)', 'V 0.25 [0.05, 0.70] n 4']);
    assert.equal(branchPointItem(summary.values[3]!, summary).description, 'V unknown unknown n 0, 2 masked');
    assert.deepEqual(continuationItem({ sample: 0, outcome: 'submitted', steps: 1, reward: 1, mask: null }), {
      label: 'continuation 1',
      description: 'submitted, reward 1, 1 step',
    });
    assert.equal(
      continuationItem({ sample: 2, outcome: 'error', steps: 3, reward: null, mask: 'context window exceeded' }).description,
      'error, reward masked: context window exceeded, 3 steps',
    );
  });

  test("a rollout's critical step in one cell: the step from 1 and V across it; none when V never fell; nothing when not branched", () => {
    assert.equal(criticalStepText({ from: 6, to: 7, before: 0.75, after: 0.125 }), 'step 7 (V 0.75 -> 0.13)');
    assert.equal(criticalStepText({ from: 2, to: 5, before: 1, after: 0 }), 'steps 3..5 (V 1.00 -> 0.00)');
    assert.equal(criticalStepText(null), 'none');
    assert.equal(criticalStepText(undefined), null);
  });

  test('progress: done, running and left, in all and per state', () => {
    assert.equal(
      branchProgressText([
        { afterStep: 0, done: 2, running: 1, left: 1 },
        { afterStep: 2, done: 0, running: 1, left: 3 },
      ]),
      '2 done, 2 running, 4 left (start 2/4, step 2 0/4)',
    );
  });
});
