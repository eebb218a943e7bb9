/**
 * A byte index of a large JSON object (or root array), built in one streaming pass without
 * parsing it: where each top-level value lies, where each element of the arrays asked for lies
 * (the root array's, under `''`, when asked for), and, for those
 * elements' own fields, where each lies, with the small ones kept as text. A value is then
 * parsed on demand from its byte range (`readJsonRange`), so a 500 MB file never becomes one
 * string. The scan tracks strings (jumped over with `indexOf`), escapes and depth only; a
 * structural fault (a bracket that does not match, the file ending inside a value, text after
 * the value, nesting past the depth limit) is an InputError at its line and column; a fault
 * inside a value (`tru`, `01`) is found when that value is parsed, at its line and column too.
 * Plain regular files only: a compressed file or a pipe has no byte ranges to come back to. A
 * UTF-16 or UTF-32 file (its byte order mark says which) is scanned a code unit at a time, so
 * its offsets count code units, not bytes (for UTF-8 they are the same).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError, throwIfAborted } from '../errors';
import { formatBytes, fsInputError, limitsOf, type InputLimits } from './inputSource';
import { longString, stringTooLong } from './stringLimit';
import { ChunkDecoder, decodeText, MAX_STRING_TEXT, MAX_STRING_UNITS, textEncodingOf, type TextEncoding } from './textEncoding';
import { parseJsonText } from './jsonText';

/** [start, end) in code units of the file's text after its byte order mark: bytes, in UTF-8. */
export interface ByteRange {
  start: number;
  end: number;
}

/** A value the index located: its range, its first byte (`{`, `[`, `"`, a digit...), and its text when it was small enough to keep. */
export interface IndexedValue extends ByteRange {
  first: number;
  text?: string;
}

export interface IndexedElement extends ByteRange {
  /** The element's own fields when it is an object (in file order), each located and the small ones kept. */
  fields: Map<string, IndexedValue>;
}

export interface JsonIndex {
  file: string;
  size: number;
  /** The root object's keys, in file order (none for a root array). */
  keys: Map<string, IndexedValue>;
  /** The elements of each array asked for (by top-level key) that the file holds. */
  arrays: Map<string, IndexedElement[]>;
}

export interface IndexOptions {
  /** Top-level keys whose values, when arrays, have their elements indexed; `''` takes a root array (a bare message or event list), indexed under `''`. */
  arrays: readonly string[];
  /** Values up to this many bytes (top-level ones and elements' fields) are kept as text. */
  keepBytes?: number;
  limits?: Partial<InputLimits>;
  signal?: AbortSignal;
  /** Called as each element of an indexed array has been read, before the scan goes on; with its text when `elementText` asked for it. */
  onElement?: (array: string, index: number, element: IndexedElement, text: string | undefined) => void;
  /** Which elements `onElement` gets the text of (say, the first one, to show it before the scan ends). */
  elementText?: (array: string, index: number) => boolean;
  /**
   * Bytes read at a time (tests use small reads to cut values across reads). The default, 1 MiB,
   * scans as fast as larger reads and lets the process answer between reads: the stepper's page
   * asks for its first step while the extension host indexes the file (`bench/ui/stepper.ts
   * --large-mb 500` measures the wait).
   */
  readBytes?: number;
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const KEY_BYTES = 4096;
const TAIL_UNITS = 4096;
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** What a container on the scan's stack is to the index. */
const enum Role {
  Other,
  Root,
  Indexed,
  Element,
}

interface Frame {
  object: boolean;
  role: Role;
  /** In an object: the next string is a key. */
  expectKey: boolean;
  key: string | undefined;
  /** Start and first byte of the member value being read, -1 before it starts. */
  valueStart: number;
  valueFirst: number;
  /** For an indexed array: its key; for an element: its array's key and index. */
  array: string;
  index: number;
  fields: Map<string, IndexedValue> | undefined;
}

/** `file` opened for reading; a failure is the input layer's error naming the file. */
async function openForReading(file: string): Promise<FileHandle> {
  try {
    return await open(file, 'r');
  } catch (err) {
    throw fsInputError(file, err);
  }
}

/** The first non-whitespace character of a plain file (as a byte, 0x80 for any past ASCII), read from its head: `{` marks a JSON object the index can take. */
export async function firstByte(file: string): Promise<number | undefined> {
  const handle = await openForReading(file);
  try {
    const encoding = await encodingAt(handle);
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, encoding.bom);
    const units = narrowed(head.subarray(0, bytesRead - (bytesRead % encoding.width)), encoding);
    let i = units[0] === 0xef && units[1] === 0xbb && units[2] === 0xbf ? 3 : 0;
    while (i < units.length && (units[i] === 0x20 || units[i] === 0x0a || units[i] === 0x0d || units[i] === 0x09)) i++;
    return i < units.length ? units[i] : undefined;
  } finally {
    await handle.close();
  }
}

