import type { Rollout } from './record';
import { parseFilter } from './rolloutFilter';
import { sortRollouts } from './rolloutFields';
import { groupRollouts, type RolloutGroup } from './rolloutGroups';
import { searchRollouts, type SearchHit, type SearchOptions } from './rolloutSearch';

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
 * The rows of a query: the filter, then the full-text matches, then the sort (findRollouts
 * runs the search between them). Throws the filter's or the sort's InputError as is.
 * @internal
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

export interface FindOptions extends SearchOptions {
  /** How the filtered rollouts are searched (a caller may cache it); searchRollouts by default. */
  search?: (rollouts: readonly Rollout[], text: string) => Promise<SearchHit[]>;
}

/**
 * The rollouts a query finds, in the one order both twins use: the filter (a bad one throws its
 * InputError before any file is read), then the full-text search over the filtered rollouts
 * only (the slow part reads no file the filter left out), then the sort. `hits` is absent when
 * there is no search.
 */
export async function findRollouts(
  index: { root: string; rollouts: readonly Rollout[] },
  query: RolloutSearchQuery,
  options: FindOptions = {},
): Promise<{ rows: Rollout[]; hits?: SearchHit[] }> {
  const filtered = queryRollouts(index.rollouts, { ...(query.filter !== undefined ? { filter: query.filter } : {}) });
  if (query.sort) sortRollouts([], query.sort); // a bad sort, too, throws before the search reads a file
  const text = query.search?.trim() ?? '';
  const { search, ...searchOptions } = options;
  const hits = text === '' ? undefined : await (search ? search(filtered, text) : searchRollouts(index.root, filtered, text, searchOptions));
  const rows = queryRollouts(filtered, { ...(hits ? { matches: new Set(hits.map((h) => h.rollout)) } : {}), ...(query.sort ? { sort: query.sort } : {}) });
  return hits ? { rows, hits } : { rows };
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
