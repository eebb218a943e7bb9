/**
 * Python's text behaviours that the agents' tools and runtimes show the model, in one place for
 * every family: `repr()` and `str()` of a value, `str(float)`, `shlex.quote`, `str.strip()`,
 * `str.splitlines()` and `str.expandtabs()`. Strings are walked by code point, as Python does.
 */

/** Python's `str.isspace` characters: what `str.strip()` removes. */
const PY_SPACE =
  ' \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PY_SPACE.includes(text[start]!)) start++;
  while (end > start && PY_SPACE.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/** Python's `repr()` of a `str`. */
export function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (!isPrintable(ch, code))
      out +=
        code <= 0xff
          ? `\\x${code.toString(16).padStart(2, '0')}`
          : code <= 0xffff
            ? `\\u${code.toString(16).padStart(4, '0')}`
            : `\\U${code.toString(16).padStart(8, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's `str.isprintable` for one character, close enough: separators and other non-graphic code points are escaped. */
function isPrintable(ch: string, code: number): boolean {
  if (code === 0x20) return true;
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return false;
  return !/[\p{Z}\p{C}]/u.test(ch);
}

/** Python's `str()` of a JSON value (`True`, `None`, `{'a': 1}`; a string as it is). */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyReprValue(value);
}

function pyReprValue(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyReprValue).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pyRepr(k)}: ${pyReprValue(v)}`)
    .join(', ')}}`;
}

/**
 * Python's `str(float)`: `180.0`, `0.5`, `1e-07`, `1e+16`, `inf`, `nan`. The shortest digits that
 * read back as the value (JavaScript's and Python's agree), written in exponent form when the
 * exponent is below -4 or at least 16, as Python's `repr` does (JavaScript waits until 21).
 */
export function pyFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const [mantissa, exp] = Math.abs(value).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exp);
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  if (exponent < -4 || exponent >= 16) {
    const rest = digits.slice(1);
    return `${sign}${digits[0]}${rest ? `.${rest}` : ''}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}.${fraction || '0'}`;
}

/** Python's `shlex.quote`. */
export function shlexQuote(text: string): string {
  if (text === '') return "''";
  if (!/[^\w@%+=:,./-]/.test(text)) return text;
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

/** Python's `str.splitlines()` (no line ends kept). */
export function pySplitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Python's `str.expandtabs()` (tab stops every `size` columns, counted from each line start). */
export function expandTabs(text: string, size = 8): string {
  let column = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '\t') {
      const spaces = size - (column % size);
      out += ' '.repeat(spaces);
      column += spaces;
    } else {
      out += ch;
      column = ch === '\n' || ch === '\r' ? 0 : column + 1;
    }
  }
  return out;
}
