import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { advantageLines, branchValues } from '../../../extension/core/reward/branchValues';

type ContinuationReward = Parameters<typeof branchValues>[0][number]['continuations'][number];

const won = (n: number): ContinuationReward[] => Array.from({ length: n }, () => ({ reward: 1 }));
const lost = (n: number): ContinuationReward[] => Array.from({ length: n }, () => ({ reward: 0 }));
const close = (actual: number | undefined, expected: number, what: string) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 2e-6, `${what}: ${actual} is not ${expected}`);

/**
 * A small tree, by hand. Branched states: the start (0), after step 1, after step 3.
 *   from 0: 1 1 1 0              V(0) = 3/4 = 0.75, n = 4
 *   from 1: 1 0 0 0, one masked   V(1) = 1/4 = 0.25, n = 4 (the masked one left out)
 *   from 3: 1 1 1 1              V(3) = 4/4 = 1,    n = 4
 * Advantages: A(1) = 0.25 - 0.75 = -0.5 (from 0), A(3) = 1 - 0.25 = +0.75 (from 1).
 * Critical step: the largest drop, 0 -> 1 (-0.5). Largest rise: 1 -> 3 (+0.75).
 *
 * Wilson, z = 1.959964, z^2 = 3.841459, n = 4: z^2/n = 0.960365, denominator 1 + z^2/n = 1.960365,
 * z^2/(2n) = 0.480182, z^2/(4n^2) = 0.060023, z / denominator = 0.999796.
 *   p = 3/4: centre (0.75 + 0.480182) / 1.960365 = 0.627527;
 *            half 0.999796 * sqrt(0.1875/4 + 0.060023) = 0.999796 * sqrt(0.106898) = 0.999796 * 0.326952 = 0.326885;
 *            interval [0.627527 - 0.326885, 0.627527 + 0.326885] = [0.300642, 0.954413].
 *   p = 1/4: the mirror image: [1 - 0.954413, 1 - 0.300642] = [0.045587, 0.699358].
 *   p = 1:   centre (1 + 0.480182) / 1.960365 = 0.755055; half 0.999796 * sqrt(0.060023) = 0.999796 * 0.244995 = 0.244945;
 *            interval [0.510109, 1] (centre + half is exactly 1 at p = 1).
 */
