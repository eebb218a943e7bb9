import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { CancelledError, InputError, throwIfAborted } from '../errors';
import { fsInputError } from '../input/inputSource';
import {
  factsThrough,
  indexError,
  isUnchanged,
  scanFile,
  type FileEntry,
  type FileScan,
  type ReadMode,
  type TextRange,
  type TrajectoryImporter,
} from './fileEntry';
import {
  EntrySpool,
  NO_ERRORS,
  loadCache,
  rootKey,
  saveCache,
  stampsFile,
  spooledEntries,
  type CachedFile,
  type LoadedCache,
  type RowText,
} from './indexCache';
import type { IndexError, Rollout } from './record';
import { listFiles, type ListedFile } from './fileListing';
import { joinReported, joinRollouts, shareReportStrings, stringSharing, type PlacedFacts, type RunReports } from './rolloutJoin';
import { summarizeTrajectory } from './trajectorySummary';
import { TextStoreWriter, inStore, trajectoryText } from './textStore';

export interface IndexProgress {
  done: number;
  total: number;
  file: string;
}

export interface IndexOptions {
  /** Folder for the cache file; no cache when absent. */
  cacheDir?: string;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  /** Replaces the index's own reader, which computes the facts without building whole trajectories. */
  importTrajectory?: TrajectoryImporter;
  /** Files read at once; reading overlaps parsing. */
  concurrency?: number;
}

export interface IndexStats {
  files: number;
  /** Folders whose entries were read; with a cache, those unchanged since the last listing are not. */
  foldersRead: number;
  /** Files read from the start, and JSONL files read from where the last read stopped. */
  filesRead: number;
  filesResumed: number;
  filesCached: number;
  bytesRead: number;
  /** Why a cache on disk was thrown away (corrupt, another version). */
  cacheDiscarded?: string;
}

export interface RolloutIndex {
  root: string;
  rollouts: Rollout[];
  errors: IndexError[];
  stats: IndexStats;
  /** Where full-text search finds each row's text; absent without a cache folder (search reads the files). */
  text?: RowText;
}

/**
 * What `RolloutIndexer.refreshHandingOff` answers: the index, or that the rows last handed off
 * still hold. With a cache folder, `key` names the rows and text places answered (the cache's
 * `rowsKey`): a later indexer given it as `held` answers unchanged while they still hold.
 */
export type HandedOffIndex = ((RolloutIndex & { unchanged: false }) | UnchangedIndex) & { key?: string };

interface UnchangedIndex {
  unchanged: true;
  root: string;
  errors: IndexError[];
  stats: IndexStats;
}

/** What an indexer is built with: `held` is the key of rows its caller holds (`HandedOffIndex.key`). */
export type IndexerOptions = Omit<IndexOptions, 'signal' | 'onProgress'> & { held?: string };

/** What re-indexes a folder: `RolloutIndexer` in this thread, `WorkerRolloutIndexer` in a worker thread. */
export interface RolloutIndexing {
  readonly root: string;
  refresh(signal?: AbortSignal, onProgress?: (p: IndexProgress) => void): Promise<RolloutIndex>;
}

/**
 * Indexes a folder of rollouts. Keeps the file entries between calls, so `refresh()` after a
 * change reads only the files whose size or mtime moved (and appended JSONL from where it
 * stopped); with a cache folder the same holds across processes.
 */
export class RolloutIndexer implements RolloutIndexing {
  readonly root: string;
  /** Full entries, or while nothing changed since the cache was read, what the stat check needs of them. */
  private entries = new Map<string, FileEntry | CachedFile>();
  /** The cache's entries, read when something changed and the rows are joined again. */
  private cachedEntries: LoadedCache['entries'];
  private loaded = false;
  private cacheDiscarded: string | undefined;
  /** The last join, reused while no file changes. */
  private joined: Rollout[] | undefined;
  private text: RowText | undefined;
  /** The caller holds the rows of the files as they stand (`refreshHandingOff`); the indexer does not. */
  private handedOff = false;
  /** The cache's key of the rows and text places last loaded or saved. */
  private key: string | undefined;

