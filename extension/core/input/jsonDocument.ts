import { InputError } from '../errors';
import { parseJsonText } from './jsonText';
import { limitsOf, type Compression, type InputLimits } from './inputSource';
import { readInputText, type ReadOptions } from './readInput';

/**
 * Refuses JSON nested deeper than `maxDepth` before anything recursive (V8's error path, zod,
 * the importers) walks it, naming the line and column where the limit is passed. One pass over
 * the text, strings skipped.
 */
export function assertJsonDepth(text: string, file: string, maxDepth: number, firstLine = 1): void {
  let depth = 0;
  let line = firstLine;
  let lineStart = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: to the next quote not escaped.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
        else if (d === 0x0a) {
          line++;
          lineStart = i + 1;
        }
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) throw new InputError(file, `line ${line}, column ${i - lineStart + 1}`, `JSON nested deeper than ${maxDepth} levels`);
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
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
