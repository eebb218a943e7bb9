import { closeSync, copyFileSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { throwIfAborted } from '../errors';
import type { Trajectory } from '../trajectory/model';
import type { Rollout } from './record';
import type { RowText, TextRange } from './indexCache';

/**
 * The run's text store: what full-text search reads instead of every rollout's file. Per
 * trajectory, the texts search looks in (each step's thought, raw action and observation, in
 * step order), lower-cased as search compares them, UTF-8, a 0xFF byte between two texts. No
 * UTF-8 character holds 0xFF, so a match can never span two texts, as search defines a match;
 * a needle's UTF-8 bytes are found in a text's bytes exactly when the needle is in the text
 * (for a needle that is well-formed UTF-16 and holds no U+FFFD, which a lone surrogate becomes).
 * The index writes it beside the cache as it reads the run; a store is never changed once the
 * cache names it: a re-index with changes writes a new one (the old texts copied, the new
 * appended), so a search that opened the old one reads what it expected.
 */
const SEPARATOR = 0xff;

/** The bytes a trajectory contributes to the store. */
export function trajectoryText(t: Pick<Trajectory, 'steps'>): Buffer {
  const texts: string[] = [];
  for (const s of t.steps) texts.push(s.thought, s.action.raw, s.observation);
  if (!texts.some((x) => x.includes('\u0000'))) {
    // One lower-casing and one encode for the whole trajectory, its NUL separators turned into
    // 0xFF afterwards. NUL is neither cased nor case-ignorable, so it bounds a final sigma's
    // context as the end of a text does: the same as lower-casing each text alone.
    const buf = Buffer.from(texts.join('\u0000').toLowerCase(), 'utf8');
    for (let at = buf.indexOf(0); at >= 0; at = buf.indexOf(0, at + 1)) buf[at] = SEPARATOR;
    return buf;
  }
  const parts: Buffer[] = [];
  texts.forEach((x, i) => {
    if (i > 0) parts.push(Buffer.of(SEPARATOR));
    parts.push(Buffer.from(x.toLowerCase(), 'utf8'));
  });
  return Buffer.concat(parts);
}

/** Bytes gathered before a write. */
const FLUSH_BYTES = 1 << 20;

/**
 * A new store being written: the texts of the store it replaces (copied whole, so their ranges
 * still hold), then the texts read by this refresh. `commit` names it; `discard` removes it.
 */
export class TextStoreWriter {
  private readonly temp: string;
  private readonly fd: number;
  private size: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `previous`: the store the cache named, whose ranges the unchanged entries keep. */
  constructor(
    private readonly cacheDir: string,
    private readonly key: string,
    previous: string | undefined,
  ) {
    mkdirSync(cacheDir, { recursive: true });
    this.temp = join(cacheDir, `rollouts-${key}.${process.pid}.${randomBytes(4).toString('hex')}.text.tmp`);
    if (previous) copyFileSync(previous, this.temp);
    this.fd = openSync(this.temp, previous ? 'a' : 'w');
    this.size = previous ? statSync(this.temp).size : 0;
  }

  /** Appends a trajectory's text; where it lies. */
  append(bytes: Buffer): TextRange {
    const range: TextRange = [this.size, bytes.length];
    this.size += bytes.length;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    return range;
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    for (let at = 0; at < data.length;) at += writeSync(this.fd, data, at);
  }

  /** Closes and names the store: its file name in the cache folder and its size. */
  commit(): { name: string; bytes: number } {
    this.flush();
    closeSync(this.fd);
    const name = `rollouts-${this.key}.${Date.now().toString(36)}.${randomBytes(4).toString('hex')}.text`;
    renameSync(this.temp, join(this.cacheDir, name));
    return { name, bytes: this.size };
  }

  discard(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed by commit
    }
    rmSync(this.temp, { force: true });
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