  constructor(
    root: string,
    private readonly options: IndexerOptions = {},
  ) {
    this.root = resolve(root);
  }

  async refresh(signal?: AbortSignal, onProgress?: (p: IndexProgress) => void): Promise<RolloutIndex> {
    const index = await this.update(signal, onProgress, false);
    if ('unchanged' in index) throw new Error('internal: the rows were handed off, then asked for again');
    return index;
  }

  /**
   * For a caller that keeps the rows itself (the index worker, whose host holds them): the rows
   * when they changed since the last call (or, for a new indexer, since the rows of `held`),
   * else `unchanged`. The indexer keeps no rows and no text places between calls: they were a
   * copy of what the host held (62 MB of rows and 12 MB of text places at 100,000 rollouts).
   */
  async refreshHandingOff(signal?: AbortSignal, onProgress?: (p: IndexProgress) => void): Promise<HandedOffIndex> {
    const index = await this.update(signal, onProgress, true);
    const key = this.key !== undefined ? { key: this.key } : {};
    return 'unchanged' in index ? { ...index, ...key } : { ...index, unchanged: false, ...key };
  }

  private async update(
    signal: AbortSignal | undefined,
    onProgress: ((p: IndexProgress) => void) | undefined,
    handOff: boolean,
  ): Promise<RolloutIndex | UnchangedIndex> {
    const { cacheDir } = this.options;
    if (!this.loaded && cacheDir) {
      const cache = await loadCache(cacheDir, this.root, this.options.held);
      this.entries = cache.files;
      this.cachedEntries = cache.entries;
      this.joined = cache.rollouts;
      this.text = cache.text;
      this.key = cache.key;
      // The caller holds these rows already: unless a file changed, they are not sent again.
      this.handedOff = cache.held === true;
      this.cacheDiscarded = cache.discarded;
    }
    this.loaded = true;
    await assertFolder(this.root);
    const listing = await listFiles(this.root, cacheDir ? { skip: resolve(cacheDir), signal, stampsFile: stampsFile(cacheDir, this.root) } : { signal });
    const settled =
      listing.files.length === this.entries.size &&
      listing.files.every((f) => {
        const previous = this.entries.get(f.path);
        return previous !== undefined && isUnchanged(previous, f);
      });
    // Something changed: the rows are joined again, from every file's full entry.
    if (!settled) await this.readCachedEntries();
    const stats: IndexStats = { files: listing.files.length, foldersRead: listing.foldersRead, filesRead: 0, filesResumed: 0, filesCached: 0, bytesRead: 0 };
    if (this.cacheDiscarded) stats.cacheDiscarded = this.cacheDiscarded;
    const store = cacheDir && !settled ? new TextStoreWriter(cacheDir, rootKey(this.root), this.text?.store) : undefined;
    // Nothing known of the run: every file is read, and its entry goes to the cache as it comes.
    const cold = cacheDir && store && this.entries.size === 0 ? new ColdRead(cacheDir, store, new EntrySpool(cacheDir, this.root)) : undefined;
    try {
      const before = this.entries.size;
      this.entries = settled ? this.unchanged(listing.files, stats, onProgress) : await this.scanAll(listing.files, stats, signal, onProgress, store, cold);
      // An async function holds what its locals hold across every await (V8 saves them all):
      // the listed files, 5 MB at 100,000 rollouts, went through the join and the save.
      listing.files = [];
      const changed = stats.filesRead + stats.filesResumed > 0 || this.entries.size !== before;
      if (cold) await this.joinSpooled(cold);
      else if (cacheDir && (changed || this.cacheDiscarded)) await this.joinAndSave(cacheDir, store);
      else if (changed || this.cacheDiscarded || (!this.joined && !this.handedOff)) {
        this.joined = joinRollouts(fullEntries(this.entries.values()));
        this.handedOff = false;
      }
    } finally {
      store?.discard();
      await cold?.spool.discard();
    }
    const errors = [...listing.errors, ...[...this.entries.values()].flatMap((e) => e.errors)].sort((a, b) =>
      a.file < b.file ? -1 : a.file > b.file ? 1 : (a.line ?? 0) - (b.line ?? 0),
    );
    // Still handed off: nothing was joined since the caller took the rows.
    if (this.handedOff) return { unchanged: true, root: this.root, errors, stats };
    const index: RolloutIndex = { root: this.root, rollouts: this.joined!, errors, stats, ...(this.text ? { text: this.text } : {}) };
    if (handOff) {
      // The caller has them now; kept is only the text store's name, which the next refresh appends to.
      this.joined = undefined;
      if (this.text) this.text = { store: this.text.store, ranges: new Map() };
      this.handedOff = true;
    }
    return index;
  }

