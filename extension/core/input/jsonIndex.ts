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

async function scan(file: string, handle: FileHandle, size: number, options: IndexOptions): Promise<JsonIndex> {
  const limits = limitsOf(options);
  const keep = options.keepBytes ?? 64 * 1024;
  const indexed = new Set(options.arrays);
  const index: JsonIndex = { file, size, keys: new Map(), arrays: new Map() };
  const stack: Frame[] = [];
  let rootDone = false;
  let inString = false;
  /** Backslashes that ended the previous chunk while in a string. */
  let carriedBackslashes = 0;
  /** End of the last value byte seen outside whitespace. */
  let lastEnd = 0;
  // The one value being kept as text (a key, a small value): its start and the bytes seen so far.
  let keptStart = -1;
  let keptParts: Buffer[] = [];
  let keptBytes = 0;
  let keptDropped = false;
  let keptLimit = keep;
  let base = 0;
  let started = false;
  // The element whose text `onElement` gets: its start and its bytes of earlier reads.
  let elementStart = -1;
  let elementParts: Buffer[] = [];
  // Offsets count code units (bytes in UTF-8): `raw` holds this read's bytes, `width` per unit.
  const encoding = await encodingAt(handle);
  const width = encoding.width;
  let raw: Buffer = Buffer.alloc(0);
  /** The last units read (a copy: the read buffers are reused), where the end of the text is found. */
  let lastUnits: Buffer = Buffer.alloc(0);
  /** Where the string being read began. */
  let stringStart = 0;

  const fail = async (offset: number, problem: string): Promise<never> => {
    throw new InputError(file, await locateByte(file, offset), problem);
  };
  /** Keys are kept up to 4 KiB whatever `keepBytes` says: a longer one is no key the index looks for. */
  const startKeeping = (at: number, limit = keep) => {
    keptStart = at;
    keptLimit = limit;
    keptParts = [];
    keptBytes = 0;
    keptDropped = false;
  };
  const keptText = (end: number): string | undefined => {
    if (keptStart < 0 || keptDropped || end - keptStart > keptLimit) {
      keptStart = -1;
      keptParts = [];
      return undefined;
    }
    // The value may have ended in an earlier read (a number before whitespace and the comma).
    const from = Math.max(keptStart - base, 0);
    const tail = raw.subarray(from * width, Math.max(from, end - base) * width);
    const text = decodeText((keptParts.length > 0 ? Buffer.concat([...keptParts, tail]) : tail).subarray(0, (end - keptStart) * width), encoding)!;
    keptStart = -1;
    keptParts = [];
    return text;
  };
  /** Whether values in this frame are kept as text. */
  const keeps = (frame: Frame) => frame.role === Role.Element || (frame.role === Role.Root && !(frame.key !== undefined && indexed.has(frame.key)));
  /** The member value of `frame` that ended at `lastEnd`, at a comma or a closing bracket in this read. */
  const endMember = (frame: Frame): void => {
    if (frame.valueStart < 0) return;
    const range = { start: frame.valueStart, end: lastEnd, first: frame.valueFirst };
    if (frame.role === Role.Root) {
      const text = keeps(frame) ? keptText(lastEnd) : undefined;
      index.keys.set(frame.key!, text === undefined ? range : { ...range, text });
    } else if (frame.role === Role.Element) {
      const text = keptText(lastEnd);
      frame.fields!.set(frame.key!, text === undefined ? range : { ...range, text });
    }
    frame.valueStart = -1;
    frame.key = undefined;
  };
  /** An element of an indexed array ended at `lastEnd`: recorded at once, its fields with it. */
  const pushElement = (array: Frame, fields: Map<string, IndexedValue> | undefined): void => {
    const element: IndexedElement = { start: array.valueStart, end: lastEnd, fields: fields ?? new Map() };
    const list = index.arrays.get(array.array)!;
    list.push(element);
    array.valueStart = -1;
    let text: string | undefined;
    if (elementStart >= 0) {
      const from = Math.max(elementStart - base, 0);
      const bytes = Buffer.concat([...elementParts, raw.subarray(from * width, Math.max(from, lastEnd - base) * width)]).subarray(
        0,
        (lastEnd - elementStart) * width,
      );
      text = decodeText(bytes, encoding);
      elementStart = -1;
      elementParts = [];
    }
    options.onElement?.(array.array, list.length - 1, element, text);
  };
  /** A value begins at `at` in the innermost frame. */
  const beginValue = (at: number, byte: number): void => {
    const frame = stack[stack.length - 1];
    if (!frame || frame.valueStart >= 0) return;
    frame.valueStart = at;
    frame.valueFirst = byte;
    if (keeps(frame)) startKeeping(at);
    if (frame.role === Role.Indexed && options.elementText?.(frame.array, index.arrays.get(frame.array)!.length)) {
      elementStart = at;
      elementParts = [];
    }
  };

  for await (const read of unitsOf(readsOf(file, handle, size, options.readBytes ?? 1 << 20, encoding.bom), encoding)) {
    throwIfAborted(options.signal);
    const chunk = read.units;
    raw = read.raw;
    lastUnits = Buffer.from(chunk.length >= TAIL_UNITS ? chunk.subarray(chunk.length - TAIL_UNITS) : Buffer.concat([lastUnits, chunk]).subarray(-TAIL_UNITS));
    let i = 0;
    const n = chunk.length;
    if (!started) {
      started = true;
      if ((chunk[0] === 0x1f && chunk[1] === 0x8b) || (chunk[0] === 0x28 && chunk[1] === 0xb5 && chunk[2] === 0x2f && chunk[3] === 0xfd)) {
        throw new InputError(file, undefined, 'compressed (gzip or zstd): a byte index needs the plain file');
      }
    }
    while (i < n) {
      if (inString) {
        // The string ends at the next quote not escaped by an odd run of backslashes.
        let q = chunk.indexOf(QUOTE, i);
        for (;;) {
          if (q < 0) break;
          let backslashes = 0;
          while (q - 1 - backslashes >= 0 && chunk[q - 1 - backslashes] === BACKSLASH) backslashes++;
          if (backslashes === q) backslashes += carriedBackslashes;
          if (backslashes % 2 === 0) break;
          q = chunk.indexOf(QUOTE, q + 1);
        }
        if (q < 0) {
          let trailing = 0;
          while (trailing < n - i && chunk[n - 1 - trailing] === BACKSLASH) trailing++;
          carriedBackslashes = trailing === n - i ? carriedBackslashes + trailing : trailing;
          i = n;
          break;
        }
        carriedBackslashes = 0;
        inString = false;
        i = q + 1;
        lastEnd = base + i;
        const frame = stack[stack.length - 1];
        if (frame?.object && frame.expectKey && frame.key === undefined && (frame.role === Role.Root || frame.role === Role.Element)) {
          // A key past the kept size is no key the index looks for.
          const key = keptText(base + i);
          frame.key = key === undefined ? '' : (JSON.parse(key) as string);
        }
        continue;
      }
      const c = chunk[i]!;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
        i++;
        continue;
      }
      const at = base + i;
      if (at < 3 && c === UTF8_BOM[at] && stack.length === 0) {
        // A UTF-8 byte order mark, dropped as the whole-file reader drops it.
        i++;
        continue;
      }
      if (rootDone) await fail(at, 'invalid JSON: unexpected non-whitespace character after JSON');
      const frame = stack[stack.length - 1];
      if (c === QUOTE) {
        if (frame?.object && frame.expectKey) {
          if (frame.role === Role.Root || frame.role === Role.Element) startKeeping(at, KEY_BYTES);
        } else beginValue(at, c);
        inString = true;
        stringStart = at;
        carriedBackslashes = 0;
        i++;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (stack.length === 0) {
          if (c === OPEN_ARRAY && indexed.has('')) {
            index.arrays.set('', []);
            stack.push({
              object: false,
              role: Role.Indexed,
              expectKey: false,
              key: undefined,
              valueStart: -1,
              valueFirst: 0,
              array: '',
              index: 0,
              fields: undefined,
            });
            i++;
            continue;
          }
          if (c !== OPEN_OBJECT) await fail(at, 'expected a JSON object');
          stack.push({ object: true, role: Role.Root, expectKey: true, key: undefined, valueStart: -1, valueFirst: 0, array: '', index: 0, fields: undefined });
          i++;
          continue;
        }
        beginValue(at, c);
        if (stack.length + 1 > limits.maxDepth) await fail(at, `JSON nested deeper than ${limits.maxDepth} levels`);
        let role = Role.Other;
        let array = '';
        let elementIndex = 0;
        if (frame!.role === Role.Root && c === OPEN_ARRAY && indexed.has(frame!.key!)) {
          role = Role.Indexed;
          array = frame!.key!;
          index.arrays.set(array, []);
        } else if (frame!.role === Role.Indexed) {
          role = Role.Element;
          array = frame!.array;
          elementIndex = index.arrays.get(array)!.length;
        }
        stack.push({
          object: c === OPEN_OBJECT,
          role: role === Role.Element && c !== OPEN_OBJECT ? Role.Other : role,
          expectKey: c === OPEN_OBJECT,
          key: undefined,
          valueStart: -1,
          valueFirst: 0,
          array,
          index: elementIndex,
          fields: role === Role.Element ? new Map() : undefined,
        });
        i++;
        continue;
      }
      if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (!frame) await fail(at, `invalid JSON: unexpected token '${String.fromCharCode(c)}'`);
        if (frame!.object !== (c === CLOSE_OBJECT)) {
          // In V8's words, as the whole-file parser reports it.
          await fail(at, frame!.object ? "invalid JSON: expected ',' or '}' after property value" : "invalid JSON: expected ',' or ']' after array element");
        }
        if (frame!.role === Role.Indexed && frame!.valueStart >= 0) pushElement(frame!, undefined);
        else endMember(frame!);
        stack.pop();
        lastEnd = at + 1;
        const parent = stack[stack.length - 1];
        if (parent?.role === Role.Indexed) pushElement(parent, frame!.fields);
        if (stack.length === 0) rootDone = true;
        i++;
        continue;
      }
      if (!frame) await fail(at, 'expected a JSON object');
      if (c === COLON) {
        frame!.expectKey = false;
      } else if (c === COMMA) {
        if (frame!.role === Role.Indexed && frame!.valueStart >= 0) pushElement(frame!, undefined);
        else endMember(frame!);
        frame!.expectKey = frame!.object;
      } else {
        beginValue(at, c);
        lastEnd = at + 1;
      }
      i++;
    }
    if (elementStart >= 0) {
      if ((base + n - elementStart) * width > limits.maxBytes)
        await fail(elementStart, `a value larger than the ${limits.maxBytes >> 20} MiB limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`);
      elementParts.push(Buffer.from(raw.subarray(Math.max(elementStart - base, 0) * width)));
    }
    if (keptStart >= 0 && !keptDropped) {
      const piece = raw.subarray(Math.max(keptStart - base, 0) * width);
      keptBytes += piece.length / width;
      if (keptBytes > keptLimit) {
        keptDropped = true;
        keptParts = [];
      } else keptParts.push(Buffer.from(piece));
    }
    base += n;
  }
  if (!rootDone) {
    if (!started || base === 0) throw new InputError(file, undefined, 'empty file');
    if (stack.length === 0) throw new InputError(file, undefined, 'empty file: only whitespace');
    if (inString) {
      // A string that runs to the end past what can be read is named where it starts: most likely its closing quote is missing.
      const bytes = (base - stringStart) * width;
      if (bytes > MAX_STRING_UNITS) throw stringTooLong(file, await locateByte(file, stringStart), false);
      if (bytes > limits.maxBytes) {
        await fail(
          stringStart,
          `a string starts here and runs to the end of the file, ${formatBytes(bytes)} on, past the ${formatBytes(limits.maxBytes)} limit for one document (unterminated?); it cannot be read`,
        );
      }
    }
    // Where the text ends, trailing whitespace left out, as the whole-file parser says it.
    let end = lastUnits.length;
    while (end > 0 && (lastUnits[end - 1] === 0x20 || lastUnits[end - 1] === 0x0a || lastUnits[end - 1] === 0x0d || lastUnits[end - 1] === 0x09)) end--;
    await fail(base - lastUnits.length + end, 'unexpected end of JSON: the file looks truncated');
  }
  return index;
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
