import { z } from 'zod';
import { lookupScript, pathAsGiven, runTool, type FileLookup } from '../../../aci/sandboxFiles';
import { fetchLines, lookupFile, parseLookup } from './toolFiles';
import { shellQuote } from '../../../parsing/shellWords';
import { sweAgentDialect } from './sweAgentVersion';
import { create07, goto07, open07, scroll07 } from './windowed07';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { clampFirstLine, countLines, firstLineFor, renderWindow, scrolledFirstLine, type WindowLines } from './windowedFile';
import { viewer } from './toolState';
import { windowOf, overlapOf } from './settings';

/** SWE-agent's `tools/windowed`: a window of WINDOW lines over one open file. */

export const NO_FILE_OPEN = 'No file open. Use the open command first.';

const ok = (observation: string): ToolResult => ({ observation, exitCode: 0 });
const fail = (observation: string): ToolResult => ({ observation, exitCode: 1 });

/**
 * The window's worth of the open file around the first line `firstLineIn(nLines)` picks, or the
 * message SWE-agent prints when there is none. One round trip that carries only the window: the
 * lines from where the window starts unless the file's end clamps it, and enough of the file's
 * end for any clamped window (two windows and the end slack). The header shows the stored path,
 * resolved when the file was opened, as SWE-agent's `WindowedFile` shows its `CURRENT_FILE`.
 */
async function openFileWindow(ctx: ToolContext, firstLineIn: (nLines: number) => number): Promise<{ path: string; lines: WindowLines } | ToolResult> {
  const path = viewer(ctx).openFile;
  if (path === null) return fail(NO_FILE_OPEN);
  const window = windowOf(ctx.config);
  const found = await fetchLines(ctx, path, firstLineIn(Number.POSITIVE_INFINITY), window, 2 * window + 1);
  if (found.kind !== 'lines') return checkedFile(found, path) as ToolResult;
  return { path, lines: found.lines };
}

/** SWE-agent's messages for a path that is a directory or is missing, shown as given. */
export function checkedFile(file: FileLookup, given: string): Extract<FileLookup, { kind: 'file' }> | ToolResult {
  if (file.kind === 'directory') {
    return fail(`Error: ${pathAsGiven(given)} is a directory. You can only open files. Use cd or ls to navigate directories.`);
  }
  if (file.kind === 'missing') return fail(`Error: File ${pathAsGiven(given)} not found`);
  return file;
}

/** SWE-agent 0.7's centred window (`windowed07.ts`) instead of 1.x's first line. */
export function centred(ctx: ToolContext): boolean {
  return sweAgentDialect(ctx.config.sweAgentVersion).centredWindow;
}

/** How far short of the file's end the window stops, in the session's SWE-agent version. */
function windowEndSlack(ctx: ToolContext): 0 | 1 {
  return sweAgentDialect(ctx.config.sweAgentVersion).windowEndSlack;
}

/** The window's first line clamped to `text` as the session's version clamps it. */
export function clampedFirstLine(ctx: ToolContext, firstLine: number, text: string): number {
  return clampFirstLine(firstLine, countLines(text), windowOf(ctx.config), windowEndSlack(ctx));
}

/** The first line that puts 0-based `line` of `text` about a sixth of a window down. */
export function firstLineShowing(ctx: ToolContext, line: number, text: string): number {
  return firstLineFor(line, countLines(text), windowOf(ctx.config), windowEndSlack(ctx));
}

/** Moves the window to `firstLine` (clamped) and renders it under the given header path. */
export function showWindow(ctx: ToolContext, text: string | WindowLines, displayPath: string, firstLine: number): string {
  const nLines = typeof text === 'string' ? countLines(text) : text.nLines;
  viewer(ctx).firstLine = clampFirstLine(firstLine, nLines, windowOf(ctx.config), windowEndSlack(ctx));
  return renderWindow(text, displayPath, viewer(ctx).firstLine, windowOf(ctx.config));
}