  /**
   * Joins the rows and saves the cache, keeping the full entries: a run being written is
   * re-indexed as it grows, and reading its entries back from the cache cost each re-index of
   * 100,000 rollouts 1.5 s of CPU.
   */
  private async joinAndSave(cacheDir: string, store: TextStoreWriter | undefined): Promise<void> {
    const full = fullEntries(this.entries.values()).sort(byPath);
    const text = store ? { ...store.commit(full), ranges: textRanges(full) } : undefined;
    // The entries now place their texts in the new store, whether or not the cache is saved.
    this.text = text ? { store: join(cacheDir, text.name), ranges: text.ranges } : undefined;
    this.handedOff = false;
    // Rows not saved have no key: a failed save must not name them by the cache before it.
    this.key = undefined;
    this.joined = joinRollouts(full);
    this.key = (await saveCache(cacheDir, this.root, full, full, this.joined, text)).key;
    await removeOtherStores(cacheDir, this.root, text?.name);
    this.cacheDiscarded = undefined;
  }

  /**
   * A cold index's join and save: the entries were written to the spool as they were read, and
   * are read back from it one file at a time as the rows are made, so they never stand beside
   * the rows. Kept are their stat lines; the full entries are read from the cache when a file
   * changes, as after loading the cache. At 100,000 rollouts the entries were 80 MB, held from
   * the first file read to the join.
   */
  private async joinSpooled(cold: ColdRead): Promise<void> {
    const { cacheDir, spool } = cold;
    const spooled = await spool.close();
    const text = { ...cold.store.commitSpool(), ranges: cold.ranges };
    this.text = { store: join(cacheDir, text.name), ranges: text.ranges };
    this.handedOff = false;
    this.key = undefined;
    const lines = [...this.entries.values()].sort(byPath);
    try {
      this.joined = joinReported(cold.reports(), placedFacts(spooledEntries(spooled), this.entries));
      ({ entries: this.cachedEntries, key: this.key } = await saveCache(cacheDir, this.root, lines, spooled, this.joined, text));
    } catch (err) {
      // The entries are not in memory and not in a cache: the next refresh reads the run again.
      this.entries = new Map();
      this.joined = undefined;
      this.text = undefined;
      throw err;
    }
    await removeOtherStores(cacheDir, this.root, text.name);
    this.cacheDiscarded = undefined;
  }

  /** The cache's full entries in place of their stat lines; a cache that no longer verifies is dropped and the run read again. */
  private async readCachedEntries(): Promise<void> {
    const read = this.cachedEntries;
    this.cachedEntries = undefined;
    if (!read) return;
    const result = await read();
    if ('entries' in result) {
      this.entries = result.entries;
      return;
    }
    this.entries = new Map();
    this.joined = undefined;
    this.text = undefined;
    this.key = undefined;
    this.cacheDiscarded = result.discarded;
  }

