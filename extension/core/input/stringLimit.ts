/**
 * Text the JavaScript engine cannot hold in one string, said in the reader's words: which string
 * runs too long and where it starts, or how much text there is, never V8's own message.
 */
import { InputError } from '../errors';
import { formatBytes } from './inputSource';
import { MAX_STRING_TEXT, MAX_STRING_UNITS } from './textEncoding';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first JSON string in `bytes` (UTF-8 JSON text) longer than `limit` bytes (UTF-8 has at
 * least a byte per UTF-16 code unit, so only such a string can pass the engine's limit alone):
 * where its quote is, and whether it is closed.
 */
export function longString(bytes: Uint8Array, limit = MAX_STRING_UNITS): { at: number; closed: boolean } | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let open = buf.indexOf(QUOTE); open >= 0;) {
    let close = open;
    for (;;) {
      close = buf.indexOf(QUOTE, close + 1);
      if (close < 0) return buf.length - open > limit ? { at: open, closed: false } : undefined;
      let backslashes = 0;
      while (buf[close - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    if (close - open > limit) return { at: open, closed: true };
    open = buf.indexOf(QUOTE, close + 1);
  }
  return undefined;
}

/** `line L, column C` of byte `at` of UTF-8 `bytes`, the column in UTF-16 code units as the parser counts it, without decoding the text. */
function utf8LineColumn(bytes: Uint8Array, at: number, firstLine = 1): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let line = firstLine;
  let lineStart = 0;
  for (let nl = buf.indexOf(0x0a); nl >= 0 && nl < at; nl = buf.indexOf(0x0a, nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  if (lineStart === 0 && firstLine === 1 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) lineStart = 3;
  let column = 1;
  for (let i = lineStart; i < at; i++) {
    const b = buf[i]!;
    // A lead byte starts a character; one of four bytes is a surrogate pair in UTF-16.
    if ((b & 0xc0) !== 0x80) column += b >= 0xf0 ? 2 : 1;
  }
  return `line ${line}, column ${column}`;
}

/** Why a string starting at `where` cannot be read. */
export function stringTooLong(file: string, where: string, closed: boolean): InputError {
  return new InputError(
    file,
    where,
    `a string starts here and runs past ${MAX_STRING_TEXT}${closed ? '' : ' (unterminated?)'}, more than the JavaScript engine holds in one string; it cannot be read`,
  );
}

/**
 * The error for UTF-8 text (a file, or line `firstLine` of one) the engine refused to make one
 * string of: at the string that runs too long when the text is JSON and has one, else the size.
 */
export function textTooLong(file: string, bytes: Uint8Array, firstLine?: number): InputError {
  let first = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[first] === 0x20 || bytes[first] === 0x0a || bytes[first] === 0x0d || bytes[first] === 0x09) first++;
  const json = bytes[first] === 0x7b || bytes[first] === 0x5b;
  const long = json ? longString(bytes, MAX_STRING_UNITS) : undefined;
  if (long) return stringTooLong(file, utf8LineColumn(bytes, long.at, firstLine), long.closed);
  return new InputError(
    file,
    firstLine === undefined ? undefined : `line ${firstLine}`,
    `${formatBytes(bytes.length)} of text, more than the ${MAX_STRING_TEXT} the JavaScript engine holds in one string; it cannot be read whole`,
  );
}