/** The encoding the file's byte order mark declares (UTF-8 without one). */
async function encodingAt(handle: FileHandle): Promise<TextEncoding> {
  const head = Buffer.alloc(4);
  const { bytesRead } = await handle.read(head, 0, 4, 0);
  return textEncodingOf(head.subarray(0, bytesRead));
}

/**
 * One byte per code unit: the unit itself when it is ASCII, 0x80 otherwise. Every byte the scan
 * looks for (brackets, quotes, backslashes, whitespace) is ASCII, so it scans UTF-16 and UTF-32
 * text as it scans UTF-8, its offsets counting code units.
 */
function narrowed(raw: Buffer, encoding: TextEncoding): Buffer {
  const { name, width } = encoding;
  if (width === 1) return raw;
  const units = Buffer.allocUnsafe(raw.length / width);
  // Where in a unit its low byte is; every other byte of an ASCII unit is zero.
  const low = name === 'utf-16le' || name === 'utf-32le' ? 0 : width - 1;
  for (let u = 0, at = 0; u < units.length; u++, at += width) {
    const byte = raw[at + low]!;
    let ascii = byte < 0x80;
    for (let k = 0; ascii && k < width; k++) if (k !== low && raw[at + k] !== 0) ascii = false;
    units[u] = ascii ? byte : 0x80;
  }
  return units;
}

/** Reads as code units (see `narrowed`), each with its bytes; a unit cut between two reads waits for the next. */
async function* unitsOf(reads: AsyncIterable<Buffer>, encoding: TextEncoding): AsyncGenerator<{ units: Buffer; raw: Buffer }> {
  if (encoding.width === 1) {
    for await (const chunk of reads) yield { units: chunk, raw: chunk };
    return;
  }
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of reads) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % encoding.width);
    carry = Buffer.from(bytes.subarray(whole));
    const raw = bytes.subarray(0, whole);
    if (raw.length > 0) yield { units: narrowed(raw, encoding), raw };
  }
}

/**
 * Indexes the JSON object in `file` (a plain file) as described above. The callback sees each
 * element of an indexed array as soon as its last byte is read.
 */
export async function indexJsonObject(file: string, options: IndexOptions): Promise<JsonIndex> {
  throwIfAborted(options.signal);
  const handle = await openForReading(file);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new InputError(file, undefined, 'not a plain file: a byte index needs a file it can read again');
    return await scan(file, handle, info.size, options);
  } finally {
    await handle.close();
  }
}

/**
 * Reads the file in two buffers taken in turn (the next read runs while this one is scanned),
 * so the pass makes no garbage however large the file.
 */
async function* readsOf(file: string, handle: FileHandle, size: number, bytes: number, from = 0): AsyncGenerator<Buffer> {
  const buffers = [Buffer.allocUnsafe(Math.min(bytes, Math.max(size, 1))), Buffer.allocUnsafe(Math.min(bytes, Math.max(size, 1)))];
  // The first read is short, so the first values are seen without waiting for a whole buffer.
  const readAt = (k: number, position: number) =>
    handle.read(buffers[k % 2]!, 0, k === 0 ? Math.min(buffers[0]!.length, 1 << 20) : buffers[k % 2]!.length, position).catch((err: unknown) => {
      throw fsInputError(file, err);
    });
  let position = from;
  let k = 0;
  let pending = readAt(k, position);
  for (;;) {
    const { bytesRead } = await pending;
    if (bytesRead === 0) return;
    position += bytesRead;
    const chunk = buffers[k % 2]!.subarray(0, bytesRead);
    k++;
    pending = readAt(k, position);
    yield chunk;
  }
}

