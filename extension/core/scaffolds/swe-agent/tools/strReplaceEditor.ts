import { z } from 'zod';
import { pathAsGiven, runTool, splitLines, writeScript, type FileLookup } from '../../../aci/sandboxFiles';
import { lookupFile } from './toolFiles';
import { shellQuote } from '../../../parsing/shellWords';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { countLines } from './windowedFile';
import { catN, MAX_RESPONSE_LEN, filemap, maybeTruncate } from './editorText';
import { expandTabs } from '../../../parsing/pythonText';

/**
 * `str_replace_editor` (`tools/edit_anthropic`, SWE-agent's default editor), with its exit
 * codes and messages. Its quirks are kept on purpose: `undo_edit` never finds a history, tabs are expanded in the text it writes
 * back, multi-line `old_str` duplicates are reported with an empty line list, and clipping
 * applies to the file text before the line numbers are added.
 */

const SNIPPET_LINES = 4;

const COMMANDS = ['view', 'create', 'str_replace', 'insert', 'undo_edit'] as const;

const done = (observation: string): ToolResult => ({ observation, exitCode: 0 });
const failed = (observation: string, exitCode: number): ToolResult => ({ observation, exitCode });

/** Python's `str.count`: non-overlapping occurrences. */
function occurrences(text: string, part: string): number {
  if (part === '') return text.length + 1;
  let n = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) n++;
  return n;
}

const parameters = z.object({
  command: z.enum(COMMANDS).describe('The commands to run. Allowed options are: `view`, `create`, `str_replace`, `insert`, `undo_edit`.'),
  path: z.string().describe('Absolute path to file or directory, e.g. `/testbed/file.py` or `/testbed`.'),
  file_text: z.string().optional().describe('Required parameter of `create` command, with the content of the file to be created.'),
  old_str: z.string().optional().describe('Required parameter of `str_replace` command containing the string in `path` to replace.'),
  new_str: z
    .string()
    .optional()
    .describe(
      'Optional parameter of `str_replace` command containing the new string (if not given, no string will be added). Required parameter of `insert` command containing the string to insert.',
    ),
  insert_line: z
    .number()
    .int()
    .optional()
    .describe('Required parameter of `insert` command. The `new_str` will be inserted AFTER the line `insert_line` of `path`.'),
  view_range: z
    .array(z.number().int())
    .optional()
    .describe(
      'Optional parameter of `view` command when `path` points to a file. If none is given, the full file is shown. If provided, the file will be shown in the indicated line number range, e.g. [11, 12] will show lines 11 and 12. Indexing at 1 to start. Setting `[start_line, -1]` shows all lines from `start_line` to the end of the file.',
    ),
});
type Args = z.infer<typeof parameters>;

/** The checks SWE-agent makes before any command: absolute path, existence, directory. */
function checkPath(ctx: ToolContext, command: Args['command'], path: string, found: FileLookup): ToolResult | undefined {
  const shown = pathAsGiven(path);
  if (!path.startsWith('/')) {
    const suggested = pathAsGiven(`${ctx.state.workingDir}/${path}`);
    return failed(`The path ${shown} is not an absolute path, it should start with \`/\`. Maybe you meant ${suggested}?`, 6);
  }
  if (found.kind === 'missing' && command !== 'create') return failed(`The path ${shown} does not exist. Please provide a valid path.`, 7);
  if (found.kind !== 'missing' && command === 'create') {
    return failed(`File already exists at: ${shown}. Cannot overwrite files using command \`create\`.`, 8);
  }
  if (found.kind === 'directory' && command !== 'view') {
    return failed(`The path ${shown} is a directory and only the \`view\` command can be used on directories`, 9);
  }
  return undefined;
}

async function write(ctx: ToolContext, path: string, text: string): Promise<void> {
  const { exitCode, output } = await runTool(ctx, writeScript(path, text));
  if (exitCode !== 0) throw new Error(`could not write ${path}: ${output.trim()}`);
}

/** The listing `view` shows for a directory, run in the lookup's round trip. */
function directoryListingScript(path: string): string {
  return `find ${shellQuote(path)} -maxdepth 2 -not -path '*/\\.*'`;
}

function viewDirectory(path: string, viewRange: number[] | undefined, listing: string): ToolResult {
  if (viewRange && viewRange.length > 0) return failed('The `view_range` parameter is not allowed when `path` points to a directory.', 10);
  return done(`Here's the files and directories up to 2 levels deep in ${path}, excluding hidden items:\n${listing}\n`);
}

