import type { Rollout } from './record';
import { parseFilter } from './rolloutFilter';
import { sortRollouts } from './rolloutFields';
import { groupRollouts, type RolloutGroup } from './rolloutGroups';

/** A query over the index: a filter expression, the ids full-text search found, a sort. */
interface RolloutQuerySpec {
  /** An expression of the filter language; '' or absent for none. */
  filter?: string;
  /** Only these rollout ids (what searchRollouts found); absent for no search. */
  matches?: ReadonlySet<string>;
  /** FIELD, -FIELD or FIELD:desc; absent for index order. */
  sort?: string;
}

/**
 * The rows of a query: the filter, then the full-text matches, then the sort (findRollouts in rolloutSearch.ts
 * runs the search between them). Throws the filter's or the sort's InputError as is.
 */
export function queryRollouts(rollouts: readonly Rollout[], query: RolloutQuerySpec): Rollout[] {
  let rows: readonly Rollout[] = rollouts;
  if (query.filter !== undefined && query.filter.trim() !== '') rows = rows.filter(parseFilter(query.filter));
  if (query.matches) {
    const matches = query.matches;
    rows = rows.filter((r) => matches.has(r.id));
  }
  return query.sort ? sortRollouts(rows, query.sort) : [...rows];
}

/** A query with full-text search, as a person gives it: filter, search text, sort. */
export interface RolloutSearchQuery {
  filter?: string;
  /** Case-insensitive text in a thought, action or observation; blank for none. */
  search?: string;
  sort?: string;
}

export interface RunStatistics {
  rollouts: number;
  instances: number;
  evaluated: number;
  resolved: number;
  /** Over every evaluated rollout; null when none was evaluated. */
  solveRate: number | null;
  /** Mean pass@k over the instances with at least k evaluated rollouts, for k = 1..n. */
  passAtK: { k: number; value: number; instances: number }[];
  mixed: number;
}

/** A run's statistics and its groups: solve rate, mean pass@k for every k some instance reaches, the mixed groups. */
export function runStatistics(rollouts: readonly Rollout[]): { statistics: RunStatistics; groups: RolloutGroup[] } {
  const groups = groupRollouts(rollouts);
  const evaluated = groups.reduce((n, g) => n + g.evaluated, 0);
  const resolved = groups.reduce((n, g) => n + g.resolved, 0);
  const maxK = groups.reduce((n, g) => Math.max(n, g.evaluated), 0);
  const passAtK = Array.from({ length: maxK }, (_, i) => {
    const values = groups.flatMap((g) => (g.passAtK[i] === undefined ? [] : [g.passAtK[i]]));
    return { k: i + 1, value: values.reduce((a, b) => a + b, 0) / values.length, instances: values.length };
  });
  return {
    groups,
    statistics: {
      rollouts: rollouts.length,
      instances: groups.length,
      evaluated,
      resolved,
      solveRate: evaluated > 0 ? resolved / evaluated : null,
      passAtK,
      mixed: groups.filter((g) => g.mixed).length,
    },
  };
}
