import type { RowText } from '../../extension/core/rollouts/indexCache';
import type { Rollout } from '../../extension/core/rollouts/record';
import { findRollouts, type SearchHit } from '../../extension/core/rollouts/rolloutSearch';

/**
 * The full-text search's hits over `rollouts`, as `findRollouts` (the search of `rollouts list
 * --search` and of the Rollouts table) returns them with no filter and no sort; with `text`, the
 * index's text store answers which rollouts to read.
 */
export async function searchRollouts(root: string, rollouts: readonly Rollout[], query: string, options: { text?: RowText } = {}): Promise<SearchHit[]> {
  return (await findRollouts({ root, rollouts, text: options.text }, { search: query })).hits ?? [];
}