  /**
   * Every file as the entries hold it: their map stands as it is, and progress is told once. A
   * copy of the map held 9 MB beside the first at 100,000 rollouts, for nothing read.
   */
  private unchanged(files: ListedFile[], stats: IndexStats, onProgress?: (p: IndexProgress) => void): Map<string, FileEntry | CachedFile> {
    stats.filesCached = files.length;
    if (files.length > 0) onProgress?.({ done: files.length, total: files.length, file: files[files.length - 1]!.path });
    return this.entries;
  }

  /** Reads what changed since the last refresh; an unreadable file becomes an entry holding its error. */
  private async scanAll(
    files: ListedFile[],
    stats: IndexStats,
    signal?: AbortSignal,
    onProgress?: (p: IndexProgress) => void,
    store?: TextStoreWriter,
    cold?: ColdRead,
  ): Promise<Map<string, FileEntry | CachedFile>> {
    const next = new Map<string, FileEntry | CachedFile>();
    const text = store ? (t: Parameters<typeof trajectoryText>[0]) => store.append(trajectoryText(t)) : undefined;
    const { importTrajectory } = this.options;
    const readFacts = importTrajectory ? factsThrough(importTrajectory) : summarizeTrajectory;
    let done = 0;
    // Unchanged files are settled here: a promise per file is most of a warm index's CPU.
    const changed = files.filter((file) => {
      const previous = this.entries.get(file.path);
      if (!previous || !isUnchanged(previous, file)) return true;
      next.set(file.path, previous);
      count(stats, 'cached', 0);
      onProgress?.({ done: ++done, total: files.length, file: file.path });
      return false;
    });
    await forEachLimited(changed, this.options.concurrency ?? 4, async (file) => {
      throwIfAborted(signal);
      const previous = this.entries.get(file.path);
      // A changed file's previous entry is a full one: the cache's were read before the scan.
      const scan = await scanFile(this.root, file.path, file, previous && isFull(previous) ? previous : undefined, readFacts, signal, text).catch(
        (err: unknown): FileScan => {
          if (err instanceof CancelledError) throw err;
          return { entry: unreadable(file, err), mode: 'full', bytesRead: 0 };
        },
      );
      next.set(file.path, cold ? await cold.keep(scan.entry) : scan.entry);
      count(stats, scan.mode, scan.bytesRead);
      onProgress?.({ done: ++done, total: files.length, file: file.path });
    });
    return next;
  }
}

/**
 * The stores of this folder the cache no longer names (the one it replaced, one a discarded cache
 * named). A search that opened one reads on from its open file; one that had not yet falls back
 * to reading the files.
 */
async function removeOtherStores(cacheDir: string, root: string, keep: string | undefined): Promise<void> {
  const prefix = `rollouts-${rootKey(root)}.`;
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => n.startsWith(prefix) && n.endsWith('.text') && n !== keep).map((n) => rm(join(cacheDir, n), { force: true })));
}

/** What the stat check and the index's errors need of an entry. */
function statLine(e: FileEntry): CachedFile {
  return { path: e.path, size: e.size, mtimeMs: e.mtimeMs, errors: e.errors.length > 0 ? e.errors : NO_ERRORS };
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);

/**
 * What a cold index keeps of each file it reads, as it reads it: its stat line, its reports
 * (what the join needs of every file before any row) and where its texts lie in the store. The
 * entry itself goes to the spool.
 */
class ColdRead {
  readonly ranges = new Map<string, TextRange>();
  private readonly files: Array<{ path: string } & RunReports> = [];
  private readonly share = stringSharing();

  /** The cache folder the run's entries and texts go to, the store its texts are written to, and the spool its entries are. */
  constructor(
    readonly cacheDir: string,
    readonly store: TextStoreWriter,
    readonly spool: EntrySpool,
  ) {}

