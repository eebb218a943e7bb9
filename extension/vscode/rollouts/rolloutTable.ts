import type { Rollout } from '../../core/rollouts/record';
import type { RolloutQuerySpec } from '../../core/rollouts/rolloutQuery';
import type { RolloutQuery, RolloutRow, RolloutStatus } from '../../protocol/rollouts';

/** The table's query in the core's terms: its sort column and direction as a sort spec. */
export function querySpec(query: RolloutQuery, matches?: ReadonlySet<string>): RolloutQuerySpec {
  return { filter: query.filter, ...(matches ? { matches } : {}), ...(query.sort ? { sort: `${query.sort.descending ? '-' : ''}${query.sort.column}` } : {}) };
}

/** What a rollout's icon says: passed, failed by the policy, failed by the harness, or not known. */
export function rolloutStatus(r: Rollout): RolloutStatus {
  if (r.resolved === true) return 'resolved';
  if (r.failure === 'infra-error' || r.failure === 'eval-error') return 'infra';
  if (r.resolved === false || r.failure !== 'unknown') return 'failed';
  return 'unknown';
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
    failure: r.failure,
    status: rolloutStatus(r),
    evidence: r.evidence.detail,
    tests: r.evidence.tests ?? [],
    ...(r.evaluation ? { evaluation: r.evaluation.file } : {}),
    tokens: r.tokens ?? null,
    cost: r.cost ?? null,
    duration: r.duration ?? null,
  };
}

