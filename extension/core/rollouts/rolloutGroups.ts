import type { FailureClass, Rollout } from './record';

/** One instance's rollouts: a GRPO group. */
export interface RolloutGroup {
  instance: string;
  rollouts: number;
  /** Rollouts with a verdict (pass or fail); the others count in neither n nor c. */
  evaluated: number;
  resolved: number;
  /** resolved / evaluated; null when nothing was evaluated. */
  solveRate: number | null;
  /** pass@k for k = 1..evaluated, as `passAtK[k - 1]`. */
  passAtK: number[];
  /** Some pass and some fail: the only groups that carry signal for GRPO. */
  mixed: boolean;
  failures: Partial<Record<FailureClass, number>>;
  /**
   * Rollouts that submitted the same patch (`Rollout.patchDigest`) yet were graded differently,
   * one entry per such patch: the ids of those resolved and of those not. The tests, not the
   * agent, decided between them (a flaky test, an environment that differs between runs, or a
   * report joined to the wrong rollout), so their rewards teach nothing about the patch.
   */
  gradingConflicts: GradingConflict[];
}

interface GradingConflict {
  patchDigest: string;
  resolved: string[];
  unresolved: string[];
}

/**
 * The unbiased pass@k estimator of Chen et al. 2021 (Codex): 1 - C(n-c, k) / C(n, k), the
 * probability that k draws without replacement from n samples with c correct hold at least
 * one correct one. Computed as 1 - prod_{i=n-c+1..n} (1 - k/i), which never forms the
 * binomials (they overflow a double from n = 1030 on).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1 || k > n) {
    throw new RangeError(`pass@k needs integers 0 <= c <= n and 1 <= k <= n (n=${n}, c=${c}, k=${k})`);
  }
  if (n - c < k) return 1;
  let failAll = 1;
  for (let i = n - c + 1; i <= n; i++) failAll *= 1 - k / i;
  return 1 - failAll;
}

export function groupRollouts(rollouts: readonly Rollout[]): RolloutGroup[] {
  const byInstance = new Map<string, Rollout[]>();
  for (const r of rollouts) {
    const list = byInstance.get(r.instance);
    if (list) list.push(r);
    else byInstance.set(r.instance, [r]);
  }
  return [...byInstance.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([instance, list]) => groupOf(instance, list));
}

function groupOf(instance: string, list: Rollout[]): RolloutGroup {
  const evaluated = list.filter((r) => r.resolved !== null).length;
  const resolved = list.filter((r) => r.resolved === true).length;
  const failures: Partial<Record<FailureClass, number>> = {};
  for (const r of list) failures[r.failure] = (failures[r.failure] ?? 0) + 1;
  return {
    instance,
    rollouts: list.length,
    evaluated,
    resolved,
    solveRate: evaluated > 0 ? resolved / evaluated : null,
    passAtK: Array.from({ length: evaluated }, (_, i) => passAtK(evaluated, resolved, i + 1)),
    mixed: resolved > 0 && resolved < evaluated,
    failures,
    gradingConflicts: gradingConflicts(list),
  };
}

/** What a person reads of a group's grading conflicts: one line per patch graded both ways. */
export function gradingConflictLines(g: Pick<RolloutGroup, 'gradingConflicts'>): string[] {
  return g.gradingConflicts.map((c) => `identical patch graded both ways: resolved ${c.resolved.join(', ')}; not resolved ${c.unresolved.join(', ')}`);
}

function gradingConflicts(list: readonly Rollout[]): GradingConflict[] {
  const byPatch = new Map<string, GradingConflict>();
  for (const r of list) {
    if (r.patchDigest === undefined || r.resolved === null) continue;
    let c = byPatch.get(r.patchDigest);
    if (!c) byPatch.set(r.patchDigest, (c = { patchDigest: r.patchDigest, resolved: [], unresolved: [] }));
    (r.resolved ? c.resolved : c.unresolved).push(r.id);
  }
  return [...byPatch.values()].filter((c) => c.resolved.length > 0 && c.unresolved.length > 0);
}
