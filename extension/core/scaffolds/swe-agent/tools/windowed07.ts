import { formatErrors, introducedErrors, parseFlake8, type Flake8Error } from './flake8Guard';
import { sweAgentDialect } from './sweAgentVersion';
import { dropProposal, keepProposal, lintProposal, lookupWithLint } from './lintedFile';
import { lookupScript, runTool, writeScript } from '../../../aci/sandboxFiles';
import { lookupFile, parseLookup } from './toolFiles';
import { shellQuote } from '../../../parsing/shellWords';
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import type { ToolSet } from '../../../aci/toolRegistry';
import { SweAgentToolSet } from './sweAgentToolSet';
import type { ParseResult } from '../../../parsing/commandSyntax';
import { splitShellWords } from '../../../parsing/shellWords';
import { viewer } from './toolState';
import { windowOf, overlapOf } from './settings';
import { openUsage, usage07 } from './usage07';

/**
 * SWE-agent 0.x's viewer and line-range edit (`config/commands/defaults.sh`, `edit_linting.sh`):
 * shell functions around a window *centred* on `CURRENT_LINE` (1.x keeps a first line instead),
 * headers with the real path, `grep -n` numbering, and 0.x's own messages. Measured against
 * 0.7.0's and 0.2.0's commands in `test/conformance`; 0.2 differs in its lint guard and wording
 * (`SweAgentDialect`).
 */

const ok = (observation: string): ToolResult => ({ observation, exitCode: 0 });

/** `awk 'END {print NR}'`: lines, a last line without a newline included. */
function awkLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** `_constrain_line`: the centre kept at least half a window from both ends (the top wins). */
function constrain(current: number, total: number, window: number): number {
  const half = Math.floor(window / 2);
  return Math.max(Math.min(current, total - half), half);
}

/** `_print`: header with the real path, `(N more lines above)`, `grep -n` lines, `(N more lines below)`. */
function render(text: string, realPath: string, current: number, window: number): string {
  const total = awkLines(text);
  const above = Math.floor(Math.max(0, current - window / 2));
  const below = Math.round(Math.max(0, total - current - window / 2));
  const out = [`[File: ${realPath} (${total} lines total)]`];
  if (above > 0) out.push(`(${above} more lines above)`);
  const head = Math.min(total, Math.floor(Math.max(current + window / 2, window / 2)));
  const lines = text.split('\n');
  for (let n = Math.max(1, head - window + 1); n <= head; n++) out.push(`${n}:${lines[n - 1]}`);
  if (below > 0) out.push(`(${below} more lines below)`);
  return out.join('\n');
}

/** The window after moving the centre to `current` (constrained), remembered for the next command. */
function show(ctx: ToolContext, text: string, realPath: string, current: number): string {
  viewer(ctx).currentLine = constrain(current, awkLines(text), windowOf(ctx.config));
  return render(text, realPath, viewer(ctx).currentLine, windowOf(ctx.config));
}

/** Where `open <file> <line>` and `goto <line>` put the centre: the line about a sixth of a window down. */
function centreFor(line: number, window: number): number {
  return Math.floor(Math.max(line + window / 2 - Math.floor(window / 6), 1));
}

async function currentFile(ctx: ToolContext): Promise<{ path: string; text: string } | undefined> {
  const { openFile } = viewer(ctx);
  if (openFile === null) return undefined;
  const file = await lookupFile(ctx, openFile);
  return file.kind === 'file' ? file : undefined;
}

/**
 * The findings a refused edit lists: those the edit introduced (0.7), or every one flake8
 * printed for the file (0.2), each as 0.2's `_split_string` prints it (words re-joined by one space).
 */
function refusingErrors(ctx: ToolContext, before: string, after: string, window: [number, number], lines: number): { errors: Flake8Error[]; text: string } {
  if (sweAgentDialect(ctx.config.sweAgentVersion).lintExcusesEarlierErrors) {
    const errors = introducedErrors(parseFlake8(before), parseFlake8(after), window, lines, false);
    return { errors, text: formatErrors(errors) };
  }
  const errors = parseFlake8(after);
  return { errors, text: errors.map((e) => `- ${e.problem.split(/\s+/).filter(Boolean).join(' ')}`).join('\n') };
}

export async function open07(ctx: ToolContext, path: string, lineNumber: string | undefined): Promise<ToolResult> {
  const window = windowOf(ctx.config);
  const file = await lookupFile(ctx, path);
  const messages: string[] = [];
  let centre = window / 2;
  if (lineNumber !== undefined) {
    if (!/^[0-9]+$/.test(lineNumber))
      return ok(`${openUsage(sweAgentDialect(ctx.config.sweAgentVersion).quotedOpenUsage)} [<line_number>]\nError: <line_number> must be a number`);
    const line = Number(lineNumber);
    const max = file.kind === 'file' ? awkLines(file.text) : 0;
    if (line > max) {
      messages.push(`Warning: <line_number> (${line}) is greater than the number of lines in the file (${max})`, `Warning: Setting <line_number> to ${max}`);
      centre = max;
    } else if (line < 1) {
      messages.push(`Warning: <line_number> (${line}) is less than 1`, 'Warning: Setting <line_number> to 1');
      centre = 1;
    } else centre = centreFor(line, window);
  }
  if (file.kind === 'directory')
    return ok([...messages, `Error: ${path} is a directory. You can only open files. Use cd or ls to navigate directories.`].join('\n'));
  if (file.kind === 'missing') return ok([...messages, `File ${path} not found`].join('\n'));
  viewer(ctx).openFile = file.path;
  return ok([...messages, show(ctx, file.text, file.path, centre)].join('\n'));
}

