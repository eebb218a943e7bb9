/**
 * R2E-Gym's actions: how its agent reads `<function=NAME><parameter=K>V</parameter></function>`
 * from a reply, writes it back into the trajectory, and turns it into the command line its
 * runtime runs (`Action.from_string`, `to_xml_string`, `to_bashcmd` at 69bc953).
 */

export interface R2eAction {
  /** Empty when the reply held no call. */
  name: string;
  parameters: Record<string, unknown>;
}

const CALL = /<function=[\s\S]*?<\/function>/;
const NAME = /<function\s*=\s*([^>]+)>/;
const PARAMETER = /<parameter\s*=\s*([^>]+)>([\s\S]*?)<\/parameter>/g;

/** Python's `str.strip()` whitespace. */
const PY_SPACE = '[\\s\\x1c-\\x1f\\x85]';
const STRIP = new RegExp(`^${PY_SPACE}+|${PY_SPACE}+$`, 'g');
const pyStrip = (text: string) => text.replace(STRIP, '');

/** Parameters are stripped of surrounding whitespace (so `create` writes no final newline); a repeated one keeps its last value. */
export function parseR2eAction(text: string): R2eAction {
  const name = NAME.exec(text)?.[1];
  const parameters: Record<string, unknown> = {};
  for (const [, key, value] of text.matchAll(PARAMETER)) parameters[pyStrip(key!)] = pyStrip(value!);
  return { name: name === undefined ? '' : pyStrip(name), parameters };
}

/** The agent's split of a reply: the first call is the action, the text before it the thought, both stripped. */
export function splitR2eReply(text: string): { thought: string; action: string } {
  const match = CALL.exec(text);
  if (!match) return { thought: pyStrip(text), action: '' };
  return { thought: pyStrip(text.slice(0, match.index)), action: pyStrip(match[0]) };
}

/** The action as R2E-Gym records it in `trajectory_steps[].action`. */
export function r2eActionText(action: R2eAction): string {
  const lines = Object.entries(action.parameters).map(([k, v]) => `  <parameter=${k}>${pyStr(v)}</parameter>\n`);
  return `<function=${action.name}>\n${lines.join('')}</function>`;
}

/** Python's `str()` of a JSON value, as R2E-Gym puts function-calling arguments on the command line. @internal */
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

/** Python's `shlex.quote`. @internal */
export function pyShellQuote(text: string): string {
  if (text === '') return "''";
  if (!/[^\w@%+=:,./-]/.test(text)) return text;
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}

/**
 * The words the shell hands the tool for `r2eCommandLine(action)`, unquoted; undefined for
 * `finish`, for a parameter name the shell would read as more than a word and for a NUL byte.
 */
export function r2eArgv(action: R2eAction): string[] | undefined {
  if (action.name === 'finish') return undefined;
  const words: string[] = [];
  const command = action.parameters.command;
  if (command !== undefined && command !== null) words.push(pyStr(command));
  for (const [key, value] of Object.entries(action.parameters)) {
    if (key === 'command') continue;
    if (!/^[\w.-]+$/.test(key)) return undefined;
    words.push(`--${key}`, pyStr(value));
  }
  return words.some((w) => w.includes('\0')) ? undefined : words;
}

/** The command line R2E-Gym's runtime runs for an action (`finish` only echoes). */
export function r2eCommandLine(action: R2eAction): string {
  if (action.name === 'finish') return "echo '<<<Finished>>>'";
  const words = [pyShellQuote(action.name)];
  const command = action.parameters.command;
  if (command !== undefined && command !== null) words.push(pyShellQuote(pyStr(command)));
  for (const [key, value] of Object.entries(action.parameters)) {
    if (key !== 'command') words.push(`--${key}`, pyShellQuote(pyStr(value)));
  }
  return words.join(' ');
}
