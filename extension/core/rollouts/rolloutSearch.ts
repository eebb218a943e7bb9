import type { Trajectory } from '../trajectory/model';
import type { TrajectoryImporter } from './fileEntry';
import type { Rollout } from './record';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';
import { queryRollouts, type RolloutSearchQuery } from './rolloutQuery';
import { sortRollouts } from './rolloutFields';

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
}

/** JSON writes these characters escaped, so a raw-text pre-check could miss them. */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\u007f-\uffff]/;

/**
 * Case-insensitive full-text search over thoughts, actions (raw text) and observations.
 * Files are read again (the index keeps no text); a JSONL file is streamed and only the lines
 * of the rollouts asked for are parsed, and a document whose raw text cannot contain the query
 * is not parsed at all.
 */
export async function searchRollouts(root: string, rollouts: readonly Rollout[], query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
  const needle = query.toLowerCase();
  if (needle === '') return [];
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
