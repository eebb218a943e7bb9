import { withoutCompressionSuffix } from '../input/inputSource';
import { readInputText } from '../input/readInput';
import { join } from 'node:path';
import { CancelledError, throwIfAborted } from '../errors';
import type { Trajectory } from '../trajectory/model';
import type { TrajectoryImporter } from './fileEntry';
import { jsonlLines } from './jsonlLines';
import type { Rollout } from './record';
import { importRolloutTrajectory } from './trajectoryImport';

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
  const byPath = new Map<string, Rollout[]>();
  for (const r of rollouts) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  const hits: SearchHit[] = [];
  for (const [path, list] of byPath) {
    throwIfAborted(options.signal);
    try {
      await searchFile(join(root, path), path, list);
    } catch (err) {
      // An unreadable file is already an index error; search goes on with the others.
      if (err instanceof CancelledError) throw err;
    }
  }
  return hits;

  async function searchFile(abs: string, path: string, list: Rollout[]): Promise<void> {
    const search = (text: string, rollout: Rollout) => {
      if (rawCheck && !text.toLowerCase().includes(needle)) return;
      const imported = importer(JSON.parse(text), path, rollout.line);
      const t = Array.isArray(imported) ? imported[0] : imported;
      if (t) hits.push(...hitsIn(t, rollout.id, needle, max));
    };
    if (!withoutCompressionSuffix(path).endsWith('.jsonl')) {
      const rollout = list[0];
      if (rollout) search((await readInputText(abs, options.signal ? { signal: options.signal } : {})).text, rollout);
      return;
    }
    const wanted = new Map(list.map((r) => [r.line, r]));
    for await (const l of jsonlLines(abs, 0, 1, options.signal)) {
      const rollout = wanted.get(l.line);
      if (rollout) search(l.text, rollout);
    }
  }
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