/** Whether `c` is JSON whitespace. */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** A frame the scan pushes for a container it enters. */
function newFrame(object: boolean, role: Role, array = '', index = 0, fields?: Map<string, IndexedValue>): Frame {
  return { object, role, expectKey: object, key: undefined, valueStart: -1, valueFirst: 0, array, index, fields };
}

async function scan(file: string, handle: FileHandle, size: number, options: IndexOptions): Promise<JsonIndex> {
  const encoding = await encodingAt(handle);
  const scanner = new Scanner(file, size, options, encoding);
  for await (const read of unitsOf(readsOf(file, handle, size, options.readBytes ?? 1 << 20, encoding.bom), encoding)) {
    throwIfAborted(options.signal);
    await scanner.read(read.units, read.raw);
  }
  return scanner.finish();
}

/**
 * One pass over a JSON text, read by read: the stack of containers it is in, the string it may be
 * in, and the value (a key, a small value) or element whose text it keeps across reads. Each kind
 * of byte has its method: the end of a string, a quote, an opening and a closing bracket, a colon,
 * comma or the first byte of a scalar; `carry` keeps what spans into the next read, `finish` says
 * what is wrong with a text that ended early.
 */
class Scanner {
  readonly index: JsonIndex;
  private readonly limits: InputLimits;
  private readonly keep: number;
  private readonly indexed: Set<string>;
  private readonly width: number;
  private readonly stack: Frame[] = [];
  private rootDone = false;
  private inString = false;
  /** Backslashes that ended the previous chunk while in a string. */
  private carriedBackslashes = 0;
  /** End of the last value byte seen outside whitespace. */
  private lastEnd = 0;
  // The one value being kept as text (a key, a small value): its start and the bytes seen so far.
  private keptStart = -1;
  private keptParts: Buffer[] = [];
  private keptBytes = 0;
  private keptDropped = false;
  private keptLimit: number;
  /** The code unit the current read starts at. */
  private base = 0;
  private started = false;
  // The element whose text `onElement` gets: its start and its bytes of earlier reads.
  private elementStart = -1;
  private elementParts: Buffer[] = [];
  /** This read's bytes (offsets count code units: bytes in UTF-8, `width` bytes each otherwise). */
  private raw: Buffer = Buffer.alloc(0);
  /** The last units read (a copy: the read buffers are reused), where the end of the text is found. */
  private lastUnits: Buffer = Buffer.alloc(0);
  /** Where the string being read began. */
  private stringStart = 0;

  constructor(
    private readonly file: string,
    size: number,
    private readonly options: IndexOptions,
    private readonly encoding: TextEncoding,
  ) {
    this.limits = limitsOf(options);
    this.keep = options.keepBytes ?? 64 * 1024;
    this.keptLimit = this.keep;
    this.indexed = new Set(options.arrays);
    this.width = encoding.width;
    this.index = { file, size, keys: new Map(), arrays: new Map() };
  }

