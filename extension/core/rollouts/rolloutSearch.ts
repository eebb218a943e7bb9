import type { Trajectory } from '../trajectory/model';
import type { TrajectoryImporter } from './fileEntry';
import type { Rollout } from './record';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';
import { queryRollouts, type RolloutSearchQuery } from './rolloutQuery';
import { sortRollouts } from './rolloutFields';
import type { RowText } from './indexCache';
import { matchInStore, storeAnswers } from './textStore';

export interface SearchHit {
  rollout: string;
  step: number;
  field: 'thought' | 'action' | 'observation';
  /** The matching line, cut to about 160 characters around the match. */
  excerpt: string;
}

export interface SearchOptions {
  signal?: AbortSignal;
  importTrajectory?: TrajectoryImporter;
  /** Hits kept per rollout (all rollouts that match are reported). */
  maxHitsPerRollout?: number;
  /** The index's text store: only the files of the rollouts whose text matches are read. */
  text?: RowText;
}

/** JSON writes these characters escaped, so a raw-text pre-check could miss them. */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * Case-insensitive full-text search over thoughts, actions (raw text) and observations: a hit
 * is a step's text holding the query, never a match across two texts or two steps. With the
 * index's text store the store says which rollouts match and only their files are read again
 * for the hits' excerpts; without one every file is read (a JSONL file is streamed and only the
 * lines of the rollouts asked for are parsed, and a document whose raw text cannot contain the
 * query is not parsed at all).
 */
async function searchRollouts(root: string, rollouts: readonly Rollout[], query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const needle = query.toLowerCase();
  if (needle === '') return [];
  const found = await fromStore(rollouts, needle, options);
  if (found) {
    const { text: _store, ...rest } = options;
    const keep = [...found.missing, ...rollouts.filter((r) => found.matches.has(r.id))];
    return keep.length === 0 ? [] : searchRollouts(root, inIndexOrder(rollouts, keep), query, rest);
  }
  const importer = options.importTrajectory ?? importRolloutTrajectory;
  const max = options.maxHitsPerRollout ?? 20;
  const rawCheck = !ESCAPED_IN_JSON.test(query);
  const hits: SearchHit[] = [];
  await forEachRolloutText(
    root,
    rollouts,
    (text, rollout) => {
      if (rawCheck && !text.toLowerCase().includes(needle)) return;
      const imported = importer(JSON.parse(text), rollout.path, rollout.line);
      const t = Array.isArray(imported) ? imported[0] : imported;
      if (t) hits.push(...hitsIn(t, rollout.id, needle, max));
    },
    // An unreadable file is already an index error; search goes on with the others.
    options.signal ? { signal: options.signal } : {},
  );
  return hits;
}

/**
 * The ids of the rollouts the search finds, as `searchRollouts` would report them, answered
 * from the text store alone when the index has one (the table needs no excerpt).
 */
export async function matchRollouts(root: string, rollouts: readonly Rollout[], query: string, options: SearchOptions = {}): Promise<Set<string>> {
  const needle = query.toLowerCase();
  if (needle === '') return new Set();
  const found = await fromStore(rollouts, needle, options);
  if (!found || !storeAnswers(needle))
    return new Set((await searchRollouts(root, rollouts, query, { ...options, maxHitsPerRollout: 1 })).map((h) => h.rollout));
  if (found.missing.length === 0) return found.matches;
  const { text: _store, ...rest } = options;
  for (const h of await searchRollouts(root, found.missing, query, { ...rest, maxHitsPerRollout: 1 })) found.matches.add(h.rollout);
  return found.matches;
}

/**
 * The store's answer: the rollouts whose text holds the needle (for a needle the store cannot
 * answer exactly, those that may hold it) and those it has no text for; undefined without a
 * store, or when it cannot be read (a newer index replaced it): the files are read then.
 */
async function fromStore(rollouts: readonly Rollout[], needle: string, options: SearchOptions) {
  // A lone surrogate has no UTF-8 bytes of its own: such a needle is searched in the files.
  if (!options.text || Buffer.from(needle, 'utf8').toString('utf8') !== needle) return undefined;
  try {
    return await matchInStore(options.text, rollouts, needle, options.signal);
  } catch (err) {
    if (options.signal?.aborted) throw err;
    return undefined;
  }
}

function inIndexOrder(all: readonly Rollout[], some: Rollout[]): Rollout[] {
  const keep = new Set(some);
  return all.filter((r) => keep.has(r));
}

function hitsIn(t: Trajectory, rollout: string, needle: string, max: number): SearchHit[] {
  const hits: SearchHit[] = [];
  for (const step of t.steps) {
    for (const [field, text] of [
      ['thought', step.thought],
      ['action', step.action.raw],
      ['observation', step.observation],
    ] as const) {
      const at = text.toLowerCase().indexOf(needle);
      if (at < 0) continue;
      hits.push({ rollout, step: step.index, field, excerpt: excerpt(text, at, needle.length) });
      if (hits.length >= max) return hits;
    }
  }
  return hits;
}

function excerpt(text: string, at: number, length: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const newline = text.indexOf('\n', at + length);
  const lineEnd = newline < 0 ? text.length : newline;
  const from = Math.max(lineStart, at - 80);
  const to = Math.min(lineEnd, at + length + 80);
  return (from > lineStart ? '…' : '') + text.slice(from, to) + (to < lineEnd ? '…' : '');
}

export interface FindOptions extends SearchOptions {
  /**
   * How the filtered rollouts are searched (a caller may cache it): their hits, or only the ids
   * of those that match (`matchRollouts`); searchRollouts by default.
   */
  search?: (rollouts: readonly Rollout[], text: string) => Promise<SearchHit[] | ReadonlySet<string>>;
}

/**
 * The rollouts a query finds, in the one order both twins use: the filter (a bad one throws its
 * InputError before any file is read), then the full-text search over the filtered rollouts
 * only (the slow part reads no file the filter left out), then the sort. `hits` is absent when
 * there is no search.
 */
export async function findRollouts(
  index: { root: string; rollouts: readonly Rollout[]; text?: RowText | undefined },
  query: RolloutSearchQuery,
  options: FindOptions = {},
): Promise<{ rows: Rollout[]; hits?: SearchHit[] }> {
  const filtered = queryRollouts(index.rollouts, { ...(query.filter !== undefined ? { filter: query.filter } : {}) });
  if (query.sort) sortRollouts([], query.sort); // a bad sort, too, throws before the search reads a file
  const text = query.search?.trim() ?? '';
  const { search, ...searchOptions } = options;
  const found =
    text === ''
      ? undefined
      : await (search ? search(filtered, text) : searchRollouts(index.root, filtered, text, { ...(index.text ? { text: index.text } : {}), ...searchOptions }));
  const matches = found === undefined ? undefined : Array.isArray(found) ? new Set(found.map((h) => h.rollout)) : (found as ReadonlySet<string>);
  const rows = queryRollouts(filtered, { ...(matches ? { matches } : {}), ...(query.sort ? { sort: query.sort } : {}) });
  return Array.isArray(found) ? { rows, hits: found } : { rows };
}
