/**
 * OpenHands' `read` action: the `view` command of its editor (openhands-aci `OHEditor.view`),
 * for folders (two levels, hidden entries left out and counted) and text files (whole, or a
 * line range), with its error wording (`ERROR:\nInvalid \`path\` parameter: ...`). Shared by the two OpenHands
 * families (CodeAct's `openhands/`, V1's `openhands-v1/`), which do not import each other's folders.
 */
import { randomBytes } from 'node:crypto';
import { shellQuote } from '../parsing/shellWords';
import type { ToolContext, ToolResult } from '../aci/toolDefinition';
import { fileContentScript, parseFileContent, splitLines, universalNewlines } from '../aci/sandboxFiles';

const failed = (parameter: string, value: string, hint: string): ToolResult => ({
  observation: `ERROR:\nInvalid \`${parameter}\` parameter: ${value}. ${hint}`,
  exitCode: 1,
});

/** `cat -n` as the editor numbers a snippet: every `\n`-separated piece, a final empty one included. */
function numbered(text: string, description: string, first: number): string {
  const rows = text.split('\n').map((row, i) => `${String(i + first).padStart(6)}\t${row}`);
  return `Here's the result of running \`cat -n\` on ${description}:\n${rows.join('\n')}\n`;
}

/** Marks what the listing's script prints besides the listing, so no file name can pass for it. */
const MARK = `@swb-${randomBytes(6).toString('hex')}`;

