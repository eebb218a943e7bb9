/**
 * OpenHands' `read` action: the `view` command of its editor (openhands-aci `OHEditor.view`),
 * for folders (two levels, hidden entries left out and counted) and text files (whole, or a
 * line range), with its error wording (`ERROR:\nInvalid \`path\` parameter: ...`).
 */
import { randomBytes } from 'node:crypto';
import { shellQuote } from '../../parsing/shellWords';
import type { ToolContext, ToolResult } from '../../aci/toolDefinition';

const failed = (parameter: string, value: string, hint: string): ToolResult => ({
  observation: `ERROR:\nInvalid \`${parameter}\` parameter: ${value}. ${hint}`,
  exitCode: 1,
});

/** `cat -n` as the editor numbers a snippet: every `\n`-separated piece, a final empty one included. */
function numbered(text: string, description: string, first: number): string {
  const rows = text.split('\n').map((row, i) => `${String(i + first).padStart(6)}\t${row}`);
  return `Here's the result of running \`cat -n\` on ${description}:\n${rows.join('\n')}\n`;
}

/** Ends the hidden entries' section of a folder's listing (they are counted here, not by a `wc -l` process). */
const HIDDEN_END = `@swb-hidden-end-${randomBytes(6).toString('hex')}`;

/**
 * Entries of a folder as the editor lists them: the hidden ones (only counted: `wc -l`'s count,
 * the newlines of `find`'s output), then two levels, sorted, folders with a `/`.
 */
function folderScript(path: string): string {
  const q = shellQuote(path);
  return [
    `find -L ${q} -mindepth 1 -maxdepth 1 -name '.*'`,
    `printf '%s\\n' ${HIDDEN_END}`,
    `find -L ${q} -maxdepth 2 -not \\( -path ${shellQuote(`${path}/.*`)} -o -path ${shellQuote(`${path}/*/.*`)} \\) | sort | while IFS= read -r p; do if [ -d "$p" ]; then printf '%s/\\n' "$p"; else printf '%s\\n' "$p"; fi; done`,
  ].join('; ');
}

function viewFolder(path: string, listing: string): ToolResult {
  const end = listing.indexOf(`${HIDDEN_END}\n`);
  const hidden = end < 0 ? 0 : listing.slice(0, end).split('\n').length - 1;
  const entries = (end < 0 ? listing : listing.slice(end + HIDDEN_END.length + 1)).replace(/\n$/, '');
  let text = `Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n${entries}`;
  if (hidden > 0) text += `\n\n${hidden} hidden files/directories in this directory are excluded. You can use 'ls -la ${path}' to see them.`;
  return { observation: text, exitCode: 0 };
}

/** Whether the path is a folder, another existing file, or nothing. */
export async function pathKind(ctx: ToolContext, path: string): Promise<'dir' | 'file' | 'none'> {
  const q = shellQuote(path);
  return (
    await ctx.sandbox.exec(`if [ -d ${q} ]; then echo dir; elif [ -e ${q} ]; then echo file; else echo none; fi`, { timeoutMs: 10_000 })
  ).output.trim() as 'dir' | 'file' | 'none';
}

/**
 * What `view` needs in one round trip: `@dir` and the folder's listing (unless a range rules the
 * listing out), `@file` and the content as base64, or `@none`.
 */
async function lookUp(
  ctx: ToolContext,
  path: string,
  listFolder: boolean,
): Promise<{ kind: 'dir'; listing: string } | { kind: 'file'; text: string } | { kind: 'none' }> {
  const q = shellQuote(path);
  const script =
    `if [ -d ${q} ]; then echo @dir; ${listFolder ? `{ ${folderScript(path)}; }` : ':'}; ` +
    `elif [ -e ${q} ]; then echo @file; base64 -w0 < ${q} && echo || echo @unreadable; else echo @none; fi`;
  const result = await ctx.sandbox.exec(script, {
    timeoutMs: 5 * 60_000,
    maxOutputBytes: Number.MAX_SAFE_INTEGER,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const output = result.output.replace(/\r\n/g, '\n');
  const firstLine = output.indexOf('\n');
  if (output.startsWith('@dir\n')) return { kind: 'dir', listing: output.slice(firstLine + 1) };
  const [status = '', ...rest] = output.replace(/\n$/, '').split('\n');
  if (status === '@none') return { kind: 'none' };
  if (status !== '@file' || rest.length !== 1) throw new Error(`cannot read ${path} in the sandbox: ${result.output.slice(0, 500).trim()}`);
  return { kind: 'file', text: Buffer.from(rest[0]!, 'base64').toString('utf8') };
}

export async function openHandsView(ctx: ToolContext, path: string, range: [number, number] | undefined): Promise<ToolResult> {
  if (!path.startsWith('/')) return failed('path', path, 'The path should be an absolute path, starting with `/`.');
  const found = await lookUp(ctx, path, !range);
  if (found.kind === 'none') return failed('path', path, `The path ${path} does not exist. Please provide a valid path.`);
  if (found.kind === 'dir') {
    if (range) return failed('view_range', `[${range.join(', ')}]`, 'The `view_range` parameter is not allowed when `path` points to a directory.');
    return viewFolder(path, found.listing);
  }
  const content = found.text;
  if (!range) return { observation: numbered(content, path, 1), exitCode: 0 };
  const lines = content.split(/(?<=\n)/).filter((l) => l !== '');
  const [start, requestedEnd] = range;
  if (start < 1 || start > lines.length)
    return failed(
      'view_range',
      `[${range.join(', ')}]`,
      `Its first element \`${start}\` should be within the range of lines of the file: [1, ${lines.length}].`,
    );
  const end = requestedEnd === -1 || requestedEnd > lines.length ? lines.length : requestedEnd;
  if (end < start)
    return failed('view_range', `[${range.join(', ')}]`, `Its second element \`${end}\` should be greater than or equal to the first element \`${start}\`.`);
  const shown = lines
    .slice(start - 1, end)
    .join('')
    .split(/\r\n|\n|\r/);
  if (shown.at(-1) === '') shown.pop();
  let text = numbered(shown.join('\n'), path, start);
  if (requestedEnd > lines.length) text += `\nNOTE: We only show up to ${lines.length} since there's only ${lines.length} lines in this file\n`;
  return { observation: text, exitCode: 0 };
}
