import { serialize } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { RolloutIndexer } from './rolloutIndex';
import { encodeRows } from './rowColumns';
import { ROWS_PER_MESSAGE, toWire, toWireText, type FromWorker, type ToWorker, type WorkerSetup } from './workerIndexer';

/**
 * The worker thread behind `WorkerRolloutIndexer`: one refresh, then the host ends the thread.
 * Rows go back in slices of bytes the host takes over without a copy and builds rows from only
 * once this thread (and the index's garbage in its heap) is gone.
 */
/** Runs the refresh the host started this thread for; the entry (`extension/rolloutIndexWorker.ts`) installs the families first. */
export function runIndexWorker(): void {
  const port = parentPort;
  if (!port) throw new Error('the rollout index worker runs as a worker thread');
  const setup = workerData as WorkerSetup;
  const controller = new AbortController();
  port.on('message', (message: ToWorker) => controller.abort(message.reason));
  const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

  void (async () => {
    let last = 0;
    try {
      const indexer = new RolloutIndexer(setup.root, { ...setup.options, ...(setup.held !== undefined ? { held: setup.held } : {}) });
      const index = await indexer.refreshHandingOff(controller.signal, (p) => {
        // A progress message per file would cost the host more than the index saves it.
        const now = Date.now();
        if (now - last < 50 && p.done !== p.total) return;
        last = now;
        post({ type: 'progress', progress: p });
      });
      if (!index.unchanged)
        for (let at = 0; at < index.rollouts.length; at += ROWS_PER_MESSAGE) {
          const rows = ownBytes(serialize(encodeRows(index.rollouts.slice(at, at + ROWS_PER_MESSAGE))));
          post({ type: 'rows', rows }, [rows]);
        }
      post({
        type: 'done',
        unchanged: index.unchanged,
        root: index.root,
        errors: index.errors,
        stats: index.stats,
        ...(index.key !== undefined ? { key: index.key } : {}),
        ...(!index.unchanged && index.text ? { text: toWireText(index.text, index.rollouts) } : {}),
      });
    } catch (error) {
      post({ type: 'failed', error: toWire(error) });
    }
  })();
}

/** The bytes in an ArrayBuffer of their own, which can be transferred rather than copied. */
function ownBytes(bytes: Buffer): ArrayBuffer {
  const { buffer, byteOffset, byteLength } = bytes;
  return buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength ? buffer : new Uint8Array(bytes).buffer;
}
