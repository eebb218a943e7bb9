import { z } from 'zod';
import { realpathScript, resolvedHere, runTool } from '../../../aci/sandboxFiles';
import { shellQuote } from '../../../parsing/shellWords';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { NO_FILE_OPEN } from './windowedTools';
import { viewer } from './toolState';

/** SWE-agent's `tools/search`. Every message, success or not, exits 0 as the originals do. */

/** More matching files than this makes search_dir ask the agent to narrow down. */
const MAX_RESULTS = 100;

const said = (observation: string): ToolResult => ({ observation, exitCode: 0 });

/** Marks the line that names the real path when the shell had to work it out (`resolvedHere`'s check failed). */
const PATH_LINE = '@path ';

/**
 * Runs `body(real)` on `given` when `[ test given ]` holds, `real` the shell word for its real
 * path, or answers `missing()`. When `resolvedHere` works the real path out and its check holds,
 * the shell prints only what the body prints (no line of its own: a write less through the
 * sandbox's stream); otherwise it works the path out itself and prints it first, on a
 * `PATH_LINE`. The body's lines must start as neither that nor `@missing`.
 */
async function atRealPath(
  ctx: ToolContext,
  test: '-d' | '-f',
  given: string,
  body: (real: string) => string,
  missing: () => ToolResult,
): Promise<{ real: string; lines: string[] } | ToolResult> {
  const here = resolvedHere(given, ctx.state.workingDir);
  const inShell = `else ${realpathScript(given)}; printf '${PATH_LINE}%s\\n' "$__swb_r"; ${body('"$__swb_r"')}; fi`;
  const known = here && body(shellQuote(here.real));
  const rest = !here ? inShell : here.check === undefined ? `else ${known}; fi` : `elif ${here.check}; then ${known}; ${inShell}`;
  const { output } = await runTool(ctx, `if [ ! ${test} ${shellQuote(given)} ]; then echo @missing; ${rest}`);
  const lines = output.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines[0] === '@missing') return missing();
  if (lines[0]?.startsWith(PATH_LINE)) return { real: lines[0].slice(PATH_LINE.length), lines: lines.slice(1) };
  if (!here) throw new Error(`unexpected answer from the sandbox shell: ${JSON.stringify(output.slice(0, 200))}`);
  return { real: here.real, lines };
}

/** Runs `body(dir)` in the directory `dir` (default the working directory), or says it is missing (`atRealPath`). */
function inDirectory(ctx: ToolContext, dir: string | undefined, body: (dir: string) => string): Promise<{ real: string; lines: string[] } | ToolResult> {
  return atRealPath(ctx, '-d', dir ?? './', body, () => said(`Directory ${dir} not found`));
}

const findFile = defineTool({
  name: 'find_file',
  readOnly: true,
  bundle: 'search',
  description: 'finds all files with the given name or pattern in dir. If dir is not provided, searches in the current directory',
  signature: 'find_file <file_name> [<dir>]',
  parameters: z.object({
    file_name: z.string().describe('the name of the file or pattern to search for. supports shell-style wildcards (e.g. *.py)'),
    dir: z.string().optional().describe('the directory to search in (if not provided, searches in the current directory)'),
  }),
  async run(ctx, { file_name, dir }) {
    const found = await inDirectory(ctx, dir, (d) => `find ${d} -type f -name ${shellQuote(file_name)}`);
    if ('observation' in found) return found;
    if (found.lines.length === 0) return said(`No matches found for "${file_name}" in ${found.real}`);
    return said([`Found ${found.lines.length} matches for "${file_name}" in ${found.real}:`, ...found.lines].join('\n'));
  },
});

const searchDir = defineTool({
  name: 'search_dir',
  readOnly: true,
  bundle: 'search',
  description: 'searches for search_term in all files in dir. If dir is not provided, searches in the current directory',
  signature: 'search_dir <search_term> [<dir>]',
  parameters: z.object({
    search_term: z.string().describe('the term to search for'),
    dir: z.string().optional().describe('the directory to search in (if not provided, searches in the current directory)'),
  }),
  async run(ctx, { search_term, dir }) {
    // SWE-agent leaves out every path with a hidden component (the searched folder's own path
    // included) and binary files; `-c` counts matching lines. Files with no match are dropped
    // here rather than by a `grep -v` in a pipeline, which doubled the call's time (bench/aci).
    const grep = (d: string) => `grep -rcI --exclude-dir='.*' --exclude='.*' -- ${shellQuote(search_term)} ${d}`;
    const found = await inDirectory(ctx, dir, (d) => `case ${d} in */.*) ;; *) ${grep(d)} ;; esac`);
    if ('observation' in found) return found;
    const counts = found.lines
      .map((line) => ({ file: line.slice(0, line.lastIndexOf(':')), count: Number(line.slice(line.lastIndexOf(':') + 1)) }))
      .filter((entry) => entry.count > 0)
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const where = `"${search_term}" in ${found.real}`;
    if (counts.length === 0) return said(`No matches found for ${where}`);
    if (counts.length > MAX_RESULTS) return said(`More than ${counts.length} files matched for ${where}. Please narrow your search.`);
    const total = counts.reduce((sum, entry) => sum + entry.count, 0);
    return said(
      [`Found ${total} matches for ${where}:`, ...counts.map((entry) => `${entry.file} (${entry.count} matches)`), `End of matches for ${where}`].join('\n'),
    );
  },
});

const searchFile = defineTool({
  name: 'search_file',
  readOnly: true,
  bundle: 'search',
  description: 'searches for search_term in file. If file is not provided, searches in the current open file',
  signature: 'search_file <search_term> [<file>]',
  parameters: z.object({
    search_term: z.string().describe('the term to search for'),
    file: z.string().optional().describe('the file to search in (if not provided, searches in the current open file)'),
  }),
  async run(ctx, { search_term, file }) {
    if (search_term === '') return said('Usage: search_file <search_term> [<file>]');
    const target = file ?? viewer(ctx).openFile;
    if (target === null) return said(NO_FILE_OPEN);
    // grep -n's lines start with a digit: neither `@missing` nor a PATH_LINE.
    const grep = `grep -n -- ${shellQuote(search_term)} ${shellQuote(target)}`;
    const found = await atRealPath(
      ctx,
      '-f',
      target,
      () => grep,
      () => said(`Usage: search_file <search_term> [<file>]\nError: File name ${target} not found. Please provide a valid file name.`),
    );
    if ('observation' in found) return found;
    const path = found.real;
    const matches = found.lines;
    const where = `"${search_term}" in ${path}`;
    if (matches.length === 0) return said(`No matches found for ${where}`);
    // SWE-agent's limit counts distinct file names in grep's `file:line:` output, always one here,
    // so search_file lists every matching line however many there are (1.0.1 to 3ea751c0).
    return said([`Found ${matches.length} matches for ${where}:`, ...matches.map((m) => `Line ${m}`), `End of matches for ${where}`].join('\n'));
  },
});

export const searchTools = [findFile, searchDir, searchFile];
