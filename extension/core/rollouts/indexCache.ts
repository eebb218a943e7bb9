import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { FileEntry, TextRange } from './fileEntry';
import type { IndexError, Rollout } from './record';
import { errorText } from '../errors';
import { decodeRows, rowsJson, type RowsSection } from './rowColumns';

/** Bumped whenever what a file entry holds or how the file is laid out changes, so an older cache is dropped, not misread. */
const CACHE_VERSION = 9;

/**
 * The cache is four parts, each a line or lines of JSON, between a header line and a trailer
 * line that gives each part's length and SHA-1:
 *   files    per file its path, size and mtime (the stat check) and its read errors
 *   rows     the rows joined from the entries, by column, repeated strings once
 *   text     where each row's text lies in the run's text store (`textStore.ts`), for search
 *   entries  one line per file entry: read only when something changed and the rows are joined
 *            again, so a warm index of an unchanged run parses files, rows and text alone
 * A part is checked when it is read: the entries part is checked then too, so a cache changed
 * behind the index's back is dropped and the run read again, never trusted. A cache that
 * verifies is the one this code wrote from validated entries, so they are not validated again.
 * Written and read a part at a time: one JSON text of a 100,000-rollout run was a 110 MB string
 * held beside its objects, the largest part of a cold index's peak memory.
 */
const CacheHeaderSchema = z.object({ version: z.literal(CACHE_VERSION), root: z.string() });
const PartSchema = z.object({ bytes: z.number().int().nonnegative(), sha1: z.string() });
const CacheTrailerSchema = z.object({
  files: PartSchema,
  rows: PartSchema,
  text: PartSchema,
  entries: PartSchema.extend({ count: z.number().int().nonnegative() }),
  /** The text store beside the cache, by file name, and its size; absent when the rows have no text. */
  store: z.object({ name: z.string(), bytes: z.number().int().nonnegative() }).optional(),
});
type Part = z.infer<typeof PartSchema>;

/** What the stat check and the index's errors need of a file, without its facts. */
export interface CachedFile {
  path: string;
  size: number;
  mtimeMs: number;
  errors: readonly IndexError[];
}

/**
 * The errors of a file with none, one list for all: most files have none, and an empty list
 * each was 2 MB of a cold index of 100,000 rollouts. Frozen, so a push to it fails loudly.
 */
export const NO_ERRORS: readonly IndexError[] = Object.freeze([]);

export interface RowText {
  /** The text store file, absolute. */
  store: string;
  /** By rollout id. */
  ranges: ReadonlyMap<string, TextRange>;
}

export interface LoadedCache {
  files: Map<string, CachedFile>;
  /** The rows joined from exactly these files; not decoded when the caller holds them (`held`). */
  rollouts?: Rollout[];
  text?: RowText;
  /** Which rows and text places the cache holds (`rowsKey`). */
  key?: string;
  /** The caller holds this cache's rows and text places already: `rollouts` and the text's ranges were not made. */
  held?: boolean;
  /** The full entries, read and checked on demand; undefined when they no longer verify. */
  entries?: () => Promise<{ entries: Map<string, FileEntry> } | { discarded: string }>;
  /** Why the cache on disk was discarded, if it was. */
  discarded?: string;
}

/** One cache file per indexed folder, named after a hash of its absolute path. */
function cacheFile(cacheDir: string, root: string): string {
  return join(cacheDir, `rollouts-${rootKey(root)}.json`);
}

/** Where the stamps of the folders of `root`'s last listing are kept (`fileListing.ts`). */
export function stampsFile(cacheDir: string, root: string): string {
  return join(cacheDir, `rollouts-${rootKey(root)}.folders.json`);
}

/** The part of the cache's and the text store's names that says which folder they index. */
export function rootKey(root: string): string {
  return createHash('sha1').update(root).digest('hex').slice(0, 16);
}

interface FilesSection {
  paths: string[];
  sizes: number[];
  mtimes: number[];
  /** [file index, its errors] for the files with errors. */
  errors: Array<[number, readonly IndexError[]]>;
}

/** Where the rows' texts lie, by row: the row's place in the rows, offset and length, per row with text. */
export type TextSection = { ids: number[]; offsets: number[]; lengths: number[] };

