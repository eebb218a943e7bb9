import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Dirent, type Stats } from 'node:fs';
import { dirname, sep } from 'node:path';
import { InputError, throwIfAborted } from '../errors';
import { fsInputError } from '../input/inputSource';
import { recordingOfBranchFolder } from './branchFolderName';
import { INDEX_FILE } from './branchIndex';
import { indexError } from './fileEntry';
import type { IndexError } from './record';

/** Trajectory, prediction and report files, plain or gzip / zstd compressed. */
const INDEXED_FILE = /\.(json|jsonl|traj)(\.gz|\.zst)?$/i;

export interface ListedFile {
  path: string;
  size: number;
  mtimeMs: number;
}

export interface Listing {
  /** Relative, forward slashes, sorted. */
  files: ListedFile[];
  errors: IndexError[];
  /** Folders whose entries were read; the others were known unchanged from their stamps. */
  foldersRead: number;
}

export interface ListOptions {
  /** A folder not to list (the cache folder, when it lies inside the run). */
  skip?: string;
  signal?: AbortSignal;
  /**
   * Where the folders' stamps of the last listing are kept (in the cache folder). A folder whose
   * modification and change times are those stamped is not read again: its entries are the ones
   * listed then, as git's untracked cache trusts a folder's times. Reading 100,000 folders was
   * most of a warm index of 100,000 rollouts, twice the time of a stat of each.
   */
  stampsFile?: string;
}

/** Folders listed between two yields to the event loop: about a millisecond of synchronous calls. */
const FOLDERS_PER_TURN = 64;

/**
 * A folder's times are trusted only when they are older than the listing by more than a
 * file system's clock step (2 s on the coarsest in use): an entry made after the folder was read,
 * in the same step as the change before, would leave the times as they were.
 */
const RACY_MS = 2000;

/** 2: a recording's branch run is listed (its index alone); stamps before left its folder out. */
const STAMPS_VERSION = 2;

/**
 * The folders as a listing saw them, by column (a row per folder was twice the memory and three
 * times the parse of 100,000 folders): each folder's name, its parent's place (folders come after
 * their parents; the root is first, named ''), its times as stat gave them before its entries
 * were read (null when they cannot be trusted: too recent, or an entry could not be listed), and
 * the indexed files in it, joined by '/' (which no file name holds).
 */
interface StampColumns {
  names: string[];
  parents: number[];
  mtimes: Array<number | null>;
  ctimes: Array<number | null>;
  files: string[];
}

interface Stamps extends StampColumns {
  /** Each folder's children, by place: `childList[childStart[i]]` up to `childStart[i + 1]`. */
  childStart: Int32Array;
  childList: Int32Array;
  /** Each folder's place by its path relative to the root, made when a folder read anew has subfolders. */
  byPath?: Map<string, number>;
  text: string;
}

/** A folder to list: where it is, its place among the new stamps' folders and, when known, among the last. */
interface Pending {
  abs: string;
  rel: string;
  name: string;
  parent: number;
  known: number | undefined;
  /**
   * A recording's branch run (`RECORDING.branches` beside it): its index alone is listed, for the
   * recording's critical step; its continuations are that run's, not this folder's rollouts.
   */
  branchRun?: boolean;
}

/**
 * The trajectory, prediction and report files under `root`, with what could not be listed. With
 * `stampsFile`, folders unchanged since the last listing are not read, and the stamps are kept
 * for the next; a symbolic link anywhere in the run turns stamps off (a link's target changes
 * without any folder of the run changing). Synchronous readdir and stat, yielding every few
 * folders: on a 717-file run in 710 folders, this took a warm index from 39 to 18 ms of CPU
 * against the promise versions of the same calls.
 */
