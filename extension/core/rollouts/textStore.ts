import { closeSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { throwIfAborted } from '../errors';
import type { Trajectory } from '../trajectory/model';
import type { FileEntry, TextRange } from './fileEntry';
import type { Rollout } from './record';
import type { RowText } from './indexCache';

/**
 * The run's text store: what full-text search reads instead of every rollout's file. Per
 * trajectory, the texts search looks in (each step's thought, raw action and observation, in
 * step order), lower-cased as search compares them, UTF-8, a 0xFF byte between two texts. No
 * UTF-8 character holds 0xFF, so a match can never span two texts, as search defines a match;
 * a needle's UTF-8 bytes are found in a text's bytes exactly when the needle is in the text
 * (for a needle that is well-formed UTF-16 and holds no U+FFFD, which a lone surrogate becomes).
 * The index writes it beside the cache as it reads the run; a store is never changed once the
 * cache names it: a re-index with changes writes a new one (`TextStoreWriter`), so a search that
 * opened the old one reads what it expected.
 */
const SEPARATOR = 0xff;

/**
 * What a trajectory contributes to the store: its texts lower-cased and joined by NUL, which
 * the writer turns into 0xFF as it encodes them; the bytes themselves when a text holds a NUL
 * of its own.
 */
export function trajectoryText(t: Pick<Trajectory, 'steps'>): string | Buffer {
  const texts: string[] = [];
  for (const s of t.steps) texts.push(s.thought, s.action.raw, s.observation);
  // NUL is neither cased nor case-ignorable, so it bounds a final sigma's context as the end
  // of a text does: lower-casing the joined texts is lower-casing each alone.
  if (!texts.some((x) => x.includes('\u0000'))) return texts.join('\u0000').toLowerCase();
  const parts: Buffer[] = [];
  texts.forEach((x, i) => {
    if (i > 0) parts.push(Buffer.of(SEPARATOR));
    parts.push(Buffer.from(x.toLowerCase(), 'utf8'));
  });
  return Buffer.concat(parts);
}

/** NUL bytes, written only as separators, made 0xFF. */
function separated(buf: Buffer): Buffer {
  for (let at = buf.indexOf(0); at >= 0; at = buf.indexOf(0, at + 1)) buf[at] = SEPARATOR;
  return buf;
}

/** Bytes gathered before a write. */
const FLUSH_BYTES = 1 << 20;

/**
 * A new store being written. The texts this refresh reads go to a spool as they come (their
 * ranges marked as the spool's: offset -1 - spool offset); `commit` writes the store, file by
 * file, from the texts the entries keep of the store it replaces and the spool's, so a store
 * holds only live texts however often a run rewrites its files. With nothing kept from an older
 * store the spool is the store. `discard` removes what is left.
 */
export class TextStoreWriter {
  private readonly spool: string;
  private readonly fd: number;
  private closed = false;
  private size = 0;
  /**
   * Texts are encoded into this buffer as they come and written when it fills: strings held
   * until a write outlived the next young-generation collections and were moved to the old
   * generation, the whole run's text in garbage there before the writes freed it.
   */
  private readonly buffer = Buffer.allocUnsafe(FLUSH_BYTES);
  private used = 0;

  /** `previous`: the store the cache named, whose ranges the unchanged entries keep. */
  constructor(
    private readonly cacheDir: string,
    private readonly key: string,
    private readonly previous: string | undefined,
  ) {
    mkdirSync(cacheDir, { recursive: true });
    this.spool = this.tempName();
    this.fd = openSync(this.spool, 'w');
  }

  private tempName(): string {
    return join(this.cacheDir, `rollouts-${this.key}.${process.pid}.${randomBytes(4).toString('hex')}.text.tmp`);
  }

  /** Spools a trajectory's text (`trajectoryText`); where it lies, as a spool range. */
  append(text: string | Buffer): TextRange {
    const length = typeof text === 'string' ? Buffer.byteLength(text, 'utf8') : text.length;
    const range: TextRange = [-1 - this.size, length];
    this.size += length;
    if (this.used + length > this.buffer.length) this.flush();
    if (length > this.buffer.length) this.writeAll(typeof text === 'string' ? separated(Buffer.from(text, 'utf8')) : text);
    else if (typeof text === 'string') {
      this.buffer.write(text, this.used, 'utf8');
      separated(this.buffer.subarray(this.used, this.used + length));
      this.used += length;
    } else {
      text.copy(this.buffer, this.used);
      this.used += length;
    }
    return range;
  }

  private flush(): void {
    this.writeAll(this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(data: Buffer): void {
    for (let at = 0; at < data.length;) at += writeSync(this.fd, data, at);
  }

  /**
   * Writes and names the store, and places each entry's texts in it (the entries' `texts`
   * replaced): its file name in the cache folder and its size. A text of the older store that
   * can no longer be read is dropped; search reads that rollout's file instead.
   */
  commit(entries: readonly FileEntry[]): { name: string; bytes: number } {
    const kept = entries.some((e) => e.texts?.some(([, offset]) => offset >= 0));
    if (!kept) {
      for (const e of entries) if (e.texts) e.texts = e.texts.map(inStore);
      return this.commitSpool();
    }
    const { name, target } = this.close();
    const temp = this.tempName();
    const out = openSync(temp, 'w');
    const spool = openSync(this.spool, 'r');
    const older = this.previous ? tryOpen(this.previous) : undefined;
    const placed = new Map<FileEntry, Array<[number | null, number, number]>>();
    let size = 0;
    let buf = Buffer.alloc(1 << 16);
    try {
      for (const e of entries) {
        if (!e.texts) continue;
        const texts: Array<[number | null, number, number]> = [];
        for (const [line, offset, length] of e.texts) {
          const from = offset >= 0 ? older : spool;
          if (from === undefined) continue;
          if (buf.length < length) buf = Buffer.alloc(length);
          if (length > 0 && readSync(from, buf, 0, length, offset >= 0 ? offset : -1 - offset) !== length) {
            if (from === spool) throw new Error(`the text spool ${this.spool} was cut short`);
            continue;
          }
          for (let at = 0; at < length;) at += writeSync(out, buf, at, length - at);
          texts.push([line, size, length]);
          size += length;
        }
        placed.set(e, texts);
      }
    } finally {
      closeSync(out);
      closeSync(spool);
      if (older !== undefined) closeSync(older);
    }
    renameSync(temp, target);
    rmSync(this.spool, { force: true });
    for (const [e, texts] of placed) e.texts = texts;
    return { name, bytes: size };
  }

  /**
   * The spool as the store, when nothing is kept from an older one (a cold index): each text is
   * where `inStore` places its spool range.
   */
  commitSpool(): { name: string; bytes: number } {
    const { name, target } = this.close();
    renameSync(this.spool, target);
    return { name, bytes: this.size };
  }

  /** Closes the spool and names the store. */
  private close(): { name: string; target: string } {
    this.flush();
    closeSync(this.fd);
    this.closed = true;
    const name = `rollouts-${this.key}.${Date.now().toString(36)}.${randomBytes(4).toString('hex')}.text`;
    return { name, target: join(this.cacheDir, name) };
  }

  discard(): void {
    if (!this.closed) closeSync(this.fd);
    this.closed = true;
    rmSync(this.spool, { force: true });
  }
}

/** A text's place in the store that `commitSpool` makes of the spool: its spool range. */
export function inStore([line, offset, length]: [number | null, number, number]): [number | null, number, number] {
  return [line, -1 - offset, length];
}

function tryOpen(file: string): number | undefined {
  try {
    return openSync(file, 'r');
  } catch {
    return undefined;
  }
}

/** Whether the store's bytes answer `needle` exactly (see the comment on the store). */
export function storeAnswers(needle: string): boolean {
  return !needle.includes('\uFFFD') && Buffer.from(needle, 'utf8').toString('utf8') === needle;
}

/** Bytes read at once; ranges closer than GAP are read together. */
const READ_BYTES = 8 << 20;
const GAP = 64 << 10;

/**
 * The ids of `rollouts` whose text holds `needle` (lower case, `storeAnswers(needle)`), read
 * from the store in file order; `missing` lists the rollouts the store has no text for (a file
 * read without a store), which the caller reads itself. Throws when the store cannot be read.
 */
export async function matchInStore(
  text: RowText,
  rollouts: readonly Rollout[],
  needle: string,
  signal?: AbortSignal,
): Promise<{ matches: Set<string>; missing: Rollout[] }> {
  const wanted: Array<{ id: string; offset: number; length: number }> = [];
  const missing: Rollout[] = [];
  for (const r of rollouts) {
    const range = text.ranges.get(r.id);
    if (range) wanted.push({ id: r.id, offset: range[0], length: range[1] });
    else missing.push(r);
  }
  wanted.sort((a, b) => a.offset - b.offset);
  const pattern = Buffer.from(needle, 'utf8');
  const matches = new Set<string>();
  const fh = await open(text.store, 'r');
  try {
    let buf = Buffer.alloc(0);
    for (let i = 0; i < wanted.length;) {
      throwIfAborted(signal);
      // One read for the ranges from i on that lie close together, up to READ_BYTES.
      const from = wanted[i]!.offset;
      let to = from + wanted[i]!.length;
      let j = i + 1;
      while (j < wanted.length && wanted[j]!.offset - to < GAP && wanted[j]!.offset + wanted[j]!.length - from <= READ_BYTES) {
        to = Math.max(to, wanted[j]!.offset + wanted[j]!.length);
        j++;
      }
      if (buf.length < to - from) buf = Buffer.alloc(Math.max(to - from, READ_BYTES));
      const { bytesRead } = await fh.read(buf, 0, to - from, from);
      if (bytesRead !== to - from) throw new Error(`the text store ${text.store} is shorter than its index says`);
      for (; i < j; i++) {
        const w = wanted[i]!;
        if (buf.subarray(w.offset - from, w.offset - from + w.length).indexOf(pattern) >= 0) matches.add(w.id);
      }
    }
  } finally {
    await fh.close();
  }
  return { matches, missing };
}
