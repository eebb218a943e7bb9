import { readFile } from 'node:fs/promises';
import { InputError } from '../errors';
import { parseInput } from '../trajectory/inputSchema';

/** Validates `value` against `schema`; the first issue becomes an InputError naming the file and JSON path (`parseInput`'s words). */
export const parseWithSchema = parseInput;

/** Reads a JSON file; a syntax error names the file and the position JSON.parse reported. */
export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new InputError(file, undefined, err.code === 'ENOENT' ? 'file not found' : err.message);
  });
  return parseJsonText(text, file);
}

export function parseJsonText(text: string, file: string | undefined): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `not valid JSON: ${(err as Error).message}`);
  }
}
