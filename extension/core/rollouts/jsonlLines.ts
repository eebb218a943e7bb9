import { inputLines, lineTooLong, type InputLine } from '../input/readInput';

export type JsonlLine = Pick<InputLine, 'line' | 'text' | 'end' | 'terminated'>;

/**
 * Streams a JSONL file (gzip or zstd read transparently) from byte `start` (a line start),
 * line by line, with byte offsets so a later read can resume where this one stopped; a line
 * over the input limit is an error naming it.
 */
export async function* jsonlLines(file: string, start: number, firstLine: number, signal?: AbortSignal): AsyncGenerator<JsonlLine> {
  for await (const l of inputLines(file, { start, firstLine, ...(signal ? { signal } : {}) })) {
    if (l.tooLong) throw lineTooLong(file, l.line);
    yield l;
  }
}