export async function listFiles(root: string, options: ListOptions = {}): Promise<Listing> {
  const { skip, signal, stampsFile } = options;
  const previous = stampsFile ? readStamps(stampsFile, root) : undefined;
  // Which stamps are recent enough to distrust is decided against when the listing began.
  const startedAt = Date.now();
  const files: ListedFile[] = [];
  const errors: IndexError[] = [];
  const stamps: StampColumns = { names: [], parents: [], mtimes: [], ctimes: [], files: [] };
  let foldersRead = 0;
  let linked = false;
  // Each folder with its path relative to root: path.relative and join per file cost a warm
  // index of 100,000 rollouts a fifth of its time.
  const folders: Pending[] = [{ abs: root, rel: '', name: '', parent: -1, known: previous ? 0 : undefined }];
  // Symlinked folders are followed once each: a link back up the tree is listed, not walked forever.
  const seen = new Set<string>([realOrSelf(root)]);
  for (let turn = 0; folders.length > 0; turn++) {
    if (turn % FOLDERS_PER_TURN === FOLDERS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    const dir = folders.pop()!;
    const here = stamps.names.length;
    const base = dir.abs.endsWith(sep) ? dir.abs : dir.abs + sep;
    // Stat before reading: an entry made after the read then moves the times away from the stamp.
    const times = stampsFile ? folderTimes(dir.abs) : undefined;
    const listed = previous && dir.known !== undefined && times ? unchangedFolder(previous, dir.known, times, base, dir.rel) : undefined;
    if (listed) {
      const known = dir.known!;
      // Pushed last to first, so they are listed, and stamped, in the order they were last time.
      for (let c = previous!.childStart[known + 1]! - 1; c >= previous!.childStart[known]!; c--) {
        const child = previous!.childList[c]!;
        const name = previous!.names[child]!;
        seen.add(base + name);
        // The folder's entries are as they were: its recording is still beside it.
        const recording = recordingOfBranchFolder(name);
        const branchRun = recording !== undefined && existsSync(base + recording);
        folders.push({ abs: base + name, rel: childPath(dir.rel, name), name, parent: here, known: child, ...(branchRun ? { branchRun } : {}) });
      }
      for (const file of listed) files.push(file);
      pushStamp(stamps, dir, times!.mtimeMs, times!.ctimeMs, previous!.files[known]!);
      continue;
    }
    foldersRead++;
    const errorsBefore = errors.length;
    const names: string[] = [];
    let items: Dirent[];
    try {
      items = readdirSync(dir.abs, { withFileTypes: true });
    } catch (err) {
      errors.push(indexError(fsInputError(dir.rel || '.', err), dir.rel || '.'));
      items = [];
    }
    const subfolder = (abs: string, rel: string, name: string, branchRun = false) =>
      folders.push({ abs, rel, name, parent: here, known: previous && !linked ? placeOf(previous, rel) : undefined, ...(branchRun ? { branchRun } : {}) });
    const entryNames = new Set(items.map((item) => item.name));
    for (const item of items) {
      const abs = base + item.name;
      if (item.name.startsWith('.') || item.name === 'node_modules' || abs === skip) continue;
      // In a branch run's folder only its index counts (`Pending.branchRun`).
      if (dir.branchRun && (item.name !== INDEX_FILE || item.isDirectory())) continue;
      const path = childPath(dir.rel, item.name);
      const branched = item.isDirectory() ? recordingOfBranchFolder(item.name) : undefined;
      if (branched !== undefined && entryNames.has(branched)) {
        seen.add(abs);
        subfolder(abs, path, item.name, true);
        continue;
      }
      // The entry's own type settles a plain folder, and a file the index does not read, without
      // a stat: half the calls of listing 100,000 rollouts in their own folders.
      if (item.isDirectory()) {
        seen.add(abs);
        subfolder(abs, path, item.name);
        continue;
      }
      if (item.isSymbolicLink()) linked = true;
      else if (!INDEXED_FILE.test(item.name)) continue;
      let s: Stats;
      try {
        s = statSync(abs);
      } catch (err) {
        // A broken link or a link loop: listed, never silently dropped.
        errors.push(
          indexError(
            item.isSymbolicLink()
              ? new InputError(path, undefined, `symbolic link to a path that cannot be read (${describeLinkError(err)})`)
              : fsInputError(path, err),
            path,
          ),
        );
        continue;
      }
      if (s.isDirectory()) {
        const real = item.isSymbolicLink() ? realOrSelf(abs) : abs;
        if (item.isSymbolicLink() && seen.has(real)) {
          errors.push({ file: path, message: 'symbolic link to a folder already indexed (a link loop or a second path to it): not followed' });
          continue;
        }
        seen.add(real);
        subfolder(abs, path, item.name);
        continue;
      }
      if (!INDEXED_FILE.test(item.name)) continue;
      if (!s.isFile()) {
        errors.push({ file: path, message: 'not a regular file (a pipe, socket or device): skipped' });
        continue;
      }
      files.push({ path, size: s.size, mtimeMs: s.mtimeMs });
      names.push(item.name);
    }
    // A folder with an entry that could not be listed is read each time, so its errors are.
    const trusted = times !== undefined && errors.length === errorsBefore && Math.max(times.mtimeMs, times.ctimeMs) < startedAt - RACY_MS;
    if (stampsFile) pushStamp(stamps, dir, trusted ? times.mtimeMs : null, trusted ? times.ctimeMs : null, names.join('/'));
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  if (stampsFile) keepStamps(stampsFile, root, linked ? undefined : stamps, previous, foldersRead);
  return { files, errors, foldersRead };
}

/** An entry's path relative to the root, from its folder's ('' for the root). */
function childPath(rel: string, name: string): string {
  return rel === '' ? name : `${rel}/${name}`;
}

function pushStamp(stamps: StampColumns, dir: Pending, mtimeMs: number | null, ctimeMs: number | null, files: string): void {
  stamps.names.push(dir.name);
  stamps.parents.push(dir.parent);
  stamps.mtimes.push(mtimeMs);
  stamps.ctimes.push(ctimeMs);
  stamps.files.push(files);
}

/** A folder's times, or undefined when it cannot be statted (the read that follows says why). */
function folderTimes(abs: string): { mtimeMs: number; ctimeMs: number } | undefined {
  try {
    const s = statSync(abs, { throwIfNoEntry: false });
    return s?.isDirectory() ? { mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The files of a folder whose times are its stamp's, statted again (a file's content changes
 * without its folder's times); undefined when the stamp does not hold or a file is gone.
 */
function unchangedFolder(previous: Stamps, known: number, times: { mtimeMs: number; ctimeMs: number }, base: string, rel: string): ListedFile[] | undefined {
  if (previous.mtimes[known] !== times.mtimeMs || previous.ctimes[known] !== times.ctimeMs) return undefined;
  const names = previous.files[known]!;
  if (names === '') return [];
  const listed: ListedFile[] = [];
  for (const name of names.split('/')) {
    let s: Stats | undefined;
    try {
      s = statSync(base + name, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!s?.isFile()) return undefined;
    listed.push({ path: childPath(rel, name), size: s.size, mtimeMs: s.mtimeMs });
  }
  return listed;
}

/** The last listing's place of the folder at `rel`, if it had one. */
function placeOf(previous: Stamps, rel: string): number | undefined {
  if (!previous.byPath) {
    const paths: string[] = [];
    previous.byPath = new Map();
    for (let i = 0; i < previous.names.length; i++) {
      const parent = previous.parents[i]!;
      const path = i === 0 ? '' : childPath(paths[parent]!, previous.names[i]!);
      paths.push(path);
      previous.byPath.set(path, i);
    }
  }
  return previous.byPath.get(rel);
}

/** The stamps of `root`'s last listing, or undefined when there are none or they do not read as stamps. */
function readStamps(file: string, root: string): Stamps | undefined {
  let text: string;
  let parsed: unknown;
  try {
    text = readFileSync(file, 'utf8');
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const head = parsed as { version?: unknown; root?: unknown } & { [K in keyof StampColumns]?: unknown };
  if (head?.version !== STAMPS_VERSION || head.root !== root) return undefined;
  const { names, parents, mtimes, ctimes, files } = head;
  if (!Array.isArray(names) || names.length === 0) return undefined;
  const n = names.length;
  if (![parents, mtimes, ctimes, files].every((column) => Array.isArray(column) && column.length === n)) return undefined;
  const columns = head as StampColumns;
  // A plain name: stamps never name what a listing skips, nor reach outside the run.
  const plain = (name: unknown) => typeof name === 'string' && name !== '' && !name.startsWith('.') && !name.includes('/') && !name.includes('\0');
  const time = (t: unknown) => t === null || typeof t === 'number';
  const childCount = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const parent = columns.parents[i];
    // The root first, each other folder a named child of one before it.
    if (i === 0 ? parent !== -1 || columns.names[0] !== '' : !Number.isInteger(parent) || parent! < 0 || parent! >= i || !plain(columns.names[i]))
      return undefined;
    if (!time(columns.mtimes[i]) || !time(columns.ctimes[i]) || typeof columns.files[i] !== 'string') return undefined;
    if (columns.files[i] !== '' && !columns.files[i]!.split('/').every(plain)) return undefined;
    if (i > 0) childCount[parent! + 1]!++;
  }
  // Each folder's children, in place order, as one list.
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i]! + childCount[i + 1]!;
  const childList = new Int32Array(Math.max(n - 1, 0));
  const next = childStart.slice(0, n);
  for (let i = 1; i < n; i++) childList[next[columns.parents[i]!]!++] = i;
  return { names: columns.names, parents: columns.parents, mtimes: columns.mtimes, ctimes: columns.ctimes, files: columns.files, childStart, childList, text };
}

/** Writes the stamps when they changed (whole, or not at all); with none to keep, removes the old. */
function keepStamps(file: string, root: string, stamps: StampColumns | undefined, previous: Stamps | undefined, foldersRead: number): void {
  try {
    if (!stamps) {
      if (previous) rmSync(file, { force: true });
      return;
    }
    if (previous && foldersRead === 0) return;
    const text = JSON.stringify({ version: STAMPS_VERSION, root, ...stamps });
    if (text === previous?.text) return;
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    // A cold index lists the run before it writes anything to the cache folder.
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(temp, text);
      renameSync(temp, file);
    } finally {
      rmSync(temp, { force: true });
    }
  } catch {
    // Stamps only spare reads: a cache folder that cannot take them costs the next listing its reads.
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function describeLinkError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'its target does not exist' : code === 'ELOOP' ? 'a link loop' : (code ?? String(err));
}
