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
 * Plain regular files only: a compressed file or a pipe has no byte ranges to come back to.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { InputError, throwIfAborted } from '../errors';
import { fsInputError, limitsOf, openInput, type InputLimits } from './inputSource';
import { parseJsonText } from './jsonText';

/** [start, end) in bytes of the file. */
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
   * scans a 533 MB file as fast as 8 MiB did and lets the process answer between reads: the
   * stepper's page asks for its first step while the extension host indexes the file (bench/ui/
   * stepper.ts --large-mb 500: 567-679 ms from the page's load to its first step, against
   * 857-1458 ms with 8 MiB reads, busy).
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

/** The first non-whitespace byte of a plain file, read from its head: `{` marks a JSON object the index can take. */
export async function firstByte(file: string): Promise<number | undefined> {
  const handle = await openForReading(file);
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
    while (i < bytesRead && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
    return i < bytesRead ? head[i] : undefined;
  } finally {
    await handle.close();
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
async function* readsOf(file: string, handle: FileHandle, size: number, bytes: number): AsyncGenerator<Buffer> {
  const buffers = [Buffer.allocUnsafe(Math.min(bytes, Math.max(size, 1))), Buffer.allocUnsafe(Math.min(bytes, Math.max(size, 1)))];
  // The first read is short, so the first values are seen without waiting for a whole buffer.
  const readAt = (k: number, position: number) =>
    handle.read(buffers[k % 2]!, 0, k === 0 ? Math.min(buffers[0]!.length, 1 << 20) : buffers[k % 2]!.length, position).catch((err: unknown) => {
      throw fsInputError(file, err);
    });
  let position = 0;
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
  const keptText = (chunk: Buffer, end: number): string | undefined => {
    if (keptStart < 0 || keptDropped || end - keptStart > keptLimit) {
      keptStart = -1;
      keptParts = [];
      return undefined;
    }
    // The value may have ended in an earlier read (a number before whitespace and the comma).
    const from = Math.max(keptStart - base, 0);
    const tail = chunk.subarray(from, Math.max(from, end - base));
    const text = (keptParts.length > 0 ? Buffer.concat([...keptParts, tail]) : tail).subarray(0, end - keptStart).toString('utf8');
    keptStart = -1;
    keptParts = [];
    return text;
  };
  /** Whether values in this frame are kept as text. */
  const keeps = (frame: Frame) => frame.role === Role.Element || (frame.role === Role.Root && !(frame.key !== undefined && indexed.has(frame.key)));
  /** The member value of `frame` that ended at `lastEnd`, at a comma or a closing bracket in `chunk`. */
  const endMember = (frame: Frame, chunk: Buffer): void => {
    if (frame.valueStart < 0) return;
    const range = { start: frame.valueStart, end: lastEnd, first: frame.valueFirst };
    if (frame.role === Role.Root) {
      const text = keeps(frame) ? keptText(chunk, lastEnd) : undefined;
      index.keys.set(frame.key!, text === undefined ? range : { ...range, text });
    } else if (frame.role === Role.Element) {
      const text = keptText(chunk, lastEnd);
      frame.fields!.set(frame.key!, text === undefined ? range : { ...range, text });
    }
    frame.valueStart = -1;
    frame.key = undefined;
  };
  /** An element of an indexed array ended at `lastEnd`: recorded at once, its fields with it. */
  const pushElement = (array: Frame, fields: Map<string, IndexedValue> | undefined, chunk: Buffer): void => {
    const element: IndexedElement = { start: array.valueStart, end: lastEnd, fields: fields ?? new Map() };
    const list = index.arrays.get(array.array)!;
    list.push(element);
    array.valueStart = -1;
    let text: string | undefined;
    if (elementStart >= 0) {
      const from = Math.max(elementStart - base, 0);
      text = Buffer.concat([...elementParts, chunk.subarray(from, Math.max(from, lastEnd - base))])
        .subarray(0, lastEnd - elementStart)
        .toString('utf8');
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

  for await (const chunk of readsOf(file, handle, size, options.readBytes ?? 1 << 20)) {
    throwIfAborted(options.signal);
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
          const key = keptText(chunk, base + i);
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
        if (frame!.role === Role.Indexed && frame!.valueStart >= 0) pushElement(frame!, undefined, chunk);
        else endMember(frame!, chunk);
        stack.pop();
        lastEnd = at + 1;
        const parent = stack[stack.length - 1];
        if (parent?.role === Role.Indexed) pushElement(parent, frame!.fields, chunk);
        if (stack.length === 0) rootDone = true;
        i++;
        continue;
      }
      if (!frame) await fail(at, 'expected a JSON object');
      if (c === COLON) {
        frame!.expectKey = false;
      } else if (c === COMMA) {
        if (frame!.role === Role.Indexed && frame!.valueStart >= 0) pushElement(frame!, undefined, chunk);
        else endMember(frame!, chunk);
        frame!.expectKey = frame!.object;
      } else {
        beginValue(at, c);
        lastEnd = at + 1;
      }
      i++;
    }
    if (elementStart >= 0) {
      if (base + n - elementStart > limits.maxBytes)
        await fail(elementStart, `a value larger than the ${limits.maxBytes >> 20} MiB limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`);
      elementParts.push(Buffer.from(chunk.subarray(Math.max(elementStart - base, 0))));
    }
    if (keptStart >= 0 && !keptDropped) {
      const piece = chunk.subarray(Math.max(keptStart - base, 0));
      keptBytes += piece.length;
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
    // Where the text ends, trailing whitespace left out, as the whole-file parser says it.
    const tail = await readRange(file, { start: Math.max(0, base - 4096), end: base });
    let end = tail.length;
    while (end > 0 && (tail[end - 1] === 0x20 || tail[end - 1] === 0x0a || tail[end - 1] === 0x0d || tail[end - 1] === 0x09)) end--;
    await fail(base - tail.length + end, 'unexpected end of JSON: the file looks truncated');
  }
  return index;
}

/** `line L, column C` of byte `offset` of `file` (the column counted in characters, as the parser's errors count it). */
async function locateByte(file: string, offset: number): Promise<string> {
  const source = await openInput(file, { start: 0 });
  let line = 1;
  let lineStart = 0;
  let base = 0;
  for await (const chunk of source.chunks) {
    const stop = Math.min(chunk.length, offset - base);
    for (let nl = chunk.indexOf(0x0a); nl !== -1 && nl < stop; nl = chunk.indexOf(0x0a, nl + 1)) {
      line++;
      lineStart = base + nl + 1;
    }
    base += chunk.length;
    if (base >= offset) break;
  }
  const head = await readRange(file, { start: lineStart, end: Math.max(lineStart, offset) });
  let text = head.toString('utf8');
  if (lineStart === 0 && text.startsWith('\uFEFF')) text = text.slice(1);
  return `line ${line}, column ${text.length + 1}`;
}

/** The bytes of `range` of `file`. */
async function readRange(file: string, range: ByteRange): Promise<Buffer> {
  const handle = await openForReading(file);
  try {
    const out = Buffer.allocUnsafe(range.end - range.start);
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await handle.read(out, done, out.length - done, range.start + done);
      if (bytesRead === 0) throw new InputError(file, undefined, 'the file changed while it was read: it is shorter than its index');
      done += bytesRead;
    }
    return out;
  } finally {
    await handle.close();
  }
}

/**
 * The JSON value at `range` of `file` (or its kept text), parsed; a value larger than the
 * one-document limit is refused, and a fault inside it is located in the file.
 */
export async function readJsonRange(file: string, value: ByteRange & { text?: string }, options: { limits?: Partial<InputLimits> } = {}): Promise<unknown> {
  const { maxBytes } = limitsOf(options);
  if (value.end - value.start > maxBytes) {
    throw new InputError(
      file,
      await locateByte(file, value.start),
      `a value larger than the ${maxBytes >> 20} MiB limit for one document (set SWE_WORKBENCH_MAX_INPUT_MB to raise it)`,
    );
  }
  const text = value.text ?? (await readRange(file, value)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    // Located again from the value's place in the file: padded to its column, numbered from its line.
    const where = /^line (\d+), column (\d+)$/.exec(await locateByte(file, value.start))!;
    return parseJsonText(' '.repeat(Number(where[2]) - 1) + text, file, Number(where[1]));
  }
}
