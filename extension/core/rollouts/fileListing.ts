import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Dirent, type Stats } from 'node:fs';
import { sep } from 'node:path';
import { InputError, throwIfAborted } from '../errors';
import { fsInputError } from '../input/inputSource';
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
  /** @internal When the listing began, as Date.now() gives it (the default): which stamps are recent enough to distrust. */
  startedAt?: number;
}

/** Folders listed between two yields to the event loop: about a millisecond of synchronous calls. */
const FOLDERS_PER_TURN = 64;

/**
 * A folder's times are trusted only when they are older than the listing by more than a
 * file system's clock step (2 s on the coarsest in use): an entry made after the folder was read,
 * in the same step as the change before, would leave the times as they were.
 */
const RACY_MS = 2000;

const STAMPS_VERSION = 1;

/**
 * A folder as a listing saw it: its name, its parent's place in the list (folders come after
 * their parents), its times as stat gave them before its entries were read (null when they
 * cannot be trusted: too recent, or the folder had an entry that could not be listed), and the
 * indexed files in it.
 */
type Stamp = [name: string, parent: number, mtimeMs: number | null, ctimeMs: number | null, files: string[]];

interface Stamps {
  stamps: Stamp[];
  /** Each folder's place by its path relative to the root ('' for the root). */
  byPath: Map<string, number>;
  children: number[][];
  text: string;
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
  const startedAt = options.startedAt ?? Date.now();
  const files: ListedFile[] = [];
  const errors: IndexError[] = [];
  const stamps: Stamp[] = [];
  let foldersRead = 0;
  let linked = false;
  // Each folder with its path relative to root: path.relative and join per file cost a warm
  // index of 100,000 rollouts a fifth of its time.
  const folders: Array<{ abs: string; rel: string; name: string; parent: number }> = [{ abs: root, rel: '', name: '', parent: -1 }];
  // Symlinked folders are followed once each: a link back up the tree is listed, not walked forever.
  const seen = new Set<string>([realOrSelf(root)]);
  for (let turn = 0; folders.length > 0; turn++) {
    if (turn % FOLDERS_PER_TURN === FOLDERS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    throwIfAborted(signal);
    const dir = folders.pop()!;
    const here = stamps.length;
    const base = dir.abs.endsWith(sep) ? dir.abs : dir.abs + sep;
    // Stat before reading: an entry made after the read then moves the times away from the stamp.
    const times = stampsFile ? folderTimes(dir.abs) : undefined;
    const known = previous?.byPath.get(dir.rel);
    const listed = known !== undefined && times ? unchangedFolder(previous!, known, times, base, dir.rel) : undefined;
    if (listed) {
      for (const child of previous!.children[known!]!) {
        const name = previous!.stamps[child]![0];
        seen.add(base + name);
        folders.push({ abs: base + name, rel: dir.rel === '' ? name : `${dir.rel}/${name}`, name, parent: here });
      }
      files.push(...listed);
      stamps.push([dir.name, dir.parent, times!.mtimeMs, times!.ctimeMs, previous!.stamps[known!]![4]]);
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
    for (const item of items) {
      const abs = base + item.name;
      if (item.name.startsWith('.') || item.name === 'node_modules' || abs === skip) continue;
      const path = dir.rel === '' ? item.name : `${dir.rel}/${item.name}`;
      // The entry's own type settles a plain folder, and a file the index does not read, without
      // a stat: half the calls of listing 100,000 rollouts in their own folders.
      if (item.isDirectory()) {
        seen.add(abs);
        folders.push({ abs, rel: path, name: item.name, parent: here });
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
        folders.push({ abs, rel: path, name: item.name, parent: here });
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
    // A folder with an entry that could not be listed is read again each time, so its errors are.
    const trusted = times !== undefined && errors.length === errorsBefore && Math.max(times.mtimeMs, times.ctimeMs) < startedAt - RACY_MS;
    stamps.push([dir.name, dir.parent, trusted ? times.mtimeMs : null, trusted ? times.ctimeMs : null, names]);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  if (stampsFile) keepStamps(stampsFile, root, linked ? undefined : stamps, previous, foldersRead);
  return { files, errors, foldersRead };
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
  const [, , mtimeMs, ctimeMs, names] = previous.stamps[known]!;
  if (mtimeMs !== times.mtimeMs || ctimeMs !== times.ctimeMs) return undefined;
  const listed: ListedFile[] = [];
  for (const name of names) {
    let s: Stats | undefined;
    try {
      s = statSync(base + name, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (!s?.isFile()) return undefined;
    listed.push({ path: rel === '' ? name : `${rel}/${name}`, size: s.size, mtimeMs: s.mtimeMs });
  }
  return listed;
}

/** The stamps of `root`'s last listing, or undefined when there are none or they do not read as stamps. */
function readStamps(file: string, root: string): Stamps | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const head = parsed as { version?: unknown; root?: unknown; folders?: unknown };
  if (head?.version !== STAMPS_VERSION || head.root !== root || !Array.isArray(head.folders) || head.folders.length === 0) return undefined;
  const stamps = head.folders as unknown[];
  const byPath = new Map<string, number>();
  const paths: string[] = [];
  const children: number[][] = [];
  const time = (t: unknown) => t === null || typeof t === 'number';
  for (let i = 0; i < stamps.length; i++) {
    const s = stamps[i];
    if (!Array.isArray(s) || s.length !== 5) return undefined;
    const [name, parent, mtimeMs, ctimeMs, names] = s as unknown[];
    if (typeof name !== 'string' || typeof parent !== 'number' || !time(mtimeMs) || !time(ctimeMs) || !Array.isArray(names)) return undefined;
    if (!names.every((n) => typeof n === 'string' && n !== '' && !n.includes('/'))) return undefined;
    // The root first, each other folder a named child of one before it.
    if (i === 0 ? parent !== -1 || name !== '' : !Number.isInteger(parent) || parent < 0 || parent >= i || name === '' || name.includes('/')) return undefined;
    const path = i === 0 ? '' : paths[parent] === '' ? name : `${paths[parent]}/${name}`;
    paths.push(path);
    byPath.set(path, i);
    children.push([]);
    if (i > 0) children[parent]!.push(i);
  }
  return { stamps: stamps as Stamp[], byPath, children, text };
}

/** Writes the stamps when they changed (whole, or not at all); with none to keep, removes the old. */
function keepStamps(file: string, root: string, stamps: Stamp[] | undefined, previous: Stamps | undefined, foldersRead: number): void {
  try {
    if (!stamps) {
      if (previous) rmSync(file, { force: true });
      return;
    }
    if (previous && foldersRead === 0) return;
    const text = JSON.stringify({ version: STAMPS_VERSION, root, folders: stamps });
    if (text === previous?.text) return;
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
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