/** The ranges by row, for rows that are stored or sent by their place rather than by id. */
export function textByRow(ranges: ReadonlyMap<string, TextRange>, rollouts: readonly Rollout[]): TextSection {
  const section: TextSection = { ids: [], offsets: [], lengths: [] };
  rollouts.forEach((r, i) => {
    const range = ranges.get(r.id);
    if (!range) return;
    section.ids.push(i);
    section.offsets.push(range[0]);
    section.lengths.push(range[1]);
  });
  return section;
}

/** The ranges keyed by the ids of `rollouts`, the rows `textByRow` was given. */
export function textRangesOf(section: TextSection, rollouts: readonly Rollout[]): Map<string, TextRange> {
  const ranges = new Map<string, TextRange>();
  for (let i = 0; i < section.ids.length; i++) ranges.set(rollouts[section.ids[i]!]!.id, [section.offsets[i]!, section.lengths[i]!]);
  return ranges;
}

const sha1 = (buf: Buffer) => createHash('sha1').update(buf).digest('hex');

/**
 * Names the rows a cache holds and where their texts lie: equal keys, equal rows and text
 * places. A caller that holds the rows of a cache (the index worker's host) passes its key to
 * the next load, which then neither decodes them nor sends them again.
 */
function rowsKey(trailer: { rows: Part; text: Part; store?: { name: string } }): string {
  return `${trailer.rows.sha1}.${trailer.text.sha1}.${trailer.store?.name ?? ''}`;
}

/** The cache of `root`; `held`, the key of rows the caller holds (`LoadedCache.key`), spares decoding them again. */
export async function loadCache(cacheDir: string, root: string, held?: string): Promise<LoadedCache> {
  const file = cacheFile(cacheDir, root);
  if (!(await stat(file).catch(() => undefined))?.isFile()) return { files: new Map() };
  const discard = (why: string): LoadedCache => ({ files: new Map(), discarded: why });
  let read: Awaited<ReturnType<typeof readEager>>;
  try {
    read = await readEager(file);
  } catch (err) {
    return discard(`cache could not be read (${errorText(err)})`);
  }
  const { buf, trailer: trailerValue } = read;
  const headerEnd = buf.indexOf(10);
  let header: unknown;
  try {
    header = JSON.parse(buf.toString('utf8', 0, headerEnd < 0 ? buf.length : headerEnd));
  } catch (err) {
    return discard(`cache is not valid JSON (${errorText(err)})`);
  }
  const h = CacheHeaderSchema.safeParse(header);
  if (!h.success) return discard(`cache does not match version ${CACHE_VERSION}: ${describeIssue(h.error)}`);
  if (h.data.root !== root) return discard(`cache belongs to ${h.data.root}`);
  const t = CacheTrailerSchema.safeParse(trailerValue);
  if (headerEnd < 0 || !t.success) return discard('cache ends without its checksum line (cut short)');
  const trailer = t.data;
  let at = headerEnd + 1;
  const slice = (part: Part) => {
    const piece = buf.subarray(at, at + part.bytes);
    at += part.bytes;
    return piece;
  };
  const parts = { files: slice(trailer.files), rows: slice(trailer.rows), text: slice(trailer.text) };
  const entriesAt = at;
  if (entriesAt !== buf.length || entriesAt + trailer.entries.bytes !== read.trailerStart)
    return discard(`cache parts do not add up to its size (cut short or changed)`);
  for (const name of ['files', 'rows', 'text'] as const)
    if (sha1(parts[name]) !== trailer[name].sha1) return discard('cache entries do not match their checksum');
  const key = rowsKey(trailer);
  const isHeld = key === held;
  let files: FilesSection;
  let rows: RowsSection | undefined;
  let text: TextSection | undefined;
  try {
    files = JSON.parse(parts.files.toString('utf8')) as FilesSection;
    if (!isHeld) {
      rows = JSON.parse(parts.rows.toString('utf8')) as RowsSection;
      text = JSON.parse(parts.text.toString('utf8')) as TextSection;
    }
  } catch (err) {
    return discard(`cache is not valid JSON (${errorText(err)})`);
  }
  const errors = new Map(files.errors);
  const loaded = new Map<string, CachedFile>();
  for (let i = 0; i < files.paths.length; i++) {
    const path = files.paths[i]!;
    loaded.set(path, { path, size: files.sizes[i]!, mtimeMs: files.mtimes[i]!, errors: errors.get(i) ?? NO_ERRORS });
  }
  const rollouts = rows && decodeRows(rows);
  const result: LoadedCache = {
    files: loaded,
    key,
    ...(rollouts ? { rollouts } : { held: true }),
    entries: () => readEntries(file, entriesAt, trailer.entries),
  };
  if (trailer.store !== undefined) {
    const store = join(cacheDir, trailer.store.name);
    const size = (await stat(store).catch(() => undefined))?.size;
    // A store gone or of another size holds other texts than the cache placed: all is read again.
    if (size !== trailer.store.bytes) return discard(`text store ${trailer.store.name} ${size === undefined ? 'is missing' : 'changed size'}`);
    result.text = { store, ranges: rollouts && text ? textRangesOf(text, rollouts) : new Map() };
  }
  return result;
}