export async function goto07(ctx: ToolContext, line: number): Promise<ToolResult> {
  const file = await currentFile(ctx);
  if (!file) return ok('No file open. Use the open command first.');
  const max = awkLines(file.text);
  if (line > max) return ok(`Error: <line> must be less than or equal to ${max}`);
  return ok(show(ctx, file.text, file.path, centreFor(line, windowOf(ctx.config))));
}

export async function scroll07(ctx: ToolContext, direction: 1 | -1): Promise<ToolResult> {
  const file = await currentFile(ctx);
  if (!file) return ok('No file open. Use the open command first.');
  const current = viewer(ctx).currentLine + direction * (windowOf(ctx.config) - overlapOf(ctx.config));
  return ok(show(ctx, file.text, file.path, current));
}

export async function create07(ctx: ToolContext, filename: string): Promise<ToolResult> {
  const p = shellQuote(filename);
  const { output } = await runTool(ctx, `if [ -e ${p} ]; then echo @exists; else printf '\\n' > ${p} 2>/dev/null; echo @new; fi`);
  const opened = await open07(ctx, filename, undefined);
  // 0.7 opens the existing file after its error, and a file it could not write is "not found".
  if (output.startsWith('@exists')) return ok(`Error: File '${filename}' already exists.\n${opened.observation}`);
  return opened;
}

/** 0.7's `edit <start>:<end>` with its body; lines are written back each with a newline, as `printf "%s\n"` does. */
export async function edit07(ctx: ToolContext, start: number, end: number, body: string): Promise<ToolResult> {
  const path = viewer(ctx).openFile;
  if (path === null) return ok('No file open. Use the `open` command first.');
  const { lookup: file, lint } = await lookupWithLint(ctx, path);
  if (file.kind !== 'file') return ok(`File ${path} not found`);
  const replacement = body === '' ? [] : body.replace(/\n$/, '').split('\n');
  const lines = file.text === '' ? [] : file.text.replace(/\n$/, '').split('\n');
  const edited = [...lines.slice(0, start - 1), ...replacement, ...lines.slice(end)];
  const text = edited.map((l) => `${l}\n`).join('') || '\n';
  const proposal = await lintProposal(ctx, path, text);
  const { errors, text: errorsText } = refusingErrors(ctx, lint, proposal.lint, [start, end], replacement.length);
  if (errors.length === 0) {
    await keepProposal(ctx, path, text, proposal);
    return ok(
      `${show(ctx, text, file.path, start - 1)}\nFile updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    );
  }
  await dropProposal(ctx, path, file, proposal);
  const rule = '-'.repeat(49);
  const n = replacement.length;
  const applied = render(text, file.path, constrain(Math.trunc(n / 2) + start - 1, awkLines(text), n + 10), n + 10);
  const originalWindow = end - start + 11;
  const original = render(file.text, file.path, constrain(Math.trunc((end - start + 2) / 2) + start - 1, awkLines(file.text), originalWindow), originalWindow);
  return ok(
    [
      sweAgentDialect(ctx.config.sweAgentVersion).lintRejectionIntro,
      '',
      'ERRORS:',
      errorsText,
      '',
      'This is how your edit would have looked if applied',
      rule,
      applied,
      rule,
      '',
      'This is the original code before your edit',
      rule,
      original,
      rule,
      'Your changes have NOT been applied. Please fix your edit command and try again.',
      'You either need to 1) Specify the correct start/end line arguments or 2) Correct your edit code.',
      'DO NOT re-run the same failed edit command. Running it again will lead to the same error.',
    ].join('\n'),
  );
}

/** The stand-in for a 0.7 command whose arguments its shell function refuses: it prints what the function printed. */
const refusedArguments07 = defineTool({
  name: 'shell_function_usage',
  bundle: 'swe-agent-0.7',
  description: "a SWE-agent 0.7 command run with arguments its shell function refuses; prints the function's usage",
  signature: 'shell_function_usage <command>',
  parameters: z.object({ command: z.string().describe('the command line as typed') }),
  async run(ctx, { command }) {
    const { name, words } = commandWords07(command);
    return ok(usage07(name, words, viewer(ctx).openFile, sweAgentDialect(ctx.config.sweAgentVersion).quotedOpenUsage) ?? `${name}: arguments refused`);
  },
});

/** The command's name and its arguments as the shell splits them (an edit's header line only). */
function commandWords07(command: string): { name: string; words: string[] } {
  const header = command.trim().split('\n', 1)[0]!;
  const split = splitShellWords(header);
  const words = 'error' in split ? header.split(/\s+/) : split.words;
  return { name: words[0] ?? '', words: words.slice(1) };
}

/**
 * SWE-agent 0.7's tools: the given ones, read as 0.7 read a command line. A line our parser
 * refuses for its arguments runs `shell_function_usage` when 0.7's function would have refused
 * it too, so the step prints 0.7's usage (exit 0) instead of becoming a format error.
 */
export class ToolSet07 extends SweAgentToolSet {
  constructor(base: ToolSet) {
    super(base.bundles, new Map([...base.tools, [refusedArguments07.name, refusedArguments07]]));
  }

  override parseCommand(text: string): ParseResult {
    const parsed = super.parseCommand(text);
    if (!('error' in parsed)) return parsed;
    const { name, words } = commandWords07(text);
    // Whether a file is open is only known when it runs: here one is taken to be, so only the arguments decide.
    if (!this.tools.has(name) || usage07(name, words, '') === undefined) return parsed;
    return { tool: refusedArguments07.name, args: { command: text.trim() } };
  }
}
