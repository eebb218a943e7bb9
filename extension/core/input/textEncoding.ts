/**
 * The text encodings a file may declare with a byte order mark, and the limit of the JavaScript
 * engine on one string. UTF-16 (PowerShell's `Out-File` writes UTF-16 LE with a BOM) and UTF-32
 * are decoded here, a chunk at a time; a file without a BOM is UTF-8. Node decodes UTF-8 and
 * UTF-16 LE itself; UTF-16 BE is swapped to LE, and UTF-32, which neither Node nor the Encoding
 * standard knows, is read code point by code point.
 */
import { constants } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be';

export interface TextEncoding {
  name: TextEncodingName;
  /** Bytes of the byte order mark to skip (0 for UTF-8: its optional BOM is dropped from the text, where it always was). */
  bom: number;
  /** Bytes per code unit. */
  width: 1 | 2 | 4;
}

export const UTF8: TextEncoding = { name: 'utf-8', bom: 0, width: 1 };

/** The encoding the first bytes declare; UTF-32 LE's mark starts like UTF-16 LE's, so it is tried first. */
export function textEncodingOf(head: Uint8Array): TextEncoding {
  const [a, b, c, d] = head;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { name: 'utf-32le', bom: 4, width: 4 };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { name: 'utf-32be', bom: 4, width: 4 };
  if (a === 0xff && b === 0xfe) return { name: 'utf-16le', bom: 2, width: 2 };
  if (a === 0xfe && b === 0xff) return { name: 'utf-16be', bom: 2, width: 2 };
  return UTF8;
}

/** The longest string the engine makes, in UTF-16 code units (V8 on 64 bits: 2^29 - 24, about 512 MiB). */
export const MAX_STRING_UNITS = constants.MAX_STRING_LENGTH;

/** "512 MiB" */
export const MAX_STRING_TEXT = `${Math.round(MAX_STRING_UNITS / (1 << 20))} MiB`;

/** Whether `err` is the engine refusing to make a string that long. */
function isStringTooLong(err: unknown): boolean {
  return (err as NodeJS.ErrnoException)?.code === 'ERR_STRING_TOO_LONG' || (err instanceof RangeError && /Invalid string length/.test(err.message));
}

/**
 * A streaming decoder: `write` takes any cut of the bytes (a code unit or a surrogate pair may
 * straddle two chunks) and gives the text complete so far; `end` the rest. A byte sequence
 * that is no character becomes U+FFFD.
 */
export class ChunkDecoder {
  private readonly decoder: StringDecoder;
  private carry: Buffer = Buffer.alloc(0);

  constructor(readonly encoding: TextEncoding) {
    this.decoder = new StringDecoder(encoding.name === 'utf-8' ? 'utf8' : 'utf16le');
  }

  write(chunk: Uint8Array): string {
    const { name, width } = this.encoding;
    if (width === 1 || name === 'utf-16le') return this.decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    const bytes = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const whole = bytes.length - (bytes.length % width);
    this.carry = Buffer.from(bytes.subarray(whole));
    if (name === 'utf-16be') return this.decoder.write(Buffer.from(bytes.subarray(0, whole)).swap16());
    return codePoints(bytes.subarray(0, whole), name === 'utf-32le');
  }

  end(): string {
    const rest = this.encoding.width === 4 ? '' : this.decoder.end();
    const cut = this.carry.length > 0 ? '\uFFFD' : '';
    this.carry = Buffer.alloc(0);
    return rest + cut;
  }
}

/** UTF-32 code units as text, a batch of code points at a time. */
function codePoints(bytes: Buffer, little: boolean): string {
  const parts: string[] = [];
  const batch: number[] = [];
  for (let i = 0; i < bytes.length; i += 4) {
    const cp = little ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i);
    batch.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
    if (batch.length === 8192) {
      parts.push(String.fromCodePoint(...batch));
      batch.length = 0;
    }
  }
  if (batch.length > 0) parts.push(String.fromCodePoint(...batch));
  return parts.join('');
}

/** All of `bytes` (no BOM) as text, or undefined when the text is longer than the engine can hold in one string. */
export function decodeText(bytes: Uint8Array, encoding: TextEncoding): string | undefined {
  try {
    if (encoding.width === 1) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    const decoder = new ChunkDecoder(encoding);
    return decoder.write(bytes) + decoder.end();
  } catch (err) {
    if (isStringTooLong(err)) return undefined;
    throw err;
  }
}

/** Transcodes a stream in `encoding` (its BOM already skipped) to UTF-8, chunk by chunk. */
export async function* toUtf8(chunks: AsyncIterable<Buffer>, encoding: TextEncoding): AsyncGenerator<Buffer> {
  const decoder = new ChunkDecoder(encoding);
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    if (text !== '') yield Buffer.from(text, 'utf8');
  }
  const rest = decoder.end();
  if (rest !== '') yield Buffer.from(rest, 'utf8');
}