/** Bytes read from the end for the trailer line. */
const TAIL_BYTES = 1 << 16;

/**
 * The cache's trailer (undefined when its last line is not JSON) and the bytes before its
 * entries part: the entries are read only when something changed. Without a trailer, the first
 * bytes, so the header can say what the file is.
 */
async function readEager(file: string): Promise<{ buf: Buffer; trailer: unknown; trailerStart: number }> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const readAt = async (from: number, length: number) => {
      const buf = Buffer.alloc(Math.max(0, length));
      const { bytesRead } = await fh.read(buf, 0, buf.length, from);
      return buf.subarray(0, bytesRead);
    };
    const tailFrom = Math.max(0, size - TAIL_BYTES);
    const tail = await readAt(tailFrom, size - tailFrom);
    const lineStart = tail.lastIndexOf(10, tail.length - 2) + 1;
    let trailer: unknown;
    try {
      trailer = tail[tail.length - 1] === 10 && (lineStart > 0 || tailFrom === 0) ? JSON.parse(tail.toString('utf8', lineStart, tail.length - 1)) : undefined;
    } catch {
      trailer = undefined;
    }
    const trailerStart = tailFrom + lineStart;
    const entries = (trailer as { entries?: { bytes?: unknown } } | undefined)?.entries?.bytes;
    const eager = typeof entries === 'number' && entries >= 0 && entries <= trailerStart ? trailerStart - entries : Math.min(size, TAIL_BYTES);
    return { buf: await readAt(0, eager), trailer, trailerStart };
  } finally {
    await fh.close();
  }
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `header.${issue.path.join('.')}: ${issue.message}` : 'header: not an object';
}

/** The entries part, read again from the cache file and checked against the checksum read with the rest. */
async function readEntries(file: string, at: number, part: Part & { count: number }): Promise<{ entries: Map<string, FileEntry> } | { discarded: string }> {
  const buf = Buffer.alloc(part.bytes);
  try {
    const fh = await open(file, 'r');
    try {
      const { bytesRead } = await fh.read(buf, 0, part.bytes, at);
      if (bytesRead !== part.bytes) return { discarded: 'cache was cut short after it was read' };
    } finally {
      await fh.close();
    }
  } catch (err) {
    return { discarded: `cache could not be read again (${errorText(err)})` };
  }
  if (sha1(buf) !== part.sha1) return { discarded: 'cache entries do not match their checksum' };
  const entries = new Map<string, FileEntry>();
  let start = 0;
  for (let i = 0; i < part.count; i++) {
    const end = buf.indexOf(10, start);
    const entry = JSON.parse(buf.toString('utf8', start, end)) as FileEntry;
    entries.set(entry.path, entry);
    start = end + 1;
  }
  return { entries };
}

/** Lines written to the file at once. */
const WRITE_CHUNK = 1 << 20;

/**
 * Writes text to a file part by part, each part's length and SHA-1 counted as it goes. Each
 * piece is encoded into one reused buffer as it is made, so the pieces die young: held as
 * strings until a write, each megabyte outlived the write's await and was moved to the old
 * generation, which a cold index of 100,000 rollouts then grew by 80 MB.
 */
