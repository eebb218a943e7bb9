import { z } from 'zod';
import { LINT_REJECTION_INTRO, formatErrors, introducedErrors, lintRejection, parseFlake8 } from './flake8Guard';
import { openFileWithLint } from './lintedEditTool';
import { dropProposal, keepProposal, lintProposal } from './lintedFile';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { sweAgentDialect } from './sweAgentVersion';
import { countLines, renderWindow, replaceLines } from './windowedFile';
import { clampedFirstLine, firstLineShowing, showWindow } from './windowedTools';
import { viewer } from './toolState';
import { windowOf } from './settings';
import { pyRepr } from '../../../parsing/pythonText';

/**
 * SWE-agent's `tools/windowed_edit_replace` (`edit <search> <replace> [<replace-all>]` within the
 * displayed lines, `insert <text> [<line>]`) and `tools/windowed_edit_rewrite` (`edit <replace>`
 * for the whole window), all behind the flake8 guard. SWE-agent prints a retry token after a
 * refused edit that its agent loop removes; here it is never printed.
 */

/** The review request after an applied edit, as the session's SWE-agent version words it. */
function guidance(ctx: ToolContext): string {
  return sweAgentDialect(ctx.config.sweAgentVersion).replaceWording === 'two-line'
    ? 'Please review the changes and make sure they are correct\n(correct indentation, no duplicate lines, etc). Edit the file again if necessary.'
    : 'Please review the changes and make sure they are correct:\n\n1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break existing functionality\n\nEdit the file again if necessary.';
}

/** The "ERRORS:" block of a refused edit: early 1.0 recordings have no blank line after the errors. */
function errorsBlock(ctx: ToolContext, errors: string): string {
  return sweAgentDialect(ctx.config.sweAgentVersion).replaceWording === 'two-line' ? `ERRORS:\n\n${errors}\n` : `ERRORS:\n\n${errors}\n\n`;
}

/** Python's `str.count`: non-overlapping occurrences; the empty string occurs `len + 1` times. */
function pythonCount(text: string, part: string): number {
  if (part === '') return text.length + 1;
  return text.split(part).length - 1;
}

/** 1-based lines where `search` starts, non-overlapping, as `find_all_occurrences` lists them. */
function occurrenceLines(text: string, search: string): number[] {
  const lines: number[] = [];
  for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + search.length)) {
    lines.push(text.slice(0, at).split('\n').length);
  }
  return lines;
}

interface Change {
  text: string;
  /** Where the window goes after the change (0-based line, before the sixth-of-a-window offset); unset: it stays. */
  gotoLine?: number;
  window: [number, number];
  replacementLines: number;
  /** Whether errors from before the change may be excused. */
  excusePrevious: boolean;
}

/** Lints a change, rolls it back on new errors (showing both windows), or reports success. */
async function applyChange(
  ctx: ToolContext,
  file: { path: string; text: string; translated: boolean; lint: string },
  change: Change,
  intro: string,
  success: (window: string) => string,
): Promise<ToolResult> {
  const window = windowOf(ctx.config);
  const originalFirst = clampedFirstLine(ctx, viewer(ctx).firstLine, file.text);
  const newFirst = change.gotoLine === undefined ? originalFirst : firstLineShowing(ctx, change.gotoLine, change.text);
  const proposal = await lintProposal(ctx, file.path, change.text);
  const after = parseFlake8(proposal.lint);
  const errors = change.excusePrevious ? introducedErrors(parseFlake8(file.lint), after, change.window, change.replacementLines) : after;
  if (errors.length > 0) {
    await dropProposal(ctx, file.path, file, proposal);
    viewer(ctx).firstLine = originalFirst;
    const applied = renderWindow(change.text, file.path, newFirst, window);
    const original = renderWindow(file.text, file.path, originalFirst, window);
    return { observation: lintRejection(intro, errorsBlock(ctx, formatErrors(errors)), applied, original), exitCode: 4 };
  }
  await keepProposal(ctx, file.path, change.text, proposal);
  return { observation: success(showWindow(ctx, change.text, file.path, newFirst)), exitCode: 0 };
}

function replaceInWindow(ctx: ToolContext, text: string, search: string, replace: string): Change | ToolResult {
  const nLines = countLines(text);
  const start = clampedFirstLine(ctx, viewer(ctx).firstLine, text);
  const end = Math.min(start + windowOf(ctx.config) - 1, nLines - 1);
  const windowText = text
    .split('\n')
    .slice(start, end + 1)
    .join('\n');
  const count = pythonCount(windowText, search);
  if (count > 1) {
    return {
      observation: `Your edit was not applied (file not modified): Found more than one occurrence of ${pyRepr(search)} in the currently displayed lines.\nPlease make your search string more specific (for example, by including more lines of context).`,
      exitCode: 4,
    };
  }
  if (count === 0) return notFound(text, search);
  // 1-based, as in the recordings: the window then starts 16 lines above the replaced line.
  const first = start + windowText.slice(0, windowText.indexOf(search)).split('\n').length;
  const searchLines = search.split('\n').length;
  return {
    text: replaceLines(text, start, end, windowText.split(search).join(replace)),
    gotoLine: first,
    window: [first, first + searchLines - 1],
    replacementLines: replace.split('\n').length,
    excusePrevious: true,
  };
}

function notFound(text: string, search: string): ToolResult {
  const lines = occurrenceLines(text, search);
  const observation =
    lines.length > 0
      ? `Your edit was not applied (file not modified): Text ${pyRepr(search)} not found in displayed lines.\n\nHowever, we found the following occurrences of your search string in the file:\n\n${lines.map((n) => `- line ${n}`).join('\n')}\n\nYou can use the \`goto\` command to navigate to these locations before running the edit command again.`
      : `Your edit was not applied (file not modified): Text ${pyRepr(search)} not found in displayed lines (or anywhere in the file).\nPlease modify your search string. Did you forget to properly handle whitespace/indentation?\nYou can also call \`open\` again to re-display the file with the correct context.`;
  return { observation, exitCode: 3 };
}

