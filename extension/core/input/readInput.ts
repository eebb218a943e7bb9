import { open, stat } from 'node:fs/promises';
import { InputError, throwIfAborted } from '../errors';
import { compressionOf, formatBytes, limitsOf, openInput, type Compression, type InputLimits } from './inputSource';
import { textTooLong } from './stringLimit';
import { decodeText, textEncodingOf, UTF8, type TextEncodingName } from './textEncoding';

export interface ReadOptions {
  limits?: Partial<InputLimits>;
  signal?: AbortSignal;
}

export interface InputText {
  text: string;
  compression: Compression;
  /** Bytes read (after decompression). */
  bytes: number;
}

const UTF8_BOM = '\uFEFF';

function tooLarge(file: string, maxBytes: number, where?: string): InputError {
  return new InputError(file, where, `larger than the ${formatBytes(maxBytes)} limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`);
}

/**
 * The whole of `file` as text, decompressed and decoded, at most `maxBytes` long (in UTF-8): a
 * larger one fails at once (a regular UTF-8 file, from its size) or as soon as the limit is
 * passed (a pipe, a compressed or UTF-16 file), holding no more than the limit. A leading UTF-8
 * byte order mark is dropped.
 */
export async function readInputText(file: string, options: ReadOptions = {}): Promise<InputText> {
  const { maxBytes } = limitsOf(options);
  const small = await readSmallPlainText(file, maxBytes, options.signal);
  if (small) return small;
  const source = await openInput(file, options);
  if (!(source.regular && source.size !== undefined && source.size > maxBytes)) return collect(file, source.chunks, maxBytes, () => source.compression);
  // Too large on disk: refused at once unless compressed (then judged by what it holds).
  const it = source.chunks[Symbol.asyncIterator]();
  const first = await it.next();
  if (source.compression === undefined && source.encoding === 'utf-8') {
    await it.return?.(undefined);
    throw tooLarge(file, maxBytes);
  }
  const rest = (async function* () {
    if (!first.done) yield first.value;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  })();
  return collect(file, rest, maxBytes, () => source.compression);
}

/** Regular files smaller than this are read whole into a reused buffer. */
const SCRATCH_BYTES = 512 << 10;
/** Free scratch buffers; at most SCRATCH_KEPT are kept for the next reads. */
const scratch: Buffer[] = [];
const SCRATCH_KEPT = 4;

/**
 * A small regular file that is plain UTF-8 (not compressed, no UTF-16 or UTF-32 mark), read
 * in one go into a reused buffer and decoded; undefined for anything else, which the streaming
 * path reads (and whose errors it reports). A buffer and a read stream per file, garbage the
 * moment the text is decoded, outlived the reads' awaits: indexing 70,000 small files moved
 * hundreds of MB of them to the old generation and held 100 MB of buffers waiting for a GC.
 */
async function readSmallPlainText(file: string, maxBytes: number, signal: AbortSignal | undefined): Promise<InputText | undefined> {
  throwIfAborted(signal);
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile() || info.size >= SCRATCH_BYTES || info.size > maxBytes) return undefined;
  const fh = await open(file, 'r').catch(() => undefined);
  if (!fh) return undefined;
  const buf = scratch.pop() ?? Buffer.allocUnsafe(SCRATCH_BYTES);
  try {
    let n = 0;
    try {
      // Read to the end: a file that grew past the buffer since its size was read goes the long way.
      for (let r = 1; r > 0 && n < buf.length; n += r) r = (await fh.read(buf, n, buf.length - n, n)).bytesRead;
    } finally {
      await fh.close();
    }
    const bytes = buf.subarray(0, n);
    if (n === buf.length || n > maxBytes || compressionOf(bytes) !== undefined || textEncodingOf(bytes).width !== 1) return undefined;
    let text = decodeText(bytes, UTF8)!;
    if (text.startsWith(UTF8_BOM)) text = text.slice(1);
    return { text, compression: undefined, bytes: n };
  } finally {
    if (scratch.length < SCRATCH_KEPT) scratch.push(buf);
  }
}

async function collect(file: string, chunks: AsyncIterable<Buffer>, maxBytes: number, compression: () => Compression): Promise<InputText> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw tooLarge(file, maxBytes);
    parts.push(chunk);
  }
  const buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  let text = decodeText(buf, UTF8);
  if (text === undefined) throw textTooLong(file, buf);
  if (text.startsWith(UTF8_BOM)) text = text.slice(1);
  return { text, compression: compression(), bytes };
}

export interface InputLine {
  /** 1-based. */
  line: number;
  /** The line's text; undefined when the line is longer than the limit (`tooLong`). */
  text: string;
  /** Longer than the limit: its text is not held, only counted. */
  tooLong: boolean;
  /** Byte offset just past this line's newline (or the end of the file for an unterminated last line). Raw file offsets when uncompressed and UTF-8. */
  end: number;
  terminated: boolean;
  compression: Compression;
  /** The file's encoding: the offsets of a UTF-16 or UTF-32 file are those of its text in UTF-8. */
  encoding: TextEncodingName;
}

export interface LineOptions extends ReadOptions {
  /** Byte offset of a line start to begin at (plain files only), and that line's 1-based number. */
  start?: number;
  firstLine?: number;
  highWaterMark?: number;
}

/**
 * Streams `file` line by line (JSONL, test logs), decompressed, with byte offsets so a later
 * read can resume where this one stopped. Lines are split on raw bytes: a multi-byte character
 * never straddles a newline in UTF-8, so decoding each line alone is exact. A line longer than
 * the limit is reported as such and skipped without being held.
 */
export async function* inputLines(file: string, options: LineOptions = {}): AsyncGenerator<InputLine> {
  const { maxBytes } = limitsOf(options);
  const start = options.start ?? 0;
  // The input layer's chunk (1 MiB), not a larger one: each chunk lives while its lines are
  // parsed, long enough to reach the old generation, and 8 MiB chunks of three 46 MB JSONL files
  // (30,000 rollouts) held 60 to 100 MB of buffers waiting there for a full collection; lines
  // are read as fast at 1 MiB.
  const source = await openInput(file, { ...options, start });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let skipping = false;
  let offset = start;
  let line = options.firstLine ?? 1;
  const emit = (piece: Buffer, terminated: boolean): InputLine => {
    const size = pendingBytes + piece.length;
    offset += size + (terminated ? 1 : 0);
    const tooLong = skipping || size > maxBytes;
    let text = '';
    if (!tooLong) {
      const bytes = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
      const decoded = decodeText(bytes, UTF8);
      if (decoded === undefined) throw textTooLong(file, bytes, line);
      text = line === 1 && decoded.startsWith(UTF8_BOM) ? decoded.slice(1) : decoded;
    }
    pending = [];
    pendingBytes = 0;
    skipping = false;
    return { line: line++, text, tooLong, end: offset, terminated, compression: source.compression, encoding: source.encoding };
  };
  for await (const chunk of source.chunks) {
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      yield emit(chunk.subarray(from, nl), true);
      from = nl + 1;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      if (skipping || pendingBytes + rest.length > maxBytes) {
        // Over the limit: count the bytes, drop them.
        skipping = true;
        pendingBytes += rest.length;
        pending = [];
      } else {
        pending.push(Buffer.from(rest));
        pendingBytes += rest.length;
      }
    }
  }
  if (pendingBytes > 0) yield emit(Buffer.alloc(0), false);
}

/** The error for a line `inputLines` reported as too long. */
export function lineTooLong(file: string, line: number, options: ReadOptions = {}): InputError {
  return tooLarge(file, limitsOf(options).maxBytes, `line ${line}`);
}
