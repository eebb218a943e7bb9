/**
 * Splits a command line into words the way a POSIX shell would (single quotes literal, double
 * quotes with backslash escapes, backslash outside quotes), and tells whether the text holds
 * more than one simple command (an unquoted newline or an operator such as `&&`, `|`, `;`, `>`),
 * in which case an agent meant it for the shell, not for one tool.
 */

interface ShellWords {
  words: string[];
  /** An unquoted newline or shell operator appeared between words. */
  compound: boolean;
}

export type ShellWordsResult = ShellWords | { error: string };

const OPERATOR_CHARS = new Set([';', '&', '|', '<', '>', '(', ')', '`', '\n']);
const DOUBLE_QUOTE_ESCAPABLE = new Set(['"', '\\', '$', '`', '\n']);

export function splitShellWords(text: string): ShellWordsResult {
  const words: string[] = [];
  let compound = false;
  let word: string | null = null;
  let i = 0;
  const push = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return { error: `unterminated single quote at offset ${i}` };
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const read = readDoubleQuoted(text, i + 1);
      if ('error' in read) return { error: `${read.error} at offset ${i}` };
      word = (word ?? '') + read.value;
      i = read.end + 1;
    } else if (c === '\\') {
      if (text[i + 1] === '\n') i += 2;
      else {
        word = (word ?? '') + (text[i + 1] ?? '');
        i += 2;
      }
    } else if (c === ' ' || c === '\t' || c === '\r') {
      push();
      i++;
    } else if (OPERATOR_CHARS.has(c) || (c === '$' && text[i + 1] === '(')) {
      push();
      if (c !== '\n' || words.length > 0) compound = compound || text.slice(i).trim().length > 0;
      i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  push();
  return { words, compound };
}

function readDoubleQuoted(text: string, start: number): { value: string; end: number } | { error: string } {
  let value = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') return { value, end: i };
    if (c === '\\' && i + 1 < text.length && DOUBLE_QUOTE_ESCAPABLE.has(text[i + 1] as string)) {
      if (text[i + 1] !== '\n') value += text[i + 1];
      i++;
    } else value += c;
  }
  return { error: 'unterminated double quote' };
}

/** Quotes a string for a POSIX shell so that it reads back as exactly one word. */
export function shellQuote(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
