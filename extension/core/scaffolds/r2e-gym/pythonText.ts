/**
 * The Python behaviours R2E-Gym's runtime shows through: `str()` of a function-calling argument,
 * `shlex.quote` of each word of the command line, and `str.splitlines()` of a command's output.
 */

/** Python's `str()` of a JSON value, as R2E-Gym puts function-calling arguments on the command line. */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return pyStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`)
    .join(', ')}}`;
}

function pyFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const text = String(n);
  return /[.e]/.test(text) ? text.replace(/e([+-])(\d)$/, 'e$10$2') : `${text}.0`;
}

function pyStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/[\\\n\r\t]|[\x00-\x1f\x7f]/g, (c) =>
    c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : c === '\t' ? '\\t' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
}

/** Python's `shlex.quote`. */
export function pyShellQuote(text: string): string {
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
