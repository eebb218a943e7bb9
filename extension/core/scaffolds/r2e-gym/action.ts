/**
 * R2E-Gym's actions: how its agent reads `<function=NAME><parameter=K>V</parameter></function>`
 * from a reply, writes it back into the trajectory, and turns it into the command line its
 * runtime runs (`Action.from_string`, `to_xml_string`, `to_bashcmd` at 69bc953).
 */

import { pyStr, shlexQuote } from '../../parsing/pythonText';

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
  const words = [shlexQuote(action.name)];
  const command = action.parameters.command;
  if (command !== undefined && command !== null) words.push(shlexQuote(pyStr(command)));
  for (const [key, value] of Object.entries(action.parameters)) {
    if (key !== 'command') words.push(`--${key}`, shlexQuote(pyStr(value)));
  }
  return words.join(' ');
}
