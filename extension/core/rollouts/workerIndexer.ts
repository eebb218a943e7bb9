import { join, resolve } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { CancelledError, InputError, errorText } from '../errors';
import { textByRow, textRangesOf, type RowText, type TextSection } from './indexCache';
import { INDEX_YOUNG_GENERATION_MB } from './indexHeap';
import { decodeRows, type RowsSection } from './rowColumns';
import type { IndexError, Rollout } from './record';
import type { IndexOptions, IndexProgress, IndexStats, RolloutIndex, RolloutIndexing } from './rolloutIndex';

/**
 * What a worker is built with: everything of the indexer's options that survives a structured
 * clone, and the key of the rows the host holds (`HandedOffIndex.key`).
 */
export interface WorkerSetup {
  root: string;
  options: WorkerOptions;
  held?: string;
}

/** The cache folder is where the index lives between refreshes, each in a worker of its own. */
export type WorkerOptions = Required<Pick<IndexOptions, 'cacheDir'>> & Pick<IndexOptions, 'concurrency'>;

export type ToWorker = { type: 'cancel'; reason: string };

export type FromWorker =
  | { type: 'progress'; progress: IndexProgress }
  /** A slice of rows: `RowsSection` serialized (`node:v8`), transferred. */
  | { type: 'rows'; rows: ArrayBuffer }
  | { type: 'done'; unchanged: boolean; root: string; errors: IndexError[]; stats: IndexStats; key?: string; text?: WireText }
  | { type: 'failed'; error: WireError };

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
 * while a run of 100,000 rollouts is read. Each refresh runs in a thread of its own, which ends
 * with it: between refreshes the index is its cache, and the host holds only the rows. A thread
 * kept for the session held the index's garbage as long as it lived (V8 gives an ended isolate's
 * pages back; a live one keeps its high-water mark), and the host built its rows beside that
 * heap, which set the index's peak (`bench/rollouts/scale.ts` measures it). A refresh whose rows the host holds already (the
 * cache's key says so) sends none. Refreshes run one after another; cancelling one's signal stops
 * its read; `close()` ends the one running and refuses the rest.
 */
export class WorkerRolloutIndexer implements RolloutIndexing {
  readonly root: string;
  /** The rows of the last index and where their text lies, reused when the worker says nothing changed. */
  private rows: Rollout[] = [];
  private text: RowText | undefined;
  /** The cache's key of `rows` and `text`, which the next worker compares with the cache. */
  private key: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private running: Worker | undefined;
  private closed = false;

  constructor(
    root: string,
    private readonly options: WorkerOptions,
  ) {
    this.root = resolve(root);
  }

  refresh(signal?: AbortSignal, onProgress?: (p: IndexProgress) => void): Promise<RolloutIndex> {
    const run = () => this.run(signal, onProgress);
    const index = this.queue.then(run, run);
    this.queue = index.catch(() => undefined);
    return index;
  }

  /** Ends the refresh running, which is rejected as cancelled, as are any asked for after. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running?.terminate();
  }

  private async run(signal: AbortSignal | undefined, onProgress: ((p: IndexProgress) => void) | undefined): Promise<RolloutIndex> {
    if (this.closed) throw new CancelledError('the index was closed');
    if (signal?.aborted) throw new CancelledError(reasonOf(signal));
    const { file, fromSource } = workerScript();
    // From source the worker inherits `--import tsx`; a bundle needs none of the host's flags.
    const worker = new Worker(file, {
      workerData: { root: this.root, options: this.options, ...(this.key !== undefined ? { held: this.key } : {}) } satisfies WorkerSetup,
      ...(fromSource ? {} : { execArgv: [] }),
      // Unbounded, a long index grows it to where it holds only garbage (indexHeap.ts).
      resourceLimits: { maxYoungGenerationSizeMb: INDEX_YOUNG_GENERATION_MB },
    });
    this.running = worker;
    const slices: ArrayBuffer[] = [];
    const cancel = () => worker.postMessage({ type: 'cancel', reason: reasonOf(signal!) } satisfies ToWorker);
    signal?.addEventListener('abort', cancel, { once: true });
    let answer: Extract<FromWorker, { type: 'done' }>;
    try {
      answer = await new Promise((resolve, reject) => {
        worker.on('message', (message: FromWorker) => {
          if (message.type === 'progress') onProgress?.(message.progress);
          else if (message.type === 'rows') slices.push(message.rows);
          else if (message.type === 'done') resolve(message);
          else reject(fromWire(message.error));
        });
        worker.on('error', (error) => reject(new Error(`the index worker failed: ${errorText(error)}`)));
        worker.on('exit', (code) => reject(this.closed ? new CancelledError('the index was closed') : new Error(`the index worker exited (code ${code})`)));
      });
    } finally {
      signal?.removeEventListener('abort', cancel);
      this.running = undefined;
      // Its heap goes before the rows are built here: the two side by side were the index's peak.
      await worker.terminate();
    }
    if (!answer.unchanged) {
      const rows: Rollout[] = [];
      // A slice a turn, as the messages came: the host's event loop is never held for the whole.
      for (let slice = slices.shift(); slice; slice = slices.shift()) {
        for (const row of decodeRows(deserialize(new Uint8Array(slice)) as RowsSection)) rows.push(row);
        if (slices.length > 0) await setImmediate();
      }
      this.rows = rows;
      this.text = answer.text ? { store: answer.text.store, ranges: textRangesOf(answer.text, rows) } : undefined;
    }
    this.key = answer.key;
    return { root: answer.root, rollouts: this.rows, errors: answer.errors, stats: answer.stats, ...(this.text ? { text: this.text } : {}) };
  }
}

const reasonOf = (signal: AbortSignal): string => (typeof signal.reason === 'string' ? signal.reason : 'cancelled');
