/**
 * The one way every command and view reads a file from outside: a plain file, a named pipe or
 * process substitution (`<(zcat run.traj.gz)`), gzip or zstd compressed or not, UTF-8 or (with
 * a byte order mark) UTF-16 or UTF-32, given as UTF-8, with limits that name the file. Nothing
 * here holds more than the limit in memory.
 */
import { closeSync, constants as fsConstants, openSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import { errorText, InputError, throwIfAborted } from '../errors';
import { textEncodingOf, toUtf8, type TextEncodingName } from './textEncoding';

export interface InputLimits {
  /** Largest document (a whole JSON file, one JSONL line, a test log) read into memory, in bytes, after decompression (and as UTF-8). */
  maxBytes: number;
  /** Deepest JSON nesting accepted: deeper documents are refused before any recursive code sees them. */
  maxDepth: number;
  /** How long to wait for a writer to open a named pipe. */
  openTimeoutMs: number;
}

const MIB = 1 << 20;

/** The defaults; `SWE_WORKBENCH_MAX_INPUT_MB` and `SWE_WORKBENCH_PIPE_TIMEOUT_S` change them. */
function defaultInputLimits(env: NodeJS.ProcessEnv = process.env): InputLimits {
  const mb = Number(env.SWE_WORKBENCH_MAX_INPUT_MB);
  const seconds = Number(env.SWE_WORKBENCH_PIPE_TIMEOUT_S);
  return {
    maxBytes: Number.isFinite(mb) && mb > 0 ? Math.floor(mb * MIB) : 128 * MIB,
    maxDepth: 512,
    openTimeoutMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5000,
  };
}

export type Compression = 'gzip' | 'zstd' | undefined;

export interface InputSource {
  file: string;
  /** The decompressed bytes, chunk by chunk; breaking out of the loop closes the file. */
  chunks: AsyncIterable<Buffer>;
  /** A regular file (its size known, seekable) or a stream (pipe, FIFO, device). */
  regular: boolean;
  /** Size on disk for a regular file. */
  size: number | undefined;
  compression: Compression;
  /** The text's encoding (after decompression), known once the first chunk is read: the chunks are UTF-8 whatever it was. */
  encoding: TextEncodingName;
}

export interface OpenOptions {
  limits?: Partial<InputLimits>;
  signal?: AbortSignal;
  /** Byte offset to start at (regular, uncompressed UTF-8 files only: the bytes are read as they are). */
  start?: number;
  highWaterMark?: number;
}

/** `.gz` and `.zst` suffixes dropped: `run.traj.gz` is read as `run.traj`. */
export function withoutCompressionSuffix(name: string): string {
  return name.replace(/\.(gz|zst)$/i, '');
}

/** Names that say the file is compressed. */
export function hasCompressionSuffix(name: string): boolean {
  return /\.(gz|zst)$/i.test(name);
}

export function limitsOf(options?: { limits?: Partial<InputLimits> }): InputLimits {
  return { ...defaultInputLimits(), ...options?.limits };
}

/** "128 MiB" */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

const NO_SUCH_FILE = 'no such file';

function describeErrno(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOENT':
      return NO_SUCH_FILE;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a folder, not a file';
    case 'ELOOP':
      return 'too many levels of symbolic links (a symlink loop)';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return `cannot read: ${err.code ?? err.message}`;
  }
}

/** The error of a read whose file does not exist. */
export function isNoSuchFile(err: unknown): boolean {
  return err instanceof InputError && err.problem === NO_SUCH_FILE;
}

/** An fs error as an InputError naming the file. */
export function fsInputError(file: string, err: unknown): InputError {
  if (err instanceof InputError) return err;
  return new InputError(file, undefined, describeErrno(err as NodeJS.ErrnoException));
}

/**
 * Opens a named pipe without hanging: open(2) of a FIFO blocks until a writer comes. When none
 * comes in time, a writer is opened and closed here, which releases the blocked open (and its
 * libuv thread), and the read fails saying why.
 */
