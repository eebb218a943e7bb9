import { createReadStream } from 'node:fs';
import { throwIfAborted } from '../errors';

export interface JsonlLine {
  /** 1-based. */
  line: number;
  text: string;
  /** Byte offset just past this line's newline (or the end of the file for an unterminated last line). */
  end: number;
  terminated: boolean;
}

/**
 * Streams a JSONL file from byte `start` (a line start), line by line, with byte offsets so
 * a later read can resume where this one stopped. Lines are split on raw bytes: a multi-byte
 * character never straddles a newline in UTF-8, so decoding each line alone is exact.
 */
export async function* jsonlLines(file: string, start: number, firstLine: number, signal?: AbortSignal): AsyncGenerator<JsonlLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let offset = start;
  let line = firstLine;
  // 8 MiB reads: most run files arrive in one or two reads, and memory stays bounded for huge ones.
  for await (const chunk of createReadStream(file, { start, highWaterMark: 8 << 20 }) as AsyncIterable<Buffer>) {
    throwIfAborted(signal);
    let from = 0;
    for (let nl = chunk.indexOf(10, from); nl !== -1; nl = chunk.indexOf(10, from)) {
      const piece = chunk.subarray(from, nl);
      const bytes = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
      offset += bytes.length + 1;
      pending = [];
      pendingBytes = 0;
      yield { line: line++, text: bytes.toString('utf8'), end: offset, terminated: true };
      from = nl + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.subarray(from));
      pendingBytes += chunk.length - from;
    }
  }
  if (pendingBytes > 0) yield { line, text: Buffer.concat(pending).toString('utf8'), end: offset + pendingBytes, terminated: false };
}