describe('branch values by hand', () => {
  const summary = branchValues(
    [
      // Given out of order: the values come back by step.
      { at: 3, continuations: won(4) },
      { at: 0, continuations: [...won(3), ...lost(1)] },
      { at: 1, continuations: [{ reward: 1 }, { reward: null, mask: 'container error' }, ...lost(3)] },
    ],
    7,
  );

  test('V(t), n and the masked continuations with their reasons', () => {
    assert.deepEqual(
      summary.values.map((v) => ({ at: v.at, value: v.value, n: v.n, masked: v.masked })),
      [
        { at: 0, value: 0.75, n: 4, masked: [] },
        { at: 1, value: 0.25, n: 4, masked: [{ reason: 'container error', count: 1 }] },
        { at: 3, value: 1, n: 4, masked: [] },
      ],
    );
    assert.deepEqual(summary.values[1]!.rewards, [1, 0, 0, 0]);
  });

  test("Wilson's 95% intervals for 0/1 rewards", () => {
    const [v0, v1, v3] = summary.values.map((v) => v.interval!);
    assert.equal(v0!.method, 'wilson');
    close(v0!.low, 0.300642, 'V(0) low');
    close(v0!.high, 0.954413, 'V(0) high');
    close(v1!.low, 0.045587, 'V(1) low');
    close(v1!.high, 0.699358, 'V(1) high');
    close(v3!.low, 0.510109, 'V(3) low');
    close(v3!.high, 1, 'V(3) high');
  });

  test('step advantages between consecutive branched states, the critical step and the largest rise', () => {
    assert.deepEqual(
      summary.values.map((v) => [v.from, v.advantage]),
      [
        [null, null],
        [0, -0.5],
        [1, 0.75],
      ],
    );
    assert.deepEqual(summary.critical, { from: 0, to: 1, change: -0.5 });
    assert.deepEqual(summary.rise, { from: 1, to: 3, change: 0.75 });
  });

  // Wilson at n = 2: z^2/n = 1.920729, denominator 2.920729; p = 0: centre 0.960365 / 2.920729 = 0.328810,
  // half (1.959964 / 2.920729) * sqrt(3.841459 / 16) = 0.671048 * 0.489990 = 0.328810: [0, 0.657620]; p = 1: [0.342380, 1].
  test('the step advantages as JSON Lines, keyed by trajectory and step (from 1; index from 0)', () => {
    const lines = advantageLines(summary, 'run-7').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      lines.map((l) => [l['trajectory'], l['step'], l['index'], l['from'], l['valueBefore'], l['value'], l['advantage'], l['n']]),
      [
        ['run-7', 1, 0, 0, 0.75, 0.25, -0.5, 4],
        // Step 2 was not branched: the advantage of state 3 spans steps 2 and 3, from state 1.
        ['run-7', 3, 2, 1, 0.25, 1, 0.75, 4],
      ],
    );
    assert.deepEqual(lines[0]!['rewards'], [1, 0, 0, 0]);
    assert.deepEqual(lines[0]!['rewardsBefore'], [1, 1, 1, 0]);
    assert.deepEqual(lines[0]!['masked'], [{ reason: 'container error', count: 1 }]);
  });

  test('a state whose every continuation is masked has no value (unknown, not 0), and no advantage either side', () => {
    const s = branchValues([
      { at: 0, continuations: won(2) },
      { at: 1, continuations: [{ reward: null, mask: 'context window exceeded' }] },
      { at: 2, continuations: lost(2) },
    ]);
    assert.deepEqual(
      s.values.map((v) => [v.value, v.interval && Math.round(v.interval.high * 1e5) / 1e5, v.n, v.advantage]),
      [
        [1, 1, 2, null],
        [null, null, 0, null],
        [0, 0.65762, 2, null],
      ],
    );
    assert.equal(s.critical, null);
    assert.equal(s.rise, null);
  });

  test('ties name the earlier step', () => {
    const s = branchValues([
      { at: 0, continuations: won(2) },
      { at: 1, continuations: [...won(1), ...lost(1)] },
      { at: 2, continuations: lost(2) },
    ]);
    assert.deepEqual(s.critical, { from: 0, to: 1, change: -0.5 });
  });
});

describe('bootstrap intervals for rewards other than 0/1', () => {
  test('the same seed gives the same interval; the bounds are means of resamples', () => {
    const point = { at: 1, continuations: [0, 0.5, 1, 0.25].map((reward) => ({ reward })) };
    const a = branchValues([point], 42).values[0]!;
    assert.deepEqual(branchValues([point], 42).values[0]!.interval, a.interval);
    assert.equal(a.interval!.method, 'bootstrap');
    assert.equal(a.value, 0.4375);
    // Every resample's mean is a sum of four of the rewards over 4: a multiple of 1/16.
    for (const bound of [a.interval!.low, a.interval!.high]) assert.equal((bound * 16) % 1, 0, `${bound} is a resample's mean`);
    assert.ok(a.interval!.low < 0.4375 && 0.4375 < a.interval!.high, `the mean 0.4375 lies inside [${a.interval!.low}, ${a.interval!.high}]`);
  });

  test('equal rewards give a point interval at them, and a state with them reads as bootstrapped', () => {
    const s = branchValues([{ at: 2, continuations: [{ reward: 0.5 }, { reward: 0.5 }, { reward: 0.5 }] }]);
    assert.deepEqual(s.values[0]!.interval, { low: 0.5, high: 0.5, method: 'bootstrap' });
    assert.equal(s.values[0]!.value, 0.5);
  });
});
