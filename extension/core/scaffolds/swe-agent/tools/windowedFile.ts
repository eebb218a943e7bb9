/**
 * The windowed viewer's arithmetic, reproducing SWE-agent's `WindowedFile` to the character:
 * the line count is Python's `splitlines()` (a final newline adds no line) while the shown lines
 * come from `split("\n")`, and the first line is clamped against the current file every time.
 */
import { splitLines } from '../../../aci/sandboxFiles';

export function countLines(text: string): number {
  return splitLines(text).length;
}

/**
 * `first_line` as SWE-agent's setter stores it: truncated toward zero, then clamped to
 * `n_lines - window - endSlack` (`endSlack` 1 up to SWE-agent 1.1.0, see `SweAgentDialect`).
 */
export function clampFirstLine(value: number, nLines: number, window: number, endSlack = 0): number {
  return Math.max(0, Math.min(Math.trunc(value), nLines - window - endSlack));
}

/** The first line that puts 0-based `line` about a sixth of a window down (`goto`, `open`). */
export function firstLineFor(line: number, nLines: number, window: number, endSlack = 0): number {
  return clampFirstLine(line - window / 6, nLines, window, endSlack);
}

/** The first line after scrolling by a window (`scroll_down` > 0, `scroll_up` < 0). */
export function scrolledFirstLine(firstLine: number, direction: 1 | -1, nLines: number, window: number, overlap: number, endSlack = 0): number {
  return clampFirstLine(firstLine + direction * (window - overlap), nLines, window, endSlack);
}

/**
 * The file as the window reads it: the line count (`splitlines()`) and 0-based lines of
 * `split("\n")`, undefined past its end (which comes before `nLines` when other breaks count).
 * A whole text, or the few lines a window needs (`toolFiles.fetchLines`).
 */
export interface WindowLines {
  readonly nLines: number;
  line(index: number): string | undefined;
}

export function linesOfText(text: string): WindowLines {
  const lines = text.split('\n');
  return { nLines: countLines(text), line: (i) => lines[i] };
}

/** `[File: ...]`, `(K more lines above)`, numbered lines, `(M more lines below)`. */
export function renderWindow(text: string | WindowLines, displayPath: string, firstLine: number, window: number): string {
  const file = typeof text === 'string' ? linesOfText(text) : text;
  const nLines = file.nLines;
  const start = firstLine;
  const end = Math.min(firstLine + window - 1, nLines - 1);
  const out = [`[File: ${displayPath} (${nLines} lines total)]`];
  if (start > 0) out.push(`(${start} more lines above)`);
  for (let i = start; i <= end; i++) {
    const line = file.line(i);
    if (line === undefined) break;
    out.push(`${i + 1}:${line}`);
  }
  if (end < nLines - 1) out.push(`(${nLines - end - 1} more lines below)`);
  return out.join('\n');
}

/** Replaces 0-based lines start..end (inclusive) by `replacement` (no lines when it is empty). */
export function replaceLines(text: string, start: number, end: number, replacement: string): string {
  const lines = text.split('\n');
  // Python slice assignment `lines[start:end + 1] = new`, negative indices included.
  const index = (i: number) => Math.min(lines.length, Math.max(0, i < 0 ? i + lines.length : i));
  const from = index(start);
  const to = Math.max(from, index(end + 1));
  lines.splice(from, to - from, ...(replacement === '' ? [] : replacement.split('\n')));
  return lines.join('\n');
}
