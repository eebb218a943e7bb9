import { watch, type FSWatcher } from 'node:fs';
import { CancelledError } from '../errors';
import type { RolloutIndex, RolloutIndexing } from './rolloutIndex';

export interface WatchOptions {
  /** Quiet time after the last file event before re-indexing; a writer appends in bursts. */
  debounceMs?: number;
  onUpdate(index: RolloutIndex): void;
  onError?(err: unknown): void;
}

export interface RolloutWatch {
  close(): void;
}

/**
 * Re-indexes when anything under the folder changes. Only changed files are read again (an
 * appended JSONL from its last complete line), and refreshes never overlap: events during one
 * schedule exactly one more.
 */
export function watchRollouts(indexer: RolloutIndexing, options: WatchOptions): RolloutWatch {
  const debounceMs = options.debounceMs ?? 200;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const refresh = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = indexer.refresh(controller.signal).then(
      (index) => {
        if (!controller.signal.aborted) options.onUpdate(index);
      },
      (err: unknown) => {
        if (!(err instanceof CancelledError) && !controller.signal.aborted) options.onError?.(err);
      },
    );
    await running;
    running = undefined;
    if (again && !controller.signal.aborted) {
      again = false;
      await refresh();
    }
  };

  const watcher: FSWatcher = watch(indexer.root, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), debounceMs);
  });
  watcher.on('error', (err) => options.onError?.(err));
  return {
    close() {
      controller.abort('watch closed');
      clearTimeout(timer);
      watcher.close();
    },
  };
}
