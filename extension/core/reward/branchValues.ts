/**
 * Branch values: how good each state of a rollout was, measured by running it again from there.
 * V(t) is the mean reward of the continuations run from the state after step t (t = 0: the task's
 * start), with a 95% interval (Wilson's for 0/1 rewards, a percentile bootstrap with a seeded
 * generator otherwise, so the same rewards always give the same interval). A masked continuation
 * (a container error, the context limit) is left out of V(t) and counted with its reason: V(t)
 * says how many samples it rests on. The critical step is the one across which V falls most, the
 * largest rise the one across which it climbs most; the step advantage A(t) = V(t) - V(t-1) is
 * taken between consecutive branched states. Pure: no files, no containers.
 */

/** One continuation's reward: a number, or masked with its reason (never a number then). */
type ContinuationReward = { reward: number; mask?: undefined } | { reward: null; mask: string };

/** The continuations run from one state: after step `at` (0: the task's start, before step 1). */
export interface BranchPointRewards {
  at: number;
  continuations: readonly ContinuationReward[];
}

interface ValueInterval {
  low: number;
  high: number;
  method: 'wilson' | 'bootstrap';
}

export interface BranchValue {
  /** The state after this many steps (0: the task's start). */
  at: number;
  /** Mean reward of the unmasked continuations; null when none is unmasked (unknown, never 0). */
  value: number | null;
  interval: ValueInterval | null;
  /** Unmasked continuations V rests on. */
  n: number;
  /** Masked continuations left out, by reason. */
  masked: { reason: string; count: number }[];
  /** The rewards V rests on, in the continuations' order. */
  rewards: number[];
  /** V(at) - V of the branched state before (null: none before, or either unknown). */
  advantage: number | null;
  /** The branched state before this one (its `at`), when there is one. */
  from: number | null;
}

/** A change of V between two consecutive branched states: the steps `from`+1..`to` caused it. */
export interface ValueChange {
  from: number;
  to: number;
  change: number;
}

export interface BranchSummary {
  values: BranchValue[];
  /** The largest drop of V (most negative advantage); null when V never falls. */
  critical: ValueChange | null;
  /** The largest rise of V; null when V never rises. */
  rise: ValueChange | null;
}

/** The reward a continuation shows: the number, or "masked: REASON" (never a number then), or unknown when neither is known. */
export function continuationRewardText(c: { reward: number | null; mask: string | null }): string {
  if (c.mask !== null) return `masked: ${c.mask}`;
  return c.reward === null ? 'unknown' : String(Math.round(c.reward * 1000) / 1000);
}

/** The standard normal's 97.5% quantile: a two-sided 95% interval. */
const Z95 = 1.959963984540054;
/** Resamples of a bootstrap interval. */
const BOOTSTRAP_RESAMPLES = 2000;

/** Wilson's score interval for `successes` of `n` (0/1 rewards), 95%. */
function wilsonInterval(successes: number, n: number): { low: number; high: number } {
  const p = successes / n;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (Z95 / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Rounding can leave the bounds a hair outside [0, 1] at p = 0 or 1.
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** A small seeded generator (mulberry32): the same seed gives the same resamples on every machine. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The percentile bootstrap's 95% interval of the mean of `rewards`, resampled with a generator seeded by `seed`. */
function bootstrapInterval(rewards: readonly number[], seed: number, resamples = BOOTSTRAP_RESAMPLES): { low: number; high: number } {
  const random = seededRandom(seed);
  const n = rewards.length;
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += rewards[Math.floor(random() * n)]!;
    means[b] = sum / n;
  }
  means.sort();
  // The 2.5% and 97.5% quantiles by the nearest rank.
  const rank = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.ceil(q * resamples) - 1))]!;
  return { low: rank(0.025), high: rank(0.975) };
}

/** V, its interval and its sample count for one branched state. */
function valueOf(point: BranchPointRewards, seed: number): Omit<BranchValue, 'advantage' | 'from'> {
  const rewards = point.continuations.flatMap((c) => (c.mask === undefined ? [c.reward] : []));
  const reasons = new Map<string, number>();
  for (const c of point.continuations) if (c.mask !== undefined) reasons.set(c.mask, (reasons.get(c.mask) ?? 0) + 1);
  const masked = [...reasons].map(([reason, count]) => ({ reason, count }));
  const n = rewards.length;
  if (n === 0) return { at: point.at, value: null, interval: null, n, masked, rewards };
  const value = rewards.reduce((a, b) => a + b, 0) / n;
  const binary = rewards.every((r) => r === 0 || r === 1);
  const interval: ValueInterval = binary
    ? { ...wilsonInterval(rewards.filter((r) => r === 1).length, n), method: 'wilson' }
    : // Each state its own stream, so adding a state elsewhere does not move this one's interval.
      { ...bootstrapInterval(rewards, seed + point.at), method: 'bootstrap' };
  return { at: point.at, value, interval, n, masked, rewards };
}

/**
 * V(t) for each branched state (in order of `at`), the step advantages between consecutive ones,
 * the critical step and the largest rise. `seed` seeds the bootstrap of non-binary rewards.
 */
export function branchValues(points: readonly BranchPointRewards[], seed = 0): BranchSummary {
  const sorted = [...points].sort((a, b) => a.at - b.at);
  const values: BranchValue[] = [];
  for (const [i, point] of sorted.entries()) {
    const own = valueOf(point, seed);
    const before = i > 0 ? values[i - 1]! : undefined;
    const advantage = before && before.value !== null && own.value !== null ? own.value - before.value : null;
    values.push({ ...own, advantage, from: before?.at ?? null });
  }
  let critical: ValueChange | null = null;
  let rise: ValueChange | null = null;
  for (const v of values) {
    if (v.advantage === null || v.from === null) continue;
    // Ties go to the earlier step: where things first went wrong (or right).
    if (v.advantage < 0 && (critical === null || v.advantage < critical.change)) critical = { from: v.from, to: v.at, change: v.advantage };
    if (v.advantage > 0 && (rise === null || v.advantage > rise.change)) rise = { from: v.from, to: v.at, change: v.advantage };
  }
  return { values, critical, rise };
}

/**
 * Step-level training data: one JSON line per step of the recording whose advantage is measured
 * (V after it and V before it both branched), keyed by the trajectory and the step (counted from
 * 1; `index` 0-based), with V before and after, A, the samples each rests on and their rewards.
 * A step whose state before was not branched takes its advantage from the branched state before
 * (`from`), so the line says which steps the advantage spans.
 */
export function advantageLines(summary: BranchSummary, trajectory: string): string[] {
  const byAt = new Map(summary.values.map((v) => [v.at, v]));
  return summary.values.flatMap((v) => {
    if (v.from === null || v.at === 0) return [];
    const before = byAt.get(v.from)!;
    return [
      JSON.stringify({
        trajectory,
        step: v.at,
        index: v.at - 1,
        from: v.from,
        value: v.value,
        valueBefore: before.value,
        advantage: v.advantage,
        n: v.n,
        nBefore: before.n,
        rewards: v.rewards,
        rewardsBefore: before.rewards,
        masked: v.masked,
      }),
    ];
  });
}
