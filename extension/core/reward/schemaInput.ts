import { parseJsonDocument, readJsonDocument } from '../input/jsonDocument';
import { parseInput } from '../trajectory/inputSchema';

/** Validates `value` against `schema`; the first issue becomes an InputError naming the file and JSON path (`parseInput`'s words). */
export const parseWithSchema = parseInput;

/** Reads a JSON file through the input layer: size and depth limits, gzip and zstd, errors at a line and column. */
export async function readJsonFile(file: string): Promise<unknown> {
  return (await readJsonDocument(file)).value;
}

/** One JSON text (a JSONL line) parsed with the input layer's limits and located errors. */
export function parseJsonText(text: string, file: string | undefined, firstLine = 1): unknown {
  return parseJsonDocument(text, file ?? 'input', { firstLine });
}
