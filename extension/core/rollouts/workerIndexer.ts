import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CancelledError, InputError, errorText } from '../errors';
import { textByRow, textRangesOf, type RowText, type TextSection } from './indexCache';
import { INDEX_YOUNG_GENERATION_MB } from './indexHeap';
import { decodeRows, type RowsSection } from './rowColumns';
import type { IndexError, Rollout } from './record';
import type { IndexOptions, IndexProgress, IndexStats, RolloutIndex, RolloutIndexing } from './rolloutIndex';

/** What the worker is built with: everything of IndexOptions that survives a structured clone. */
export interface WorkerSetup {
  root: string;
  options: Pick<IndexOptions, 'cacheDir' | 'concurrency'>;
}

export type ToWorker = { type: 'refresh'; id: number } | { type: 'cancel'; id: number; reason: string };

export type FromWorker =
  | { type: 'progress'; id: number; progress: IndexProgress }
  | { type: 'rows'; id: number; rows: RowsSection }
  | { type: 'done'; id: number; unchanged: boolean; root: string; errors: IndexError[]; stats: IndexStats; text?: WireText }
  | { type: 'failed'; id: number; error: WireError };

/**
 * Where the rows' texts lie, by row (its place in the rows sent): the host keys the ranges by
 * the ids of the rows it decoded rather than receiving 100,000 copies of them.
 */
export type WireText = TextSection & { store: string };

export function toWireText(text: RowText, rows: readonly Rollout[]): WireText {
  return { store: text.store, ...textByRow(text.ranges, rows) };
}

/** A failure as it crosses the thread: the host throws the same class the in-thread index would. */
type WireError =
  { kind: 'input'; file?: string; where?: string; problem: string } | { kind: 'cancelled'; message: string } | { kind: 'other'; message: string };

/** Rows per message: each is a structured clone the host's event loop takes in one turn. */
export const ROWS_PER_MESSAGE = 2000;

export function toWire(error: unknown): WireError {
  if (error instanceof InputError)
    return {
      kind: 'input',
      problem: error.problem,
      ...(error.file !== undefined ? { file: error.file } : {}),
      ...(error.where !== undefined ? { where: error.where } : {}),
    };
  if (error instanceof CancelledError) return { kind: 'cancelled', message: error.message };
  return { kind: 'other', message: errorText(error) };
}

function fromWire(error: WireError): Error {
  if (error.kind === 'input') return new InputError(error.file, error.where, error.problem);
  if (error.kind === 'cancelled') return new CancelledError(error.message);
  return new Error(error.message);
}

interface Pending {
  rows: Rollout[];
  onProgress: ((p: IndexProgress) => void) | undefined;
  resolve(index: RolloutIndex): void;
  reject(error: Error): void;
}

/**
 * The worker's script: an entry of its own beside the program's other entries, since a worker
 * thread starts with nothing installed (the scaffold families and their formats): from source
 * (tests, `tsx`) `extension/rolloutIndexWorker.ts`, in the extension and the CLI the bundle beside
 * theirs (`dist/rolloutIndexWorker.js`, built by scripts/build.mjs).
 */
function workerScript(): { file: string; fromSource: boolean } {
  const fromSource = __filename.endsWith('.ts');
  return { file: fromSource ? join(__dirname, '../../rolloutIndexWorker.ts') : join(__dirname, 'rolloutIndexWorker.js'), fromSource };
}

/**
 * `RolloutIndexer` in a worker thread, so a host with a UI (the extension host) keeps answering
 * while a run of 100,000 rollouts is read: the same indexer, kept in the worker between refreshes
 * (a re-index reads only what changed, and an unchanged index sends no rows). Cancelling a
 * refresh's signal stops the worker's read; `close()` ends the thread.
 */
export class WorkerRolloutIndexer implements RolloutIndexing {
  readonly root: string;
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** The rows of the last index and where their text lies, reused when the worker says nothing changed. */
  private rows: Rollout[] = [];
  private text: RowText | undefined;

  constructor(
    root: string,
    private readonly options: WorkerSetup['options'] = {},
  ) {
    this.root = resolve(root);
  }

  refresh(signal?: AbortSignal, onProgress?: (p: IndexProgress) => void): Promise<RolloutIndex> {
    if (signal?.aborted) return Promise.reject(new CancelledError(typeof signal.reason === 'string' ? signal.reason : 'cancelled'));
    const worker = this.started();
    const id = ++this.nextId;
    return new Promise<RolloutIndex>((resolve, reject) => {
      const cancel = () =>
        worker.postMessage({ type: 'cancel', id, reason: typeof signal?.reason === 'string' ? signal.reason : 'cancelled' } satisfies ToWorker);
      signal?.addEventListener('abort', cancel, { once: true });
      const settle = () => {
        signal?.removeEventListener('abort', cancel);
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker?.unref();
      };
      this.pending.set(id, {
        rows: [],
        onProgress,
        resolve: (index) => {
          settle();
          resolve(index);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      worker.ref();
      worker.postMessage({ type: 'refresh', id } satisfies ToWorker);
    });
  }

  /** Ends the thread; a refresh still running is rejected as cancelled. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failAll(new CancelledError('the index was closed'));
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const { file, fromSource } = workerScript();
    // From source the worker inherits `--import tsx`; a bundle needs none of the host's flags.
    const worker = new Worker(file, {
      workerData: { root: this.root, options: this.options } satisfies WorkerSetup,
      ...(fromSource ? {} : { execArgv: [] }),
      // Unbounded, a long index grows it to where it holds only garbage (indexHeap.ts).
      resourceLimits: { maxYoungGenerationSizeMb: INDEX_YOUNG_GENERATION_MB },
    });
    worker.on('message', (message: FromWorker) => this.receive(message));
    worker.on('error', (error) => this.stopped(worker, `the index worker failed: ${errorText(error)}`));
    worker.on('exit', (code) => this.stopped(worker, `the index worker exited (code ${code})`));
    this.worker = worker;
    return worker;
  }

  private receive(message: FromWorker): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    if (message.type === 'progress') pending.onProgress?.(message.progress);
    else if (message.type === 'rows') for (const row of decodeRows(message.rows)) pending.rows.push(row);
    else if (message.type === 'failed') pending.reject(fromWire(message.error));
    else {
      if (!message.unchanged) {
        this.rows = pending.rows;
        this.text = message.text ? { store: message.text.store, ranges: textRangesOf(message.text, this.rows) } : undefined;
      }
      pending.resolve({ root: message.root, rollouts: this.rows, errors: message.errors, stats: message.stats, ...(this.text ? { text: this.text } : {}) });
    }
  }

  /** A worker that died takes its refreshes with it; the next refresh starts another. */
  private stopped(worker: Worker, why: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.failAll(new Error(why));
  }

  private failAll(error: Error): void {
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}
