/**
 * OpenHands' `edit` action with its editor (openhands-aci `OHEditor`): create, str_replace,
 * insert and undo_edit, with the editor's refusals (`ERROR:\n...`). A successful edit is
 * observed, as OpenHands records it, as the diff of the file (`get_diff`: Python's unified diff
 * without context, trailing spaces trimmed). Files are read as Python's text mode reads them
 * (`\r\n` and a lone `\r` as `\n`) and written back so.
 */
import { unifiedDiff } from '../../diff/sequenceMatcher';
import type { AciState, ToolContext, ToolResult } from '../../aci/toolDefinition';
import { universalNewlines } from '../../aci/sandboxFiles';
import { pathKind } from '../openHandsEditorView';

/**
 * What OpenHands' editor keeps between calls: the earlier contents of each file it changed, oldest
 * first, for `undo_edit`. Plain JSON values (the session copies its families' slots as such for a fork);
 * keyed by absolute path (each starts with `/`, so none is `__proto__`).
 */
interface OpenHandsToolState {
  fileHistory: Record<string, string[]>;
}

/** OpenHands' part of the session's tool state, made the first time the editor reads it. */
function openHandsState(state: AciState): OpenHandsToolState {
  state.families['openhands'] ??= { fileHistory: {} } satisfies OpenHandsToolState;
  return state.families['openhands'] as OpenHandsToolState;
}

const refused = (message: string): ToolResult => ({ observation: `ERROR:\n${message}`, exitCode: 1 });
const invalid = (parameter: string, value: unknown, hint: string) => refused(`Invalid \`${parameter}\` parameter: ${String(value)}. ${hint}`);

function editDiff(before: string, after: string, path: string): string {
  return unifiedDiff(before.split('\n'), after.split('\n'), path, path, 0)
    .map((l) => l.trimEnd())
    .join('\n');
}

/** Line numbers (1-based) where `needle` starts in `text`, every occurrence. */
function occurrences(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let at = text.indexOf(needle); at >= 0 && needle !== ''; at = text.indexOf(needle, at + 1)) lines.push(text.slice(0, at).split('\n').length);
  return lines;
}

export async function openHandsEdit(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult> {
  const command = String(args.command ?? '');
  const path = String(args.path ?? '');
  if (!path.startsWith('/')) return invalid('path', path, 'The path should be an absolute path, starting with `/`.');
  const kind = await pathKind(ctx, path);
  if (command === 'create' && kind !== 'none')
    return invalid('path', path, `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`);
  if (command !== 'create' && kind === 'none') return invalid('path', path, `The path ${path} does not exist. Please provide a valid path.`);
  if (kind === 'dir') return invalid('path', path, `The path ${path} is a directory and only the \`view\` command can be used on directories.`);
  const history = openHandsState(ctx.state).fileHistory;
  const write = async (before: string, after: string) => {
    await ctx.sandbox.writeFile(path, after);
    history[path] = [...(history[path] ?? []), before];
    return { observation: editDiff(before, after, path), exitCode: 0 };
  };
  if (command === 'create') {
    if (typeof args.file_text !== 'string') return refused(`Parameter \`file_text\` is required for command: create.`);
    return write('', args.file_text);
  }
  // The editor reads in Python's text mode and writes what it read: an edit leaves `\n` line ends.
  const before = universalNewlines(await ctx.sandbox.readFile(path));
  if (command === 'str_replace') {
    if (typeof args.old_str !== 'string') return refused('Parameter `old_str` is required for command: str_replace.');
    const replacement = typeof args.new_str === 'string' ? args.new_str : '';
    if (replacement === args.old_str) return invalid('new_str', args.new_str, 'No replacement was performed. `new_str` and `old_str` must be different.');
    const found = occurrences(before, args.old_str);
    if (found.length === 0) return refused(`No replacement was performed, old_str \`${args.old_str}\` did not appear verbatim in ${path}.`);
    if (found.length > 1)
      return refused(
        `No replacement was performed. Multiple occurrences of old_str \`${args.old_str}\` in lines [${[...new Set(found)].join(', ')}]. Please ensure it is unique.`,
      );
    const at = before.indexOf(args.old_str);
    return write(before, before.slice(0, at) + replacement + before.slice(at + args.old_str.length));
  }
  if (command === 'insert') {
    if (typeof args.insert_line !== 'number') return refused('Parameter `insert_line` is required for command: insert.');
    if (typeof args.new_str !== 'string') return refused('Parameter `new_str` is required for command: insert.');
    const lines = before.split(/(?<=\n)/).filter((l) => l !== '');
    if (args.insert_line < 0 || args.insert_line > lines.length)
      return invalid('insert_line', args.insert_line, `It should be within the range of allowed values: [0, ${lines.length}]`);
    const added = args.new_str.split('\n').map((l) => `${l}\n`);
    return write(before, [...lines.slice(0, args.insert_line), ...added, ...lines.slice(args.insert_line)].join(''));
  }
  if (command === 'undo_edit') {
    const kept = history[path] ?? [];
    const previous = kept.pop();
    if (previous === undefined) return refused(`No edit history found for ${path}.`);
    await ctx.sandbox.writeFile(path, previous);
    return { observation: editDiff(before, previous, path), exitCode: 0 };
  }
  return refused(`Unrecognized command ${command}. The allowed commands for the oh_editor tool are: view, create, str_replace, insert, undo_edit`);
}
