import { parentPort, workerData } from 'node:worker_threads';
import { RolloutIndexer } from './rolloutIndex';
import { encodeRows } from './rowColumns';
import { ROWS_PER_MESSAGE, toWire, toWireText, type FromWorker, type ToWorker, type WorkerSetup } from './workerIndexer';

/**
 * The worker thread behind `WorkerRolloutIndexer`: the same `RolloutIndexer` as in-thread, kept
 * between refreshes so a re-index reads only what changed. Rows go back in slices, so the host
 * takes them in several short turns of its event loop instead of one long one.
 */
/** Answers the host's refreshes on this thread's port; the entry (`extension/rolloutIndexWorker.ts`) installs the families first. */
export function runIndexWorker(): void {
  const port = parentPort;
  if (!port) throw new Error('the rollout index worker runs as a worker thread');
  const setup = workerData as WorkerSetup;
  const indexer = new RolloutIndexer(setup.root, setup.options);
  const running = new Map<number, AbortController>();

  const post = (message: FromWorker) => port.postMessage(message);

  port.on('message', (message: ToWorker) => {
    if (message.type === 'cancel') {
      running.get(message.id)?.abort(message.reason);
      return;
    }
    void refresh(message.id);
  });

  async function refresh(id: number): Promise<void> {
    const controller = new AbortController();
    running.set(id, controller);
    let last = 0;
    try {
      // The host keeps the rows: an unchanged index is answered without them, and the worker holds none.
      const index = await indexer.refreshHandingOff(controller.signal, (p) => {
        // A progress message per file would cost the host more than the index saves it.
        const now = Date.now();
        if (now - last < 50 && p.done !== p.total) return;
        last = now;
        post({ type: 'progress', id, progress: p });
      });
      if (!index.unchanged)
        for (let at = 0; at < index.rollouts.length; at += ROWS_PER_MESSAGE)
          post({ type: 'rows', id, rows: encodeRows(index.rollouts.slice(at, at + ROWS_PER_MESSAGE)) });
      post({
        type: 'done',
        id,
        unchanged: index.unchanged,
        root: index.root,
        errors: index.errors,
        stats: index.stats,
        ...(!index.unchanged && index.text ? { text: toWireText(index.text, index.rollouts) } : {}),
      });
    } catch (error) {
      post({ type: 'failed', id, error: toWire(error) });
    } finally {
      running.delete(id);
    }
  }
}