async function openFifo(file: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<FileHandle> {
  const opening = open(file, 'r');
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const gaveUp = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no writer opened the pipe within ${timeoutMs / 1000} s (set SWE_WORKBENCH_PIPE_TIMEOUT_S to wait longer)`), timeoutMs);
    onAbort = () => resolve('cancelled while waiting for a writer');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const first = await Promise.race([opening.then((h) => ({ h })), gaveUp.then((reason) => ({ reason }))]);
    if ('h' in first) return first.h;
    try {
      closeSync(openSync(file, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK));
    } catch {
      // The writer may have come in between: the open below then holds its data, dropped.
    }
    await opening.then((h) => h.close()).catch(() => undefined);
    throw new InputError(file, undefined, first.reason);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

const GZIP_MAGIC = [0x1f, 0x8b];
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

function startsWith(buf: Buffer, magic: number[]): boolean {
  return buf.length >= magic.length && magic.every((b, i) => buf[i] === b);
}

function compressedDataError(file: string, compression: 'gzip' | 'zstd', err: unknown): InputError {
  if (err instanceof InputError) return err;
  const message = errorText(err);
  return /unexpected (end|EOF)|truncat/i.test(message)
    ? new InputError(file, undefined, `${compression} data ends early: the file looks truncated`)
    : new InputError(file, undefined, `not valid ${compression} data: ${message}`);
}

async function* gunzipChunks(file: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const gunzip = createGunzip();
  const input = Readable.from(chunks, { objectMode: false });
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) yield chunk;
  } catch (err) {
    throw compressedDataError(file, 'gzip', err);
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

/** zstd through fzstd's streaming decoder (Node 20's zlib has no zstd). */
async function* unzstdChunks(file: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let out: Buffer[] = [];
  const decoder = new ZstdDecompress((data) => {
    out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  const drain = function* () {
    const ready = out;
    out = [];
    yield* ready;
  };
  try {
    for await (const chunk of chunks) {
      decoder.push(chunk);
      yield* drain();
    }
    decoder.push(new Uint8Array(0), true);
    yield* drain();
  } catch (err) {
    throw compressedDataError(file, 'zstd', err);
  }
}

/** The first `n` bytes of a stream (fewer when it is shorter), and the whole stream again. */
async function peek(chunks: AsyncIterable<Buffer>, n: number): Promise<{ head: Buffer; all: AsyncGenerator<Buffer> }> {
  const it = chunks[Symbol.asyncIterator]();
  let head: Buffer = Buffer.alloc(0);
  let done = false;
  while (head.length < n) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  const all = (async function* () {
    if (head.length > 0) yield head;
    if (done) return;
    for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
  })();
  return { head, all };
}

/** What the first bytes of a file say it is compressed with. */
export function compressionOf(head: Buffer): Compression {
  return startsWith(head, GZIP_MAGIC) ? 'gzip' : startsWith(head, ZSTD_MAGIC) ? 'zstd' : undefined;
}

/** The first bytes decide: gzip and zstd are decompressed on the fly, anything else passes through. */
async function* decompressed(file: string, raw: AsyncIterable<Buffer>, onCompression: (c: Compression) => void): AsyncGenerator<Buffer> {
  const { head, all } = await peek(raw, 4);
  const compression = compressionOf(head);
  onCompression(compression);
  if (compression === 'gzip') yield* gunzipChunks(file, all);
  else if (compression === 'zstd') yield* unzstdChunks(file, all);
  else yield* all;
}

/** Text in UTF-16 or UTF-32 (declared by its byte order mark) becomes UTF-8; UTF-8 passes through. */
async function* decoded(chunks: AsyncIterable<Buffer>, onEncoding: (e: TextEncodingName) => void): AsyncGenerator<Buffer> {
  const { head, all } = await peek(chunks, 4);
  const encoding = textEncodingOf(head);
  onEncoding(encoding.name);
  if (encoding.width === 1) return yield* all;
  const withoutBom = (async function* () {
    let skip = encoding.bom;
    for await (const chunk of all) {
      const piece = skip > 0 ? chunk.subarray(Math.min(skip, chunk.length)) : chunk;
      skip = Math.max(0, skip - chunk.length);
      if (piece.length > 0) yield piece;
    }
  })();
  yield* toUtf8(withoutBom, encoding);
}

/**
 * Bytes read at once, below glibc's mmap threshold (128 KiB). A larger buffer is mapped, and
 * freeing one raises the threshold, after which such buffers fragment the heap of the thread
 * reading: the index worker's, which the extension host's process cannot tune
 * (`bench/rollouts/scale.ts` shows the worker's peak).
 */
const CHUNK = 64 << 10;

/** Opens `file` for reading as described above; the stream yields decompressed bytes. */
export async function openInput(file: string, options: OpenOptions = {}): Promise<InputSource> {
  throwIfAborted(options.signal);
  const limits = limitsOf(options);
  let info: Stats;
  try {
    info = await stat(file);
  } catch (err) {
    throw fsInputError(file, err);
  }
  if (info.isDirectory()) throw new InputError(file, undefined, 'is a folder, not a file');
  let handle: FileHandle;
  try {
    handle = info.isFIFO() ? await openFifo(file, limits.openTimeoutMs, options.signal) : await open(file, 'r');
  } catch (err) {
    throw fsInputError(file, err);
  }
  const regular = info.isFile();
  const start = regular ? options.start : undefined;
  const highWaterMark = options.highWaterMark ?? CHUNK;
  const raw = handle.createReadStream({ ...(start !== undefined ? { start } : {}), highWaterMark, autoClose: true });
  const source: InputSource = { file, chunks: raw, regular, size: regular ? info.size : undefined, compression: undefined, encoding: 'utf-8' };
  const signal = options.signal;
  const guarded = async function* (inner: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of inner) {
        throwIfAborted(signal);
        yield chunk;
      }
    } catch (err) {
      throw err instanceof InputError || (err as Error).name === 'CancelledError' ? err : fsInputError(file, err);
    } finally {
      raw.destroy();
    }
  };
  source.chunks =
    start !== undefined && start > 0
      ? guarded(raw)
      : guarded(
          decoded(
            decompressed(file, raw, (c) => {
              source.compression = c;
            }),
            (e) => {
              source.encoding = e;
            },
          ),
        );
  return source;
}