class PartWriter {
  private readonly buf = Buffer.allocUnsafe(WRITE_CHUNK);
  private used = 0;
  private hash = createHash('sha1');
  private bytes = 0;
  /** Bytes written to the file so far, buffered ones included. */
  written = 0;

  constructor(private readonly out: FileHandle) {}

  /** Adds `text` to the part being written; unhashed text (the header, the trailer) is in no part. */
  async put(text: string, hashed = true): Promise<void> {
    const size = Buffer.byteLength(text);
    if (this.used + size > this.buf.length) await this.flush();
    if (size > this.buf.length) {
      const whole = Buffer.from(text);
      if (hashed) this.hash.update(whole);
      await this.writeAll(whole, size);
    } else {
      this.buf.write(text, this.used);
      if (hashed) this.hash.update(this.buf.subarray(this.used, this.used + size));
      this.used += size;
    }
    if (hashed) this.bytes += size;
    this.written += size;
  }

  /** Copies `bytes` bytes of `file` in as a part whose checksum is already known. */
  async copy(file: string, part: Part): Promise<void> {
    await this.flush();
    const from = await open(file, 'r');
    try {
      for (let at = 0; at < part.bytes;) {
        const { bytesRead } = await from.read(this.buf, 0, Math.min(this.buf.length, part.bytes - at), at);
        if (bytesRead === 0) throw new Error(`${file} ended after ${at} of its ${part.bytes} bytes`);
        await this.writeAll(this.buf, bytesRead);
        at += bytesRead;
      }
    } finally {
      await from.close();
    }
    this.written += part.bytes;
  }

  endPart(): Part {
    const part = { bytes: this.bytes, sha1: this.hash.digest('hex') };
    this.hash = createHash('sha1');
    this.bytes = 0;
    return part;
  }

  async flush(): Promise<void> {
    await this.writeAll(this.buf, this.used);
    this.used = 0;
  }

  private async writeAll(data: Buffer, length: number): Promise<void> {
    for (let at = 0; at < length;) at += (await this.out.write(data, at, length - at)).bytesWritten;
  }
}

/** The entries part, written to a file of its own as a cold index reads the run (`EntrySpool`). */
export interface SpooledEntries extends Part {
  file: string;
  count: number;
}

/**
 * The entries part of the cache, written to a temporary file in `cacheDir` entry by entry as a
 * cold index reads them, so the index holds only their stat lines: held until the rows were
 * joined, the entries of 100,000 rollouts were 80 MB of a cold index's peak. The join reads
 * them back one at a time (`spooledEntries`); `saveCache` copies the part in and removes the file.
 */
export class EntrySpool {
  readonly file: string;
  private readonly opened: Promise<{ out: FileHandle; writer: PartWriter }>;
  /** The writes in the order the entries came; a failed one fails every later `add` and `close`. */
  private queue: Promise<unknown>;
  private count = 0;

  constructor(cacheDir: string, root: string) {
    this.file = `${cacheFile(cacheDir, root)}.${process.pid}.${randomBytes(4).toString('hex')}.entries.tmp`;
    this.opened = mkdir(cacheDir, { recursive: true })
      .then(() => open(this.file, 'w'))
      .then((out) => ({ out, writer: new PartWriter(out) }));
    // A file that cannot be made fails the first `add` or `close`, not the process meanwhile.
    this.opened.catch(() => undefined);
    this.queue = this.opened;
  }

  /** Writes `entry` after those added before it; the caller can let the entry go at once. */
  add(entry: FileEntry): Promise<void> {
    const line = JSON.stringify(entry) + '\n';
    this.count++;
    const written = this.queue.then(async () => (await this.opened).writer.put(line));
    this.queue = written;
    return written;
  }

  async close(): Promise<SpooledEntries> {
    await this.queue;
    const { out, writer } = await this.opened;
    await writer.flush();
    await out.close();
    return { file: this.file, count: this.count, ...writer.endPart() };
  }

  /** Removes the file, whatever was written. */
  async discard(): Promise<void> {
    await this.queue.catch(() => undefined);
    const opened = await this.opened.catch(() => undefined);
    await opened?.out.close().catch(() => undefined);
    await rm(this.file, { force: true });
  }
}