const edit = defineTool({
  name: 'edit',
  bundle: 'windowed_edit_replace',
  description:
    'Replace first occurrence of <search> with <replace> in the currently displayed lines. If --replace-all is specified, replace all occurrences of <search> with <replace>.\n',
  signature: 'edit <search> <replace> [<replace-all>]',
  parameters: z.object({
    search: z.string().describe('the text to search for'),
    replace: z.string().describe('the text to replace the search with'),
    'replace-all': z.boolean().optional().describe('replace all occurrences rather than the first occurrence within the displayed lines'),
  }),
  async run(ctx, args) {
    const { search, replace } = args;
    if (viewer(ctx).openFile === null) return { observation: 'No file opened. Either `open` or `create` a file first.', exitCode: 1 };
    const file = await openFileWithLint(ctx);
    if ('observation' in file) return file;
    if (search === replace) {
      return { observation: 'Your search and replace strings are the same. No changes were made. Please modify your search or replace strings.', exitCode: 2 };
    }
    // argparse's `type=bool` makes any given value true, `False` included; recordings show it.
    if (args['replace-all'] === undefined) {
      const change = replaceInWindow(ctx, file.text, search, replace);
      if ('observation' in change) return change;
      return applyChange(ctx, file, change, LINT_REJECTION_INTRO, (shown) => `Text replaced. ${guidance(ctx)}\n${shown}`);
    }
    const lines = occurrenceLines(file.text, search);
    if (lines.length === 0) return notFound(file.text, search);
    const change: Change = {
      text: file.text.split(search).join(replace),
      gotoLine: lines[0] as number,
      window: [0, 0],
      replacementLines: 0,
      excusePrevious: false,
    };
    return applyChange(ctx, file, change, LINT_REJECTION_INTRO, (shown) => `Replaced ${lines.length} occurrences. ${guidance(ctx)}\n${shown}`);
  },
});

/** `WindowedFile.insert`: after line `line`, at the end when omitted, at the start when negative. */
function inserted(text: string, raw: string, line: number | undefined): { text: string; at: number; added: number } {
  const body = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  const added = body.split('\n').length;
  if (line === undefined) {
    const current = text.endsWith('\n') ? text.slice(0, -1) : text;
    return { text: text === '' ? body : `${current}\n${body}`, at: countLines(text), added };
  }
  if (line < 0) {
    const current = text.startsWith('\n') ? text.slice(1) : text;
    return { text: text === '' ? body : `${body}\n${current}`, at: 0, added };
  }
  const lines = text.split('\n');
  lines.splice(line, 0, body);
  return { text: lines.join('\n'), at: line, added };
}

const insert = defineTool({
  name: 'insert',
  bundle: 'windowed_edit_replace',
  description: 'Insert <text> at the end of the currently opened file or after <line> if specified.\n',
  signature: 'insert <text> [<line>]',
  parameters: z.object({
    text: z.string().describe('the text to insert'),
    line: z.number().int().optional().describe('the line number to insert the text as new lines after'),
  }),
  async run(ctx, { text, line }) {
    if (viewer(ctx).openFile === null) return { observation: 'No file opened. Use the `create` or `open` command first.', exitCode: 1 };
    const file = await openFileWithLint(ctx);
    if ('observation' in file) return file;
    if (text === '') return { observation: showWindow(ctx, file.text, file.path, viewer(ctx).firstLine), exitCode: 0 };
    // 1.0.1 and 1.1.0 insert at `line - 1` (the text becomes line `line`); later versions after line `line`.
    const result = inserted(file.text, text, line === undefined ? undefined : line - sweAgentDialect(ctx.config.sweAgentVersion).insertLineShift);
    const change: Change = { text: result.text, gotoLine: result.at, window: [result.at, result.at], replacementLines: result.added, excusePrevious: true };
    return applyChange(
      ctx,
      file,
      change,
      'Your proposed edit has introduced new syntax error(s).\nPlease read this error message carefully and then retry editing the file.',
      (shown) => shown,
    );
  },
});

/** `tools/windowed_edit_rewrite`: the displayed lines replaced by new text as a whole. */
const rewrite = defineTool({
  name: 'edit',
  bundle: 'windowed_edit_rewrite',
  description: 'Replace the currently displayed lines with <replace>.',
  signature: 'edit <replace>',
  parameters: z.object({ replace: z.string().describe('the text to replace the currently displayed lines with') }),
  async run(ctx, { replace }) {
    if (viewer(ctx).openFile === null) return { observation: 'No file opened. Either `open` a file first.', exitCode: 1 };
    const file = await openFileWithLint(ctx);
    if ('observation' in file) return file;
    const nLines = countLines(file.text);
    const start = clampedFirstLine(ctx, viewer(ctx).firstLine, file.text);
    const end = Math.min(start + windowOf(ctx.config) - 1, nLines - 1);
    const change: Change = {
      text: replaceLines(file.text, start, end, replace),
      window: [start + 1, end + 1],
      replacementLines: replace.split('\n').length,
      excusePrevious: true,
    };
    // This bundle's template opens with a blank line.
    return applyChange(ctx, file, change, `\n${LINT_REJECTION_INTRO}`, () => 'Edit successful.');
  },
});

export const windowedReplaceTools = [edit, insert];
export const windowedRewriteTools = [rewrite];
