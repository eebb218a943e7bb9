import { InputError } from '../errors';
import { parseJsonText } from './jsonText';
import { limitsOf, type Compression, type InputLimits } from './inputSource';
import { readInputText, type ReadOptions } from './readInput';

/**
 * Refuses JSON nested deeper than `maxDepth` before anything recursive (V8's error path, zod,
 * the importers) walks it, naming the line and column where the limit is passed. One pass over
 * the text; strings, most of a trajectory, are jumped over with `indexOf`, and lines are counted
 * only for the error.
 */
export function assertJsonDepth(text: string, file: string, maxDepth: number, firstLine = 1): void {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // The string ends at the next quote not escaped by an odd run of backslashes.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return; // an unterminated string: JSON.parse names it
        let backslashes = 0;
        while (text.charCodeAt(i - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new InputError(file, lineAndColumn(text, i, firstLine), `JSON nested deeper than ${maxDepth} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** `line L, column C` of a UTF-16 offset, the first line numbered `firstLine`. */
function lineAndColumn(text: string, offset: number, firstLine: number): string {
  let line = firstLine;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

/** JSON text to a value: the depth limit first, then a parse whose errors carry line and column. */
export function parseJsonDocument(text: string, file: string, options: { firstLine?: number; limits?: Partial<InputLimits> } = {}): unknown {
  assertJsonDepth(text, file, limitsOf(options).maxDepth, options.firstLine);
  return parseJsonText(text, file, options.firstLine);
}

export interface JsonDocument {
  value: unknown;
  /** The text it was parsed from: a caller that falls back to JSONL reads it again. */
  text: string;
  compression: Compression;
}

/** Reads and parses one JSON file through the input layer. */
export async function readJsonDocument(file: string, options: ReadOptions = {}): Promise<JsonDocument> {
  const { text, compression } = await readInputText(file, options);
  if (text.trim() === '') throw new InputError(file, undefined, text === '' ? 'empty file' : 'empty file: only whitespace');
  return { value: parseJsonDocument(text, file, options), text, compression };
}