/**
 * Function bodies of a Python file as 0-based first and last lines, from Python's own parser in
 * the sandbox (SWE-agent asks tree-sitter the same question); a decorated first statement starts
 * at its decorator. Undefined when the file does not parse or there is no python3.
 */
const FUNCTION_BODIES_SCRIPT = [
  'import ast, sys',
  'tree = ast.parse(open(sys.argv[1], encoding="utf-8", errors="replace").read())',
  'for node in ast.walk(tree):',
  '    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):',
  '        first = node.body[0]',
  '        start = min([first.lineno] + [d.lineno for d in getattr(first, "decorator_list", [])])',
  '        print(start - 1, node.body[-1].end_lineno - 1)',
].join('\n');

async function functionBodies(ctx: ToolContext, path: string): Promise<Array<[number, number]> | undefined> {
  const { output, exitCode } = await runTool(ctx, `python3 -c ${shellQuote(FUNCTION_BODIES_SCRIPT)} ${shellQuote(path)} 2>/dev/null`);
  if (exitCode !== 0) return undefined;
  return output
    .split('\n')
    .filter((line) => /^\d+ \d+$/.test(line))
    .map((line) => line.split(' ').map(Number) as [number, number]);
}

async function viewWholeFile(ctx: ToolContext, path: string, text: string): Promise<ToolResult> {
  const bodies = ctx.config.useFilemap && path.endsWith('.py') && text.length > MAX_RESPONSE_LEN ? await functionBodies(ctx, path) : undefined;
  if (!bodies) return done(catN(text, path));
  return done(
    '<NOTE>This file is too large to display entirely. Showing abbreviated version. Please use `str_replace_editor view` with the `view_range` parameter to show selected lines next.</NOTE>\n' +
      `${maybeTruncate(expandTabs(filemap(text, bodies)))}\n` +
      '<IMPORTANT><NOTE>The above file has been abbreviated. Please use `str_replace editor view` with `view_range` to look at relevant files in detail.</NOTE></IMPORTANT>',
  );
}

function viewFile(path: string, text: string, viewRange: number[]): ToolResult {
  const shown = `[${viewRange.join(', ')}]`;
  if (viewRange.length !== 2) return failed('Invalid `view_range`. It should be a list of two integers.', 11);
  const lines = text.split('\n');
  const [first, requestedLast] = viewRange as [number, number];
  if (first < 1 || first > lines.length) {
    return failed(`Invalid \`view_range\`: ${shown}. Its first element \`${first}\` should be within the range of lines of the file: [1, ${lines.length}]`, 12);
  }
  if (requestedLast > lines.length) {
    return failed(
      `Invalid \`view_range\`: ${shown}. Its second element \`${requestedLast}\` should be smaller than the number of lines in the file: \`${lines.length}\``,
      13,
    );
  }
  if (requestedLast !== -1 && requestedLast < first) {
    return failed(`Invalid \`view_range\`: ${shown}. Its second element \`${requestedLast}\` should be larger or equal than its first \`${first}\``, 14);
  }
  const last = requestedLast === -1 ? lines.length : requestedLast;
  return done(catN(lines.slice(first - 1, last).join('\n'), path, first));
}

