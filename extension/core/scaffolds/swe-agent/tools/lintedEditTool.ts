import { z } from 'zod';
import { LINT_REJECTION_INTRO, formatErrors, introducedErrors, lintRejection, parseFlake8 } from './flake8Guard';
import { dropProposal, keepProposal, lintProposal, lookupWithLint } from './lintedFile';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { edit07 } from './windowed07';
import { NO_FILE_OPEN, centred, checkedFile, clampedFirstLine, firstLineShowing, showWindow } from './windowedTools';
import { countLines, renderWindow, replaceLines } from './windowedFile';
import { viewer } from './toolState';
import { windowOf } from './settings';

/** SWE-agent's `tools/windowed_edit_linting`: `edit <start>:<end>` + text + `end_of_edit`. */

const SUCCESS = `File updated. Please review the changes and make sure they are correct
(correct indentation, no duplicate lines, etc). Edit the file again if necessary.`;

/** The open file and flake8's findings on it, in one round trip. */
export async function openFileWithLint(ctx: ToolContext): Promise<{ path: string; text: string; translated: boolean; lint: string } | ToolResult> {
  const path = viewer(ctx).openFile;
  if (path === null) return { observation: NO_FILE_OPEN, exitCode: 1 };
  const { lookup, lint } = await lookupWithLint(ctx, path);
  const file = checkedFile(lookup, path);
  if ('observation' in file) return file;
  return { ...file, lint };
}

const edit = defineTool({
  name: 'edit',
  bundle: 'windowed_edit_linting',
  description:
    'replaces lines <start_line> through <end_line> (inclusive) with the given text in the open file. The replacement text is terminated by a line with only end_of_edit on it. All of the <replacement text> will be entered, so make sure your indentation is formatted properly. Python files will be checked for syntax errors after the edit. If the system detects a syntax error, the edit will not be executed. Simply try to edit the file again, but make sure to read the error message and modify the edit command you issue accordingly. Issuing the same command a second time will just lead to the same error message again.',
  signature: 'edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit',
  parameters: z.object({
    start_line: z.number().int().describe('the line number to start the edit at'),
    end_line: z.number().int().describe('the line number to end the edit at (inclusive)'),
    replacement_text: z.string().describe('the text to replace the current selection with'),
  }),
  block: { argument: 'replacement_text', terminator: 'end_of_edit' },
  async run(ctx, { start_line, end_line, replacement_text }) {
    if (centred(ctx)) return edit07(ctx, start_line, end_line, replacement_text);
    if (viewer(ctx).openFile === null) return { observation: 'No file opened. Use the `open` command first.', exitCode: 1 };
    const file = await openFileWithLint(ctx);
    if ('observation' in file) return file;
    const replacement = replacement_text.endsWith('\n') ? replacement_text.slice(0, -1) : replacement_text;
    const window = windowOf(ctx.config);
    const firstLine = clampedFirstLine(ctx, viewer(ctx).firstLine, file.text);
    const edited = replaceLines(file.text, start_line - 1, end_line - 1, replacement);
    const proposal = await lintProposal(ctx, file.path, edited);
    const errors = introducedErrors(parseFlake8(file.lint), parseFlake8(proposal.lint), [start_line, end_line], countLines(replacement));
    if (errors.length > 0) {
      await dropProposal(ctx, file.path, file, proposal);
      viewer(ctx).firstLine = firstLine;
      const applied = renderWindow(edited, file.path, firstLine, window);
      const original = renderWindow(file.text, file.path, firstLine, window);
      return { observation: lintRejection(LINT_REJECTION_INTRO, `ERRORS:\n${formatErrors(errors)}\n\n`, applied, original), exitCode: 1 };
    }
    await keepProposal(ctx, file.path, edited, proposal);
    const shown = showWindow(ctx, edited, file.path, firstLineShowing(ctx, start_line - 1, edited));
    return { observation: `${SUCCESS}\n${shown}`, exitCode: 0 };
  },
});

export const lintedEditTools = [edit];