  /** Scans one read: `chunk` its code units (see `narrowed`), `raw` its bytes. */
  async read(chunk: Buffer, raw: Buffer): Promise<void> {
    this.raw = raw;
    this.lastUnits = Buffer.from(
      chunk.length >= TAIL_UNITS ? chunk.subarray(chunk.length - TAIL_UNITS) : Buffer.concat([this.lastUnits, chunk]).subarray(-TAIL_UNITS),
    );
    const n = chunk.length;
    if (!this.started) {
      this.started = true;
      if ((chunk[0] === 0x1f && chunk[1] === 0x8b) || (chunk[0] === 0x28 && chunk[1] === 0xb5 && chunk[2] === 0x2f && chunk[3] === 0xfd)) {
        throw new InputError(this.file, undefined, 'compressed (gzip or zstd): a byte index needs the plain file');
      }
    }
    let i = 0;
    while (i < n) {
      if (this.inString) {
        i = this.stringEnd(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      const at = this.base + i;
      if (at < 3 && c === UTF8_BOM[at] && this.stack.length === 0) {
        // A UTF-8 byte order mark, dropped as the whole-file reader drops it.
        i++;
        continue;
      }
      if (this.rootDone) await this.fail(at, 'invalid JSON: unexpected non-whitespace character after JSON');
      if (c === QUOTE) this.quote(at);
      else if (c === OPEN_OBJECT || c === OPEN_ARRAY) await this.open(at, c);
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) await this.close(at, c);
      else await this.punctuationOrScalar(at, c);
      i++;
    }
    await this.carry(n);
    this.base += n;
  }

  /** The index, once every read is scanned; a text that ended early is an error at its end (or at the string left open). */
  async finish(): Promise<JsonIndex> {
    if (this.rootDone) return this.index;
    const { file, base, width, lastUnits } = this;
    if (!this.started || base === 0) throw new InputError(file, undefined, 'empty file');
    if (this.stack.length === 0) throw new InputError(file, undefined, 'empty file: only whitespace');
    if (this.inString) {
      // A string that runs to the end past what can be read is named where it starts: most likely its closing quote is missing.
      const bytes = (base - this.stringStart) * width;
      if (bytes > MAX_STRING_UNITS) throw stringTooLong(file, await locateByte(file, this.stringStart), false);
      if (bytes > this.limits.maxBytes) {
        await this.fail(
          this.stringStart,
          `a string starts here and runs to the end of the file, ${formatBytes(bytes)} on, past the ${formatBytes(this.limits.maxBytes)} limit for one document (unterminated?); it cannot be read`,
        );
      }
    }
    // Where the text ends, trailing whitespace left out, as the whole-file parser says it.
    let end = lastUnits.length;
    while (end > 0 && isSpace(lastUnits[end - 1]!)) end--;
    return this.fail(base - lastUnits.length + end, 'unexpected end of JSON: the file looks truncated');
  }

  private async fail(offset: number, problem: string): Promise<never> {
    throw new InputError(this.file, await locateByte(this.file, offset), problem);
  }

  /** In a string from `i`: where the scan goes on, past its closing quote (or the read's end, the string going on into the next). */
  private stringEnd(chunk: Buffer, i: number): number {
    const n = chunk.length;
    // The string ends at the next quote not escaped by an odd run of backslashes.
    let q = chunk.indexOf(QUOTE, i);
    for (;;) {
      if (q < 0) break;
      let backslashes = 0;
      while (q - 1 - backslashes >= 0 && chunk[q - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes === q) backslashes += this.carriedBackslashes;
      if (backslashes % 2 === 0) break;
      q = chunk.indexOf(QUOTE, q + 1);
    }
    if (q < 0) {
      let trailing = 0;
      while (trailing < n - i && chunk[n - 1 - trailing] === BACKSLASH) trailing++;
      this.carriedBackslashes = trailing === n - i ? this.carriedBackslashes + trailing : trailing;
      return n;
    }
    this.carriedBackslashes = 0;
    this.inString = false;
    this.lastEnd = this.base + q + 1;
    const frame = this.stack[this.stack.length - 1];
    if (frame?.object && frame.expectKey && frame.key === undefined && (frame.role === Role.Root || frame.role === Role.Element)) {
      // A key past the kept size is no key the index looks for.
      const key = this.keptText(this.base + q + 1);
      frame.key = key === undefined ? '' : (JSON.parse(key) as string);
    }
    return q + 1;
  }

  /** A string starts at `at`: a key (kept up to 4 KiB when the index may look for it) or a value. */
  private quote(at: number): void {
    const frame = this.stack[this.stack.length - 1];
    if (frame?.object && frame.expectKey) {
      if (frame.role === Role.Root || frame.role === Role.Element) this.startKeeping(at, KEY_BYTES);
    } else this.beginValue(at, QUOTE);
    this.inString = true;
    this.stringStart = at;
    this.carriedBackslashes = 0;
  }

  /** `{` or `[` at `at`: the root, an indexed array, one of its elements, or any other container. */
  private async open(at: number, c: number): Promise<void> {
    const { stack, indexed, index } = this;
    if (stack.length === 0) {
      if (c === OPEN_ARRAY && indexed.has('')) {
        index.arrays.set('', []);
        stack.push(newFrame(false, Role.Indexed));
        return;
      }
      if (c !== OPEN_OBJECT) await this.fail(at, 'expected a JSON object');
      stack.push(newFrame(true, Role.Root));
      return;
    }
    const parent = stack[stack.length - 1]!;
    this.beginValue(at, c);
    if (stack.length + 1 > this.limits.maxDepth) await this.fail(at, `JSON nested deeper than ${this.limits.maxDepth} levels`);
    let role = Role.Other;
    let array = '';
    let elementIndex = 0;
    if (parent.role === Role.Root && c === OPEN_ARRAY && indexed.has(parent.key!)) {
      role = Role.Indexed;
      array = parent.key!;
      index.arrays.set(array, []);
    } else if (parent.role === Role.Indexed) {
      role = Role.Element;
      array = parent.array;
      elementIndex = index.arrays.get(array)!.length;
    }
    const object = c === OPEN_OBJECT;
    stack.push(newFrame(object, role === Role.Element && !object ? Role.Other : role, array, elementIndex, role === Role.Element ? new Map() : undefined));
  }

  /** `}` or `]` at `at`: the container's last member or element ends, and so does the container. */
  private async close(at: number, c: number): Promise<void> {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) await this.fail(at, `invalid JSON: unexpected token '${String.fromCharCode(c)}'`);
    if (frame!.object !== (c === CLOSE_OBJECT)) {
      // In V8's words, as the whole-file parser reports it.
      await this.fail(at, frame!.object ? "invalid JSON: expected ',' or '}' after property value" : "invalid JSON: expected ',' or ']' after array element");
    }
    if (frame!.role === Role.Indexed && frame!.valueStart >= 0) this.pushElement(frame!, undefined);
    else this.endMember(frame!);
    this.stack.pop();
    this.lastEnd = at + 1;
    const parent = this.stack[this.stack.length - 1];
    if (parent?.role === Role.Indexed) this.pushElement(parent, frame!.fields);
    if (this.stack.length === 0) this.rootDone = true;
  }

  /** `:` or `,` at `at`, or the first byte of a number or a literal. */
  private async punctuationOrScalar(at: number, c: number): Promise<void> {
    const frame = this.stack[this.stack.length - 1];
    if (!frame) await this.fail(at, 'expected a JSON object');
    if (c === COLON) {
      frame!.expectKey = false;
    } else if (c === COMMA) {
      if (frame!.role === Role.Indexed && frame!.valueStart >= 0) this.pushElement(frame!, undefined);
      else this.endMember(frame!);
      frame!.expectKey = frame!.object;
    } else {
      this.beginValue(at, c);
      this.lastEnd = at + 1;
    }
  }

  /** What of the element or value being kept lies in this read, kept for the next (`n` units read). */
  private async carry(n: number): Promise<void> {
    const { base, width, raw } = this;
    if (this.elementStart >= 0) {
      if ((base + n - this.elementStart) * width > this.limits.maxBytes)
        await this.fail(
          this.elementStart,
          `a value larger than the ${this.limits.maxBytes >> 20} MiB limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`,
        );
      this.elementParts.push(Buffer.from(raw.subarray(Math.max(this.elementStart - base, 0) * width)));
    }
    if (this.keptStart >= 0 && !this.keptDropped) {
      const piece = raw.subarray(Math.max(this.keptStart - base, 0) * width);
      this.keptBytes += piece.length / width;
      if (this.keptBytes > this.keptLimit) {
        this.keptDropped = true;
        this.keptParts = [];
      } else this.keptParts.push(Buffer.from(piece));
    }
  }

  /** Keys are kept up to 4 KiB whatever `keepBytes` says: a longer one is no key the index looks for. */
  private startKeeping(at: number, limit = this.keep): void {
    this.keptStart = at;
    this.keptLimit = limit;
    this.keptParts = [];
    this.keptBytes = 0;
    this.keptDropped = false;
  }

  private keptText(end: number): string | undefined {
    const { keptStart, base, width } = this;
    if (keptStart < 0 || this.keptDropped || end - keptStart > this.keptLimit) {
      this.keptStart = -1;
      this.keptParts = [];
      return undefined;
    }
    // The value may have ended in an earlier read (a number before whitespace and the comma).
    const from = Math.max(keptStart - base, 0);
    const tail = this.raw.subarray(from * width, Math.max(from, end - base) * width);
    const parts = this.keptParts;
    const text = decodeText((parts.length > 0 ? Buffer.concat([...parts, tail]) : tail).subarray(0, (end - keptStart) * width), this.encoding)!;
    this.keptStart = -1;
    this.keptParts = [];
    return text;
  }

  /** Whether values in this frame are kept as text. */
  private keeps(frame: Frame): boolean {
    return frame.role === Role.Element || (frame.role === Role.Root && !(frame.key !== undefined && this.indexed.has(frame.key)));
  }

  /** The member value of `frame` that ended at `lastEnd`, at a comma or a closing bracket in this read. */
  private endMember(frame: Frame): void {
    if (frame.valueStart < 0) return;
    const { lastEnd } = this;
    const range = { start: frame.valueStart, end: lastEnd, first: frame.valueFirst };
    if (frame.role === Role.Root) {
      const text = this.keeps(frame) ? this.keptText(lastEnd) : undefined;
      this.index.keys.set(frame.key!, text === undefined ? range : { ...range, text });
    } else if (frame.role === Role.Element) {
      const text = this.keptText(lastEnd);
      frame.fields!.set(frame.key!, text === undefined ? range : { ...range, text });
    }
    frame.valueStart = -1;
    frame.key = undefined;
  }

  /** An element of an indexed array ended at `lastEnd`: recorded at once, its fields with it. */
  private pushElement(array: Frame, fields: Map<string, IndexedValue> | undefined): void {
    const { lastEnd, base, width } = this;
    const element: IndexedElement = { start: array.valueStart, end: lastEnd, fields: fields ?? new Map() };
    const list = this.index.arrays.get(array.array)!;
    list.push(element);
    array.valueStart = -1;
    let text: string | undefined;
    if (this.elementStart >= 0) {
      const from = Math.max(this.elementStart - base, 0);
      const bytes = Buffer.concat([...this.elementParts, this.raw.subarray(from * width, Math.max(from, lastEnd - base) * width)]).subarray(
        0,
        (lastEnd - this.elementStart) * width,
      );
      text = decodeText(bytes, this.encoding);
      this.elementStart = -1;
      this.elementParts = [];
    }
    this.options.onElement?.(array.array, list.length - 1, element, text);
  }

  /** A value begins at `at` in the innermost frame. */
  private beginValue(at: number, byte: number): void {
    const frame = this.stack[this.stack.length - 1];
    if (!frame || frame.valueStart >= 0) return;
    frame.valueStart = at;
    frame.valueFirst = byte;
    if (this.keeps(frame)) this.startKeeping(at);
    if (frame.role === Role.Indexed && this.options.elementText?.(frame.array, this.index.arrays.get(frame.array)!.length)) {
      this.elementStart = at;
      this.elementParts = [];
    }
  }
}

/** Bytes decoded at a time to count a column: a line may be the whole file, too long to be one string. */
const COLUMN_PIECE = 8 << 20;

/**
 * `line L, column C` of code unit `offset` of `file` (a byte in UTF-8), the column counted in
 * UTF-16 code units as the parser's errors count it: streamed, so a line of any length is counted
 * without being made one string.
 */
async function locateByte(file: string, offset: number): Promise<string> {
  const handle = await openForReading(file);
  try {
    const encoding = await encodingAt(handle);
    const { size } = await handle.stat();
    let line = 1;
    let lineStart = 0;
    let base = 0;
    for await (const { units } of unitsOf(readsOf(file, handle, size, 1 << 20, encoding.bom), encoding)) {
      const stop = Math.min(units.length, offset - base);
      for (let nl = units.indexOf(0x0a); nl !== -1 && nl < stop; nl = units.indexOf(0x0a, nl + 1)) {
        line++;
        lineStart = base + nl + 1;
      }
      base += units.length;
      if (base >= offset) break;
    }
    const decoder = new ChunkDecoder(encoding);
    let column = 1;
    for (let at = lineStart; at < offset; at += COLUMN_PIECE) {
      const text = decoder.write(await readUnits(file, handle, encoding, { start: at, end: Math.min(offset, at + COLUMN_PIECE) }));
      column += at === 0 && encoding.width === 1 && text.startsWith('\uFEFF') ? text.length - 1 : text.length;
    }
    return `line ${line}, column ${column}`;
  } finally {
    await handle.close();
  }
}

/** The bytes of code units `range` of the file open as `handle`. */
async function readUnits(file: string, handle: FileHandle, encoding: TextEncoding, range: ByteRange): Promise<Buffer> {
  const out = Buffer.allocUnsafe((range.end - range.start) * encoding.width);
  const start = encoding.bom + range.start * encoding.width;
  let done = 0;
  while (done < out.length) {
    const { bytesRead } = await handle.read(out, done, out.length - done, start + done);
    if (bytesRead === 0) throw new InputError(file, undefined, 'the file changed while it was read: it is shorter than its index');
    done += bytesRead;
  }
  return out;
}

/** The text of code units `range` of `file`; refused past `maxBytes`, or past what one string can hold. */
async function readText(file: string, range: ByteRange, maxBytes: number): Promise<string> {
  const handle = await openForReading(file);
  let bytes: Buffer;
  let encoding: TextEncoding;
  try {
    encoding = await encodingAt(handle);
    if ((range.end - range.start) * encoding.width > maxBytes) {
      throw new InputError(
        file,
        await locateByte(file, range.start),
        `a value larger than the ${maxBytes >> 20} MiB limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`,
      );
    }
    bytes = await readUnits(file, handle, encoding, range);
  } finally {
    await handle.close();
  }
  const text = decodeText(bytes, encoding);
  if (text !== undefined) return text;
  const long = encoding.width === 1 ? longString(bytes) : undefined;
  if (long) throw stringTooLong(file, await locateByte(file, range.start + long.at), long.closed);
  throw new InputError(
    file,
    await locateByte(file, range.start),
    `a value of ${formatBytes(bytes.length)}, more than the ${MAX_STRING_TEXT} the JavaScript engine holds in one string; it cannot be read`,
  );
}

/**
 * The JSON value at `range` of `file` (or its kept text), parsed; a value larger than the
 * one-document limit is refused, and a fault inside it is located in the file.
 */
export async function readJsonRange(file: string, value: ByteRange & { text?: string }, options: { limits?: Partial<InputLimits> } = {}): Promise<unknown> {
  const text = value.text ?? (await readText(file, value, limitsOf(options).maxBytes));
  try {
    return JSON.parse(text);
  } catch {
    // Located again from the value's place in the file: numbered from its line, its first line shifted to its column.
    const [line, column] = /^line (\d+), column (\d+)$/
      .exec(await locateByte(file, value.start))!
      .slice(1)
      .map(Number) as [number, number];
    try {
      return parseJsonText(text, file, line);
    } catch (err) {
      const at = err instanceof InputError ? /^line (\d+), column (\d+)$/.exec(err.where ?? '') : null;
      if (!at || Number(at[1]) !== line) throw err;
      throw new InputError(file, `line ${line}, column ${Number(at[2]) + column - 1}`, (err as InputError).problem);
    }
  }
}
