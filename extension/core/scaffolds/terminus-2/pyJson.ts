/**
 * The Python behaviours only Terminus-2's reply parsers show the model: `json.loads` with its error
 * messages (CPython 3.11/3.12's C scanner: "Expecting ',' delimiter: line 1 column 5 (char 4)";
 * 3.13 words a trailing comma "Illegal trailing comma before end of object") and truthiness.
 * Positions count code points, as Python does. The text behaviours every family shares are in
 * `core/parsing/pythonText.ts`.
 */

/** A JSON value as `json.loads` gives it (objects keep their keys in order; NaN and Infinity are accepted). */
export type PyJson = null | boolean | number | string | PyJson[] | { [key: string]: PyJson };

const WS = ' \t\n\r';

class DecodeError extends Error {
  constructor(
    readonly msg: string,
    readonly pos: number,
  ) {
    super(msg);
  }
}

/** `json.loads(text)`: the value, or the error text `str(JSONDecodeError)` gives. */
export function pyJsonLoads(text: string): { value: PyJson } | { error: string } {
  const s = Array.from(text);
  try {
    let end = skipWs(s, 0);
    const [value, after] = scanOnce(s, end);
    end = skipWs(s, after);
    if (end !== s.length) throw new DecodeError('Extra data', end);
    return { value };
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    const before = s.slice(0, err.pos);
    const line = before.filter((c) => c === '\n').length + 1;
    const column = line === 1 ? err.pos + 1 : err.pos - before.lastIndexOf('\n');
    return { error: `${err.msg}: line ${line} column ${column} (char ${err.pos})` };
  }
}

function skipWs(s: string[], i: number): number {
  while (i < s.length && WS.includes(s[i]!)) i++;
  return i;
}

function at(s: string[], i: number, word: string): boolean {
  return s.slice(i, i + word.length).join('') === word;
}

/** Stops with "Expecting value" at `i` when no value starts there (the scanner's StopIteration). */
function scanOnce(s: string[], i: number): [PyJson, number] {
  const c = s[i];
  if (c === undefined) throw new DecodeError('Expecting value', i);
  if (c === '"') return scanString(s, i + 1);
  if (c === '{') return scanObject(s, i + 1);
  if (c === '[') return scanArray(s, i + 1);
  if (c === 'n' && at(s, i, 'null')) return [null, i + 4];
  if (c === 't' && at(s, i, 'true')) return [true, i + 4];
  if (c === 'f' && at(s, i, 'false')) return [false, i + 5];
  if (c === 'N' && at(s, i, 'NaN')) return [NaN, i + 3];
  if (c === 'I' && at(s, i, 'Infinity')) return [Infinity, i + 8];
  if (c === '-' && at(s, i, '-Infinity')) return [-Infinity, i + 9];
  const number = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/.exec(s.slice(i, i + 400).join(''));
  if (number) return [Number(number[0]), i + number[0].length];
  throw new DecodeError('Expecting value', i);
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

function scanString(s: string[], end: number): [string, number] {
  const begin = end - 1;
  let out = '';
  for (;;) {
    let i = end;
    while (i < s.length && s[i] !== '"' && s[i] !== '\\' && s[i]!.codePointAt(0)! > 0x1f) i++;
    if (i >= s.length) throw new DecodeError('Unterminated string starting at', begin);
    out += s.slice(end, i).join('');
    const terminator = s[i]!;
    if (terminator === '"') return [out, i + 1];
    if (terminator !== '\\') throw new DecodeError('Invalid control character at', i);
    const esc = s[i + 1];
    if (esc === undefined) throw new DecodeError('Unterminated string starting at', begin);
    if (esc !== 'u') {
      const decoded = ESCAPES[esc];
      if (decoded === undefined) throw new DecodeError('Invalid \\escape', i);
      out += decoded;
      end = i + 2;
      continue;
    }
    const hex = s.slice(i + 2, i + 6).join('');
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new DecodeError('Invalid \\uXXXX escape', i + 1);
    let code = parseInt(hex, 16);
    end = i + 6;
    if (code >= 0xd800 && code <= 0xdbff && s[end] === '\\' && s[end + 1] === 'u') {
      const low = s.slice(end + 2, end + 6).join('');
      if (!/^[0-9a-fA-F]{4}$/.test(low)) throw new DecodeError('Invalid \\uXXXX escape', end + 1);
      const lowCode = parseInt(low, 16);
      if (lowCode >= 0xdc00 && lowCode <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (lowCode - 0xdc00);
        end += 6;
      }
    }
    out += String.fromCodePoint(code);
  }
}

function scanObject(s: string[], end: number): [PyJson, number] {
  const obj: { [key: string]: PyJson } = {};
  let next = s[end];
  if (next !== '"') {
    end = skipWs(s, end);
    next = s[end];
    if (next === '}') return [obj, end + 1];
    if (next !== '"') throw new DecodeError('Expecting property name enclosed in double quotes', end);
  }
  end += 1;
  for (;;) {
    const [key, afterKey] = scanString(s, end);
    end = afterKey;
    if (s[end] !== ':') {
      end = skipWs(s, end);
      if (s[end] !== ':') throw new DecodeError("Expecting ':' delimiter", end);
    }
    end = skipWs(s, end + 1);
    const [value, afterValue] = scanOnce(s, end);
    obj[key] = value;
    end = skipWs(s, afterValue);
    next = s[end];
    end += 1;
    if (next === '}') return [obj, end];
    if (next !== ',') throw new DecodeError("Expecting ',' delimiter", end - 1);
    end = skipWs(s, end);
    next = s[end];
    end += 1;
    if (next !== '"') throw new DecodeError('Expecting property name enclosed in double quotes', end - 1);
  }
}

function scanArray(s: string[], end: number): [PyJson, number] {
  const values: PyJson[] = [];
  end = skipWs(s, end);
  if (s[end] === ']') return [values, end + 1];
  for (;;) {
    const [value, after] = scanOnce(s, end);
    values.push(value);
    end = skipWs(s, after);
    const next = s[end];
    end += 1;
    if (next === ']') return [values, end];
    if (next !== ',') throw new DecodeError("Expecting ',' delimiter", end - 1);
    end = skipWs(s, end);
  }
}

/** Python's truthiness of a JSON value. */
export function pyTruthy(value: PyJson | undefined): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}