/** The entries an `EntrySpool` wrote, read back one at a time, in the order they were added. */
export function* spooledEntries(spooled: SpooledEntries): Generator<FileEntry> {
  const fd = openSync(spooled.file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(WRITE_CHUNK);
    let pending: Buffer[] = [];
    for (let at = 0; at < spooled.bytes;) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, spooled.bytes - at), at);
      if (n === 0) throw new Error(`${spooled.file} ended after ${at} of its ${spooled.bytes} bytes`);
      at += n;
      const data = chunk.subarray(0, n);
      let from = 0;
      for (let nl = data.indexOf(10, from); nl !== -1; nl = data.indexOf(10, from)) {
        const piece = data.subarray(from, nl);
        const line = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        yield JSON.parse(line.toString('utf8')) as FileEntry;
        from = nl + 1;
      }
      // The start of an entry longer than what was read: copied out of the reused buffer.
      if (from < n) pending.push(Buffer.from(data.subarray(from)));
    }
    if (pending.length > 0) throw new Error(`${spooled.file} ends inside an entry`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Written part by part to a temporary file and renamed, so a reader never sees half a cache.
 * `files` are the stat lines of `entries`, in the same order; `entries` are the full entries,
 * or the part an `EntrySpool` wrote of them (copied in, then removed, whether or not the save
 * succeeds). `text` places rows in the text store `name` (a file in `cacheDir` of `bytes`
 * bytes). Returns what reads the entries back from the saved file, as `loadCache` does, and
 * the saved rows' key.
 */
export async function saveCache(
  cacheDir: string,
  root: string,
  files: readonly CachedFile[],
  entries: readonly FileEntry[] | SpooledEntries,
  rollouts: Rollout[],
  text?: { name: string; bytes: number; ranges: ReadonlyMap<string, TextRange> },
): Promise<{ entries: NonNullable<LoadedCache['entries']>; key: string }> {
  const target = cacheFile(cacheDir, root);
  // Not by time: the index worker and its host are one process, and a millisecond is long.
  const temp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let entriesAt = 0;
  let entriesPart: Part & { count: number };
  let key: string;
  try {
    await mkdir(cacheDir, { recursive: true });
    const out = await open(temp, 'w');
    try {
      const writer = new PartWriter(out);
      await writer.put(JSON.stringify({ version: CACHE_VERSION, root }) + '\n', false);
      const section: FilesSection = { paths: [], sizes: [], mtimes: [], errors: [] };
      files.forEach((e, i) => {
        section.paths.push(e.path);
        section.sizes.push(e.size);
        section.mtimes.push(e.mtimeMs);
        if (e.errors.length > 0) section.errors.push([i, e.errors]);
      });
      await writer.put(JSON.stringify(section) + '\n');
      const filesPart = writer.endPart();
      for (const piece of rowsJson(rollouts)) await writer.put(piece);
      await writer.put('\n');
      const rowsPart = writer.endPart();
      const textSection: TextSection = text ? textByRow(text.ranges, rollouts) : { ids: [], offsets: [], lengths: [] };
      await writer.put(JSON.stringify(textSection) + '\n');
      const textPart = writer.endPart();
      entriesAt = writer.written;
      if ('file' in entries) {
        await writer.copy(entries.file, entries);
        entriesPart = { bytes: entries.bytes, sha1: entries.sha1, count: entries.count };
      } else {
        for (const entry of entries) await writer.put(JSON.stringify(entry) + '\n');
        entriesPart = { ...writer.endPart(), count: entries.length };
      }
      const trailer = {
        files: filesPart,
        rows: rowsPart,
        text: textPart,
        entries: entriesPart,
        ...(text ? { store: { name: text.name, bytes: text.bytes } } : {}),
      };
      key = rowsKey(trailer);
      await writer.put(JSON.stringify(trailer) + '\n', false);
      await writer.flush();
    } finally {
      await out.close();
    }
    await rename(temp, target);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  } finally {
    if ('file' in entries) await rm(entries.file, { force: true });
  }
  return { entries: () => readEntries(target, entriesAt, entriesPart), key };
}
