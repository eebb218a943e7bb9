import { join } from 'node:path';
import { CancelledError, throwIfAborted } from '../errors';
import { withoutCompressionSuffix } from '../input/inputSource';
import { readInputText } from '../input/readInput';
import { jsonlLines } from './jsonlLines';
import type { Rollout } from './record';

/**
 * Reads the raw JSON text of each rollout again (the index keeps no text), file by file in index
 * order: a JSONL file is streamed and only the lines of the rollouts asked for are handed on, so
 * memory holds one document at a time whatever the run's size. An unreadable file is skipped
 * (it is already an index error) and reported to `onUnreadable`; cancellation stops the walk.
 */
export async function forEachRolloutText(
  root: string,
  rollouts: readonly Rollout[],
  visit: (text: string, rollout: Rollout) => void | Promise<void>,
  options: { signal?: AbortSignal; onUnreadable?: (path: string, error: unknown) => void } = {},
): Promise<void> {
  const byPath = new Map<string, Rollout[]>();
  for (const r of rollouts) {
    const list = byPath.get(r.path);
    if (list) list.push(r);
    else byPath.set(r.path, [r]);
  }
  for (const [path, list] of byPath) {
    throwIfAborted(options.signal);
    try {
      if (!withoutCompressionSuffix(path).endsWith('.jsonl')) {
        const rollout = list[0];
        if (rollout) await visit((await readInputText(join(root, path), options.signal ? { signal: options.signal } : {})).text, rollout);
        continue;
      }
      const wanted = new Map(list.map((r) => [r.line, r]));
      for await (const l of jsonlLines(join(root, path), 0, 1, options.signal)) {
        const rollout = wanted.get(l.line);
        if (rollout) await visit(l.text, rollout);
      }
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      options.onUnreadable?.(path, err);
    }
  }
}
