import type { Rollout } from '../../core/rollouts/record';
import { parseFilter } from '../../core/rollouts/rolloutFilter';
import { sortRollouts } from '../../core/rollouts/rolloutFields';
import { groupRollouts } from '../../core/rollouts/rolloutGroups';
import type { GroupStatistics, RolloutQuery, RolloutRow, RolloutStatus } from '../../protocol/rollouts';

/**
 * The table's rows for a query: the core's filter, then the full-text matches (ids found by
 * the core's search), then the core's sort. Throws the filter's InputError as is, so the view
 * can show exactly what the CLI would say.
 */
export function queryRollouts(rollouts: readonly Rollout[], query: RolloutQuery, searchMatches?: ReadonlySet<string>): Rollout[] {
  let rows: readonly Rollout[] = rollouts;
  if (query.filter.trim() !== '') rows = rows.filter(parseFilter(query.filter));
  if (searchMatches) rows = rows.filter((r) => searchMatches.has(r.id));
  if (!query.sort) return [...rows];
  return sortRollouts(rows, `${query.sort.descending ? '-' : ''}${query.sort.column}`);
}

/** What a rollout's icon says: passed, failed by the policy, failed by the harness, or not known. */
export function rolloutStatus(r: Rollout): RolloutStatus {
  if (r.resolved === true) return 'resolved';
  if (r.failure === 'infra-error' || r.failure === 'eval-error') return 'infra';
  if (r.resolved === false || r.failure !== 'unknown') return 'failed';
  return 'unknown';
}

/**
 * The failure class a row shows: the core's, except that a rollout nothing graded (no
 * evaluation, no `resolved`, no reward) says "not graded" rather than a class of failure.
 */
export function failureLabel(r: Rollout): string {
  return r.failure === 'unknown' && r.resolved === null && r.reward === undefined ? 'not graded' : r.failure;
}

export function toRolloutRow(r: Rollout): RolloutRow {
  return {
    id: r.id,
    instance: r.instance,
    attempt: r.attempt,
    format: r.format,
    steps: r.steps,
    exit: r.exitStatus ?? null,
    resolved: r.resolved,
    reward: r.reward ?? null,
    failure: failureLabel(r),
    status: rolloutStatus(r),
    evidence: r.evidence.detail,
    tests: r.evidence.tests ?? [],
    ...(r.evaluation ? { evaluation: r.evaluation.file } : {}),
    tokens: r.tokens ?? null,
    cost: r.cost ?? null,
    duration: r.duration ?? null,
  };
}

/** Solve rate, mean pass@k for every k some instance reaches, and the mixed groups. */
export function groupStatistics(rollouts: readonly Rollout[]): GroupStatistics {
  const groups = groupRollouts(rollouts);
  const evaluated = groups.reduce((n, g) => n + g.evaluated, 0);
  const resolved = groups.reduce((n, g) => n + g.resolved, 0);
  const maxK = groups.reduce((n, g) => Math.max(n, g.evaluated), 0);
  const passAtK = Array.from({ length: maxK }, (_, i) => {
    const values = groups.flatMap((g) => (g.passAtK[i] === undefined ? [] : [g.passAtK[i]]));
    return { k: i + 1, value: values.reduce((a, b) => a + b, 0) / values.length, instances: values.length };
  });
  return {
    rollouts: rollouts.length,
    instances: groups.length,
    evaluated,
    resolved,
    solveRate: evaluated > 0 ? resolved / evaluated : null,
    passAtK,
    mixed: groups.filter((g) => g.mixed).length,
  };
}