async function strReplace(ctx: ToolContext, path: string, original: string, oldStr: string, newStr: string | undefined): Promise<ToolResult> {
  const content = expandTabs(original);
  const old = expandTabs(oldStr);
  const replacement = newStr === undefined ? '' : expandTabs(newStr);
  const count = occurrences(content, old);
  if (count === 0) return failed(`No replacement was performed, old_str \`${old}\` did not appear verbatim in ${path}.`, 15);
  if (count > 1) {
    const lines = content.split('\n').flatMap((line, i) => (line.includes(old) ? [i + 1] : []));
    return failed(`No replacement was performed. Multiple occurrences of old_str \`${old}\` in lines [${lines.join(', ')}]. Please ensure it is unique`, 16);
  }
  if (replacement === old) return failed(`No replacement was performed, old_str \`${old}\` is the same as new_str \`${replacement}\`.`, 161);
  const updated = content.split(old).join(replacement);
  await write(ctx, path, updated);
  const replacementLine = (content.split(old)[0] ?? '').split('\n').length - 1;
  const start = Math.max(1, replacementLine - SNIPPET_LINES);
  const end = Math.min(replacementLine + SNIPPET_LINES + replacement.split('\n').length - 1, countLines(updated));
  const snippet = updated
    .split('\n')
    .slice(start - 1, end)
    .join('\n');
  return done(
    `The file ${path} has been edited. ${catN(snippet, `a snippet of ${path}`, start)}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
  );
}

async function insert(ctx: ToolContext, path: string, original: string, line: number, newStr: string): Promise<ToolResult> {
  const text = expandTabs(original);
  const inserted = expandTabs(newStr).split('\n');
  const lines = text.split('\n');
  if (line < 0 || line > lines.length) {
    return failed(`Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${lines.length}]`, 17);
  }
  const updated = [...lines.slice(0, line), ...inserted, ...lines.slice(line)].join('\n');
  const snippet = [...lines.slice(Math.max(0, line - SNIPPET_LINES), line), ...inserted, ...lines.slice(line, line + SNIPPET_LINES)].join('\n');
  await write(ctx, path, updated);
  return done(
    `The file ${path} has been edited. ${catN(snippet, 'a snippet of the edited file', Math.max(1, line - SNIPPET_LINES + 1))}` +
      'Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.',
  );
}

/**
 * SWE-agent's editor appends to a copy of its history that it never saves (its `_file_history`
 * property hands out a fresh dict), so `undo_edit` finds nothing in every version measured
 * (1.0.1, 1.1.0, 3ea751c0); recordings show the same. Replays must print what it printed.
 */
function undo(path: string): ToolResult {
  return failed(`No edit history found for ${path}.`, 18);
}

async function run(ctx: ToolContext, args: Args): Promise<ToolResult> {
  const { command, path: given } = args;
  const path = pathAsGiven(given);
  const listing = command === 'view' && !(args.view_range && args.view_range.length > 0) ? directoryListingScript(path) : undefined;
  const found = given.startsWith('/') ? await lookupFile(ctx, given, listing) : { kind: 'missing' as const };
  const refused = checkPath(ctx, command, given, found);
  if (refused) return refused;
  const text = found.kind === 'file' ? found.text : '';
  switch (command) {
    case 'view':
      if (found.kind === 'directory') return viewDirectory(path, args.view_range, found.listing ?? '');
      return args.view_range && args.view_range.length > 0 ? viewFile(path, text, args.view_range) : viewWholeFile(ctx, path, text);
    case 'create': {
      if (args.file_text === undefined) return failed('Parameter `file_text` is required for command: create', 1);
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      const { output } = await runTool(ctx, `[ -d ${shellQuote(parent)} ] && echo yes || echo no`);
      if (output.trim() !== 'yes') return failed(`The parent directory ${parent} does not exist. Please create it first.`, 21);
      await write(ctx, path, args.file_text);
      return done(`File created successfully at: ${path}`);
    }
    case 'str_replace':
      if (args.old_str === undefined) return failed('Parameter `old_str` is required for command: str_replace', 2);
      return strReplace(ctx, path, text, args.old_str, args.new_str);
    case 'insert':
      if (args.insert_line === undefined) return failed('Parameter `insert_line` is required for command: insert', 3);
      if (args.new_str === undefined) return failed('Parameter `new_str` is required for command: insert', 4);
      return insert(ctx, path, text, args.insert_line, args.new_str);
    case 'undo_edit':
      return undo(path);
  }
}

const strReplaceEditor = defineTool({
  name: 'str_replace_editor',
  bundle: 'edit_anthropic',
  description: `Custom editing tool for viewing, creating and editing files
* State is persistent across command calls and discussions with the user
* If \`path\` is a file, \`view\` displays the result of applying \`cat -n\`. If \`path\` is a directory, \`view\` lists non-hidden files and directories up to 2 levels deep
* The \`create\` command cannot be used if the specified \`path\` already exists as a file
* If a \`command\` generates a long output, it will be truncated and marked with \`<response clipped>\`
* The \`undo_edit\` command will revert the last edit made to the file at \`path\`

Notes for using the \`str_replace\` command:
* The \`old_str\` parameter should match EXACTLY one or more consecutive lines from the original file. Be mindful of whitespaces!
* If the \`old_str\` parameter is not unique in the file, the replacement will not be performed. Make sure to include enough context in \`old_str\` to make it unique
* The \`new_str\` parameter should contain the edited lines that should replace the \`old_str\`
`,
  signature: 'str_replace_editor <command> <path> [<file_text>] [<view_range>] [<old_str>] [<new_str>] [<insert_line>]',
  parameters,
  run,
});

export const strReplaceEditorTools = [strReplaceEditor];
