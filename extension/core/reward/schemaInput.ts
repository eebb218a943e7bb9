import type { z } from 'zod';
import { InputError, jsonPath } from '../errors';
import { parseJsonDocument, readJsonDocument } from '../input/jsonDocument';
import { outOfRangeNumber } from '../trajectory/inputSchema';

/** Validates `value` against `schema`; the first issue becomes an InputError naming the file and JSON path. */
export function parseWithSchema<S extends z.ZodType>(schema: S, value0: unknown, file: string | undefined, prefix: ReadonlyArray<string | number> = []): z.output<S> {
  const result = schema.safeParse(value0);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = [...prefix, ...(issue?.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p))];
  let value: unknown = value0;
  for (const key of issue?.path ?? []) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  throw new InputError(file, jsonPath(path), outOfRangeNumber(value) ?? issue?.message ?? 'invalid value');
}

/** Reads a JSON file through the input layer: size and depth limits, gzip and zstd, errors at a line and column. */
export async function readJsonFile(file: string): Promise<unknown> {
  return (await readJsonDocument(file)).value;
}

/** One JSON text (a JSONL line) parsed with the input layer's limits and located errors. */
export function parseJsonText(text: string, file: string | undefined, firstLine = 1): unknown {
  return parseJsonDocument(text, file ?? 'input', { firstLine });
}