  async keep(entry: FileEntry): Promise<CachedFile> {
    // The store is the spool the texts were written to (`TextStoreWriter.commitSpool`).
    if (entry.texts) entry.texts = entry.texts.map(inStore);
    addTextRanges(this.ranges, entry);
    if (entry.evaluations.length > 0 || entry.predictions.length > 0 || entry.branch) {
      shareReportStrings(entry, this.share);
      this.files.push({ path: entry.path, evaluations: entry.evaluations, predictions: entry.predictions, ...(entry.branch ? { branch: entry.branch } : {}) });
    }
    await this.spool.add(entry);
    return statLine(entry);
  }

  /** In path order, as the join of a warm index sees them: which report applies is decided in that order at equal depth. */
  reports(): RunReports[] {
    return this.files.sort(byPath);
  }
}

/**
 * Each trajectory of the spooled entries with its file's path as the listing found it, the
 * string its stat line holds: the spool's parse makes a copy of it per file.
 */
function* placedFacts(entries: Iterable<FileEntry>, listed: ReadonlyMap<string, { path: string }>): Generator<PlacedFacts> {
  for (const e of entries) {
    const path = listed.get(e.path)?.path ?? e.path;
    for (const facts of e.trajectories) yield { path, facts };
  }
}

function isFull(entry: FileEntry | CachedFile): entry is FileEntry {
  return 'trajectories' in entry;
}

function fullEntries(entries: Iterable<FileEntry | CachedFile>): FileEntry[] {
  const full: FileEntry[] = [];
  for (const e of entries) {
    if (!isFull(e)) throw new Error(`internal: the cached entry of ${e.path} was not read before the rows were joined`);
    full.push(e);
  }
  return full;
}

/** Each row's text in the store, by the row's id (as the join names rows: the path, and the line in a JSONL file). */
function textRanges(entries: FileEntry[]): Map<string, TextRange> {
  const ranges = new Map<string, TextRange>();
  for (const e of entries) addTextRanges(ranges, e);
  return ranges;
}

function addTextRanges(ranges: Map<string, TextRange>, e: FileEntry): void {
  for (const [line, offset, length] of e.texts ?? []) ranges.set(line === null ? e.path : `${e.path}:${line}`, [offset, length]);
}

/** One-shot indexing of `root`. */
export async function indexRollouts(root: string, options: IndexOptions = {}): Promise<RolloutIndex> {
  const { signal, onProgress, ...rest } = options;
  return new RolloutIndexer(root, rest).refresh(signal, onProgress);
}

/**
 * Why an index is unusable as a whole, or undefined when something was read: no candidate
 * file at all, or every one of them unreadable.
 */
export function nothingRead(index: RolloutIndex): string | undefined {
  if (index.rollouts.length > 0) return undefined;
  if (index.stats.files === 0 && index.errors.length === 0) return `${index.root}: no .json, .jsonl or .traj files (plain, .gz or .zst) to index`;
  if (index.errors.length > 0) return `${index.root}: nothing could be read: ${index.errors.length} unreadable input(s), 0 rollouts`;
  // Predictions or evaluation reports with no trajectory beside them: nothing to show or grade as a rollout.
  return `${index.root}: 0 rollouts: the ${index.stats.files} file(s) read hold no trajectory (only predictions or evaluation reports)`;
}

function count(stats: IndexStats, mode: ReadMode, bytes: number): void {
  if (mode === 'cached') stats.filesCached++;
  else if (mode === 'resumed') stats.filesResumed++;
  else stats.filesRead++;
  stats.bytesRead += bytes;
}

function unreadable(file: { path: string; size: number; mtimeMs: number }, err: unknown): FileEntry {
  // mtime 0 keeps a failed read from being served from the cache next time.
  return { path: file.path, size: file.size, mtimeMs: 0, trajectories: [], predictions: [], evaluations: [], errors: [indexError(err, file.path)] };
}

async function assertFolder(root: string): Promise<void> {
  const s = await stat(root).catch(() => undefined);
  if (!s?.isDirectory()) throw new InputError(root, undefined, s ? 'not a folder' : 'no such folder');
}

async function forEachLimited<T>(items: T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