const open = defineTool({
  name: 'open',
  readOnly: true,
  bundle: 'windowed',
  description: 'opens the file at the given path in the editor. If line_number is provided, the window will be move to include that line',
  signature: 'open "<path>" [<line_number>]',
  parameters: z.object({
    path: z.string().describe('the path to the file to open'),
    line_number: z.number().int().optional().describe('the line number to move the window to (if not provided, the window will start at the top of the file)'),
  }),
  async run(ctx, { path, line_number }) {
    if (centred(ctx)) return open07(ctx, path, line_number === undefined ? undefined : String(line_number));
    const file = checkedFile(await lookupFile(ctx, path), path);
    if ('observation' in file) return file;
    viewer(ctx).openFile = file.path;
    const nLines = countLines(file.text);
    const warnings: string[] = [];
    // Without a line, SWE-agent goes to the line before the window's current first line (kept
    // across files, clamped to this one): a file opened after scrolling far down another one
    // opens well below its top.
    let line = line_number ?? clampedFirstLine(ctx, viewer(ctx).firstLine, file.text);
    if (line_number !== undefined && line > nLines) {
      warnings.push(
        `Warning: <line_number> (${line}) is greater than the number of lines in the file (${nLines})`,
        `Warning: Setting <line_number> to ${nLines}`,
      );
      line = nLines;
    } else if (line_number !== undefined && line < 1) {
      warnings.push(`Warning: <line_number> (${line}) is less than 1`, 'Warning: Setting <line_number> to 1');
      line = 1;
    }
    // The header shows the path as the agent wrote it; later commands show the resolved one.
    const window = showWindow(ctx, file.text, pathAsGiven(path), firstLineShowing(ctx, line - 1, file.text));
    return ok([...warnings, window].join('\n'));
  },
});

const goto = defineTool({
  name: 'goto',
  readOnly: true,
  bundle: 'windowed',
  description: 'moves the window to show <line_number>',
  signature: 'goto <line_number>',
  parameters: z.object({ line_number: z.number().int().describe('the line number to move the window to') }),
  async run(ctx, { line_number }) {
    if (centred(ctx)) return goto07(ctx, line_number);
    const at = (nLines: number) => firstLineFor(line_number - 1, nLines, windowOf(ctx.config), windowEndSlack(ctx));
    const file = await openFileWindow(ctx, at);
    if ('observation' in file) return file;
    const { nLines } = file.lines;
    if (line_number > nLines) return fail(`Error: <line> must be less than or equal to ${nLines}`);
    return ok(showWindow(ctx, file.lines, file.path, at(nLines)));
  },
});

function scrollTool(name: 'scroll_up' | 'scroll_down', direction: 1 | -1) {
  return defineTool({
    name,
    bundle: 'windowed',
    readOnly: true,
    // SWE-agent's own docstring says "down" for both; models were trained on it.
    description: 'moves the window down 100 lines',
    signature: name,
    parameters: z.object({}),
    async run(ctx) {
      if (centred(ctx)) return scroll07(ctx, direction);
      const [window, overlap] = [windowOf(ctx.config), overlapOf(ctx.config)];
      const slack = windowEndSlack(ctx);
      const at = (nLines: number) => scrolledFirstLine(clampFirstLine(viewer(ctx).firstLine, nLines, window, slack), direction, nLines, window, overlap, slack);
      const file = await openFileWindow(ctx, at);
      if ('observation' in file) return file;
      return ok(showWindow(ctx, file.lines, file.path, at(file.lines.nLines)));
    },
  });
}

const create = defineTool({
  name: 'create',
  bundle: 'windowed',
  description: 'creates and opens a new file with the given name',
  signature: 'create <filename>',
  parameters: z.object({ filename: z.string().describe('the name of the file to create') }),
  async run(ctx, { filename }) {
    if (centred(ctx)) return create07(ctx, filename);
    const p = shellQuote(filename);
    const { output } = await runTool(
      ctx,
      // SWE-agent 1.0 writes a newline into the new file; 1.1 and later leave it empty.
      `if [ -e ${p} ]; then echo @exists; else mkdir -p -- "$(dirname -- ${p})" && printf '${sweAgentDialect(ctx.config.sweAgentVersion).createWritesNewline ? '\\n' : ''}' > ${p} && { ${lookupScript(filename, undefined, ctx.state.workingDir)}; }; fi`,
    );
    const lines = output.split('\n');
    if (lines[0] === '@exists') return fail(`Warning: File '${pathAsGiven(filename)}' already exists.`);
    const file = checkedFile(parseLookup(ctx, lines), filename);
    if ('observation' in file) return file;
    viewer(ctx).openFile = file.path;
    return ok(showWindow(ctx, file.text, pathAsGiven(filename), 0));
  },
});

export const windowedTools = [open, goto, scrollTool('scroll_up', -1), scrollTool('scroll_down', 1), create];
