/**
 * The text `str_replace_editor` shows (SWE-agent's `tools/edit_anthropic`): `cat -n` numbering,
 * the clipping of long files and the filemap of a long Python file.
 */
import { splitLines } from '../../../aci/sandboxFiles';
import { expandTabs } from '../../../parsing/pythonText';

export const MAX_RESPONSE_LEN = 16_000;

const TRUNCATED_MESSAGE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>';

export function maybeTruncate(content: string, max = MAX_RESPONSE_LEN): string {
  return content.length <= max ? content : content.slice(0, max) + TRUNCATED_MESSAGE;
}

/** `Here's the result of running \`cat -n\` on ...` with `%6d\t` numbered lines. */
export function catN(content: string, descriptor: string, initLine = 1): string {
  const numbered = expandTabs(maybeTruncate(content))
    .split('\n')
    .map((line, i) => `${String(i + initLine).padStart(6)}\t${line}`)
    .join('\n');
  return `Here's the result of running \`cat -n\` on ${descriptor}:\n${numbered}\n`;
}

/** SWE-agent's filemap: `%6d <line>` rows, bodies of five lines or more replaced by one marker row. */
export function filemap(text: string, bodies: Array<[number, number]>): string {
  const long = bodies.filter(([start, end]) => end - start >= 5);
  const elided = new Set(long.flatMap(([start, end]) => Array.from({ length: end - start + 1 }, (_, i) => start + i)));
  const rows: Array<[number, string]> = [
    ...long.map(([start, end]): [number, string] => [start, `... eliding lines ${start + 1}-${end + 1} ...`]),
    ...splitLines(text)
      .map((line, i): [number, string] => [i, line])
      .filter(([i]) => !elided.has(i)),
  ];
  rows.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return rows.map(([i, line]) => `${String(i + 1).padStart(6)} ${line}`).join('\n');
}
