import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { InputError, jsonPath } from '../errors';

/** Validates `value` against `schema`; the first issue becomes an InputError naming the file and JSON path. */
export function parseWithSchema<S extends z.ZodType>(schema: S, value: unknown, file: string | undefined, prefix: ReadonlyArray<string | number> = []): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...prefix, ...(issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))];
  throw new InputError(file, jsonPath(path), issue?.message ?? 'invalid value');
}

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