/** The editor's folder listing: `find -L` two levels deep, hidden entries left out, sorted, folders with a `/`. */
function listingPipeline(path: string, find: string): string {
  const q = shellQuote(path);
  return (
    `find -L ${q} -maxdepth 2 ${find}-not \\( -path ${shellQuote(`${path}/.*`)} -o -path ${shellQuote(`${path}/*/.*`)} \\) -print | sort | ` +
    `while IFS= read -r p; do if [ -d "$p" ]; then printf '%s/\\n' "$p"; else printf '%s\\n' "$p"; fi; done`
  );
}

/**
 * The listing with the hidden entries counted and the folders marked by the same `find` (GNU
 * find), so the call runs `find` and `sort` as the raw listing does and no read loop after them:
 * each entry named `.*` is written to stderr as a NUL-ended record with its depth, and so is
 * each listed folder (`-type d` follows links under `-L`, as the editor's `os.path.isdir`);
 * stderr bypasses the `sort` and reaches the output before the listing. find's exit status is
 * the script's (a test, which prints nothing: a write less through the sandbox's stream than a
 * line saying it). The editor counts the lines `find -mindepth 1 -maxdepth 1 -name '.*'` prints
 * (`wc -l`): records of depth 1, plus the newlines in their paths.
 */
function oneFindScript(path: string): string {
  const q = shellQuote(path);
  const hidden = `-not \\( -path ${shellQuote(`${path}/.*`)} -o -path ${shellQuote(`${path}/*/.*`)} \\)`;
  return (
    `find -L ${q} -maxdepth 2 \\( -name '.*' -fprintf /dev/stderr '${MARK}%d %p\\0' -o -true \\) ${hidden} ` +
    `\\( -type d -fprintf /dev/stderr '${MARK}dir %p\\0' -o -true \\) -print | sort; [ "\${PIPESTATUS[0]}" = 0 ]`
  );
}

/** The same with a second `find` for the hidden entries, for a `find` without `-fprintf` (BusyBox) or one that met an error. */
function twoFindScript(path: string): string {
  return `find -L ${shellQuote(path)} -mindepth 1 -maxdepth 1 -name '.*' | wc -l; ${listingPipeline(path, '')}`;
}

/** The folder's listing and hidden count from `oneFindScript`'s output and exit code, or undefined when its find failed. */
function readOneFind(output: string, exitCode: number): { hidden: number; entries: string } | undefined {
  if (exitCode !== 0) return undefined;
  let hidden = 0;
  const folders = new Set<string>();
  const listing = output.replace(new RegExp(`${MARK}(\\d+|dir) ([^\\0]*)\\0`, 'g'), (_, depth: string, found: string) => {
    if (depth === 'dir') folders.add(found);
    else if (depth === '1') hidden += 1 + found.split('\n').length - 1;
    return '';
  });
  const entries = listing.replace(/\n$/, '').split('\n');
  return { hidden, entries: entries.map((entry) => (folders.has(entry) ? `${entry}/` : entry)).join('\n') };
}

function viewFolder(path: string, hidden: number, entries: string): ToolResult {
  let text = `Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n${entries}`;
  if (hidden > 0) text += `\n\n${hidden} hidden files/directories in this directory are excluded. You can use 'ls -la ${path}' to see them.`;
  return { observation: text, exitCode: 0 };
}

/** `twoFindScript`'s way, a round trip of its own. */
async function viewFolderTwoFinds(ctx: ToolContext, path: string): Promise<ToolResult> {
  const result = await ctx.sandbox.exec(twoFindScript(path), { timeoutMs: 30_000, ...(ctx.signal ? { signal: ctx.signal } : {}) });
  const [count, ...entries] = result.output.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  return viewFolder(path, Number(count), entries.join('\n'));
}

/** Whether the path is a folder, another existing file, or nothing. */
export async function pathKind(ctx: ToolContext, path: string): Promise<'dir' | 'file' | 'none'> {
  const q = shellQuote(path);
  return (
    await ctx.sandbox.exec(`if [ -d ${q} ]; then echo dir; elif [ -e ${q} ]; then echo file; else echo none; fi`, { timeoutMs: 10_000 })
  ).output.trim() as 'dir' | 'file' | 'none';
}

/**
 * What `view` needs in one round trip: `@file` and the content (`fileContentScript`), `@none`,
 * or for a folder the listing alone (unless a range rules it out) with find's exit code: an
 * absolute path's listing starts with `/` or a `MARK` record, never with `@file` or `@none`.
 * The editor reads every file in Python's text mode, so the content comes with `\r\n` and a
 * lone `\r` read as `\n`.
 */
async function lookUp(
  ctx: ToolContext,
  path: string,
  listFolder: boolean,
): Promise<{ kind: 'dir'; listing: string; exitCode: number } | { kind: 'file'; text: string } | { kind: 'none' }> {
  const q = shellQuote(path);
  const script =
    `if [ -d ${q} ]; then ${listFolder ? `{ ${oneFindScript(path)}; }` : ':'}; ` +
    `elif [ -e ${q} ]; then echo @file; ${fileContentScript(q)}; else echo @none; fi`;
  const result = await ctx.sandbox.exec(script, {
    timeoutMs: 5 * 60_000,
    maxOutputBytes: Number.MAX_SAFE_INTEGER,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const output = result.output.replace(/\r\n/g, '\n');
  if (!output.startsWith('@file\n') && !output.startsWith('@none\n')) return { kind: 'dir', listing: output, exitCode: result.exitCode };
  const [status = '', ...rest] = output.replace(/\n$/, '').split('\n');
  if (status === '@none') return { kind: 'none' };
  if (status !== '@file' || (rest[0] !== '@text' && rest.length !== 1))
    throw new Error(`cannot read ${path} in the sandbox: ${result.output.slice(0, 500).trim()}`);
  return { kind: 'file', text: universalNewlines(parseFileContent(rest)) };
}

export async function openHandsView(ctx: ToolContext, path: string, range: [number, number] | undefined): Promise<ToolResult> {
  if (!path.startsWith('/')) return failed('path', path, 'The path should be an absolute path, starting with `/`.');
  const found = await lookUp(ctx, path, !range);
  if (found.kind === 'none') return failed('path', path, `The path ${path} does not exist. Please provide a valid path.`);
  if (found.kind === 'dir') {
    if (range) return failed('view_range', `[${range.join(', ')}]`, 'The `view_range` parameter is not allowed when `path` points to a directory.');
    const listed = readOneFind(found.listing, found.exitCode);
    return listed ? viewFolder(path, listed.hidden, listed.entries) : viewFolderTwoFinds(ctx, path);
  }
  return viewText(path, found.text, range);
}

/** `view` of a file whose text is already read (V1 reads some files in an encoding it guesses). */
export function viewText(path: string, content: string, range: [number, number] | undefined): ToolResult {
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
  // `'\n'.join(text.splitlines())`: a form feed or a U+2028 inside a line breaks it here too.
  let text = numbered(splitLines(lines.slice(start - 1, end).join('')).join('\n'), path, start);
  if (requestedEnd > lines.length) text += `\nNOTE: We only show up to ${lines.length} since there's only ${lines.length} lines in this file\n`;
  return { observation: text, exitCode: 0 };
}
