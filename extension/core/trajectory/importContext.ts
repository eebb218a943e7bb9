import type { SourceRef } from './model';
import { jsonPointer } from '../input/jsonText';

/** Where the value being imported came from: its file, its place in it, and its JSONL line. */
export interface ImportContext {
  file: string;
  /** Path of the imported value inside the parsed file (empty for the whole file). */
  base: ReadonlyArray<string | number>;
  /** 1-based line of the JSONL record. */
  line?: number;
  /** For a JSONL file read whole as one list (a format's `wholeJsonl`): the 1-based line of each element. */
  lines?: readonly number[];
  /** For a format whose recordings are trees (`TrajectoryFormatDefinition.branches`): the branch to read, by the id its last event has. */
  branch?: string;
}

export function sourceRef(ctx: ImportContext, ...paths: ReadonlyArray<ReadonlyArray<string | number>>): SourceRef {
  const pointers = paths.map((p) => jsonPointer([...ctx.base, ...p]));
  return ctx.line === undefined ? { pointers } : { pointers, line: ctx.line };
}

export { defined } from '../defined';
