/**
 * V1's `file_editor` (openhands-tools 1.43.1 `FileEditor`): `view` is V0's editor's (the same
 * listing and `cat -n`, with V1's note before a range cut at the end of the file rather than
 * after it); `create`, `str_replace`, `insert` and `undo_edit` as V1 words them: a snippet of
 * the edited lines, not V0's diff. A refusal is the SDK's ToolError text, which the model reads
 * after `[An error occurred during execution.]`. Files are read as Python's text mode reads them
 * (`\r\n` and a lone `\r` as `\n`).
 */
import { randomBytes } from 'node:crypto';
import type { AciState, ToolContext, ToolResult } from '../../aci/toolDefinition';
import { universalNewlines } from '../../aci/sandboxFiles';
import { shellQuote } from '../../parsing/shellWords';
import { openHandsView, viewText } from '../openHandsEditorView';

/** The SDK's `Observation.ERROR_MESSAGE_HEADER`, which the model reads before an error's text. */
const ERROR_HEADER = '[An error occurred during execution.]\n';
/** `SNIPPET_CONTEXT_WINDOW`: lines shown around an edit. */
const CONTEXT = 4;

const refused = (message: string): ToolResult => ({ observation: ERROR_HEADER + message, exitCode: 1 });
const invalid = (parameter: string, value: unknown, hint: string) => refused(`Invalid \`${parameter}\` parameter: ${String(value)}. ${hint}`);
const missing = (command: string, parameter: string) => refused(`Parameter \`${parameter}\` is required for command: ${command}.`);

/**
 * The editor's undo history (`FileHistoryManager`): each file's earlier texts, newest last. V1
 * records `create`'s new text too, so undoing a create writes the same text back. Plain JSON,
 * in V1's slot of the session's tool state (a fork copies it).
 */
function history(state: AciState): Record<string, string[]> {
  const slot = (state.families['openhands-v1'] ??= {}) as { fileHistory?: Record<string, string[]> };
  return (slot.fileHistory ??= {});
}

/** The file's lines as Python iterates them: each with its `\n`, the last without one if the file has none. */
const linesOf = (text: string) => text.split(/(?<=\n)/).filter((l) => l !== '');

/** `_make_output`: `cat -n` numbering of every `\n`-separated piece (a final empty one included). */
function catN(snippet: string, description: string, first: number): string {
  const rows = snippet.split('\n').map((row, i) => `${String(i + first).padStart(6)}\t${row}`);
  return `Here's the result of running \`cat -n\` on ${description}:\n${rows.join('\n')}\n`;
}

/** `read_file(path, start, end)`: lines start..end (1-based), each with its line end. */
const linesBetween = (text: string, start: number, end: number) =>
  linesOf(text)
    .slice(start - 1, end)
    .join('');

async function view(ctx: ToolContext, path: string, range: unknown, legacy: Decoded | undefined): Promise<ToolResult> {
  const asked = Array.isArray(range) && range.length === 2 && range.every(Number.isInteger) ? (range as [number, number]) : undefined;
  if (range != null && !asked) return invalid('view_range', JSON.stringify(range).replace(/,/g, ', '), 'It should be a list of two integers.');
  if (legacy?.error !== undefined) return refused(`Ran into ${legacy.error} while trying to read ${path}`);
  const result = legacy ? viewText(path, legacy.text ?? '', asked) : await openHandsView(ctx, path, asked);
  if (result.exitCode !== 0) return refused(result.observation.replace(/^ERROR:\n/, ''));
  // V0 notes a range past the end after the listing; V1 before it.
  const note = /\nNOTE: We only show up to (\d+) since there's only \d+ lines in this file\n$/.exec(result.observation);
  if (!note) return result;
  return {
    observation: `NOTE: We only show up to ${note[1]} since there're only ${note[1]} lines in this file.\n${result.observation.slice(0, note.index)}`,
    exitCode: 0,
  };
}

/** An edit's new text, and its observation from the text read back (V1 reads the snippet from the written file). */
interface Edit {
  after: string;
  observation: (written: string) => string;
}

function strReplace(path: string, before: string, args: Record<string, unknown>): Edit | ToolResult {
  if (typeof args.old_str !== 'string') return missing('str_replace', 'old_str');
  if (typeof args.new_str !== 'string') return missing('str_replace', 'new_str');
  const newStr = args.new_str;
  if (newStr === args.old_str) return invalid('new_str', newStr, 'No replacement was performed. `new_str` and `old_str` must be different.');
  const find = (needle: string) => {
    const found: number[] = [];
    for (let at = before.indexOf(needle); at >= 0 && needle !== ''; at = before.indexOf(needle, at + needle.length)) found.push(at);
    return found;
  };
  let oldStr = args.old_str;
  let found = find(oldStr);
  // Not found as given: V1 tries again with old_str stripped (never new_str).
  if (found.length === 0) {
    oldStr = oldStr.trim();
    found = find(oldStr);
    if (found.length === 0) return refused(`No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`);
  }
  const lineAt = (at: number) => before.slice(0, at).split('\n').length;
  if (found.length > 1) {
    const lines = [...new Set(found.map(lineAt))].sort((a, b) => a - b);
    return refused(`No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines [${lines.join(', ')}]. Please ensure it is unique.`);
  }
  const at = found[0]!;
  const after = before.slice(0, at) + newStr + before.slice(at + oldStr.length);
  const line = lineAt(at);
  const start = Math.max(0, line - CONTEXT);
  const end = line + CONTEXT + (newStr.match(/\n/g)?.length ?? 0);
  return {
    after,
    observation: (written) =>
      `The file ${path} has been edited. ${catN(linesBetween(written, start + 1, end), `a snippet of ${path}`, start + 1)}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
  };
}

function insert(path: string, before: string, args: Record<string, unknown>): Edit | ToolResult {
  if (typeof args.insert_line !== 'number') return missing('insert', 'insert_line');
  if (typeof args.new_str !== 'string') return missing('insert', 'new_str');
  const lines = linesOf(before);
  const line = args.insert_line;
  if (line < 0 || line > lines.length) return invalid('insert_line', line, `It should be within the range of allowed values: [0, ${lines.length}]`);
  const added = args.new_str.split('\n');
  const after = [...lines.slice(0, line), ...added.map((l) => `${l}\n`), ...lines.slice(line)].join('');
  const start = Math.max(0, line - CONTEXT);
  const end = Math.min(lines.length + added.length, line + CONTEXT + added.length);
  return {
    after,
    observation: (written) =>
      `The file ${path} has been edited. ${catN(linesBetween(written, start + 1, end), 'a snippet of the edited file', Math.max(1, line - CONTEXT + 1))}` +
      'Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.',
  };
}

/** `str(Path(p))`: empty and `.` components and a trailing `/` dropped (`..` kept), as the editor names a path. */
function pythonPath(p: string): string {
  const parts = p.split('/').filter((part) => part !== '' && part !== '.');
  return p.startsWith('/') ? `/${parts.join('/')}` : parts.join('/') || '.';
}

/**
 * The SDK's `EncodingManager` and text-mode read, run by the sandbox's Python for a file that is
 * not UTF-8: charset-normalizer's guess on the first MB when it is over 0.9 sure (`ascii` read as
 * UTF-8), else UTF-8, then the file read in it with universal newlines. `null` where Python or
 * charset-normalizer is missing (the file is then read as UTF-8, undecodable bytes as U+FFFD).
 */
const DECODE = [
  'import json, sys',
  'try:',
  '    import charset_normalizer',
  'except ImportError:',
  '    print("null"); sys.exit()',
  'path = sys.argv[1]',
  'with open(path, "rb") as f:',
  '    guess = charset_normalizer.detect(f.read(1024 * 1024))',
  'enc = guess["encoding"] if guess and guess["confidence"] and guess["confidence"] > 0.9 and guess["encoding"] else "utf-8"',
  'enc = "utf-8" if enc.lower() == "ascii" else enc',
  'try:',
  '    with open(path, encoding=enc) as f:',
  '        print(json.dumps({"encoding": enc, "text": "".join(f)}))',
  'except Exception as e:',
  '    print(json.dumps({"encoding": enc, "error": str(e)}))',
].join('\n');

/** `_atomic_write`'s encoding: the file's own, or UTF-8 when the new text does not fit in it. */
const ENCODE = [
  'import sys',
  'source, path, enc = sys.argv[1:4]',
  'with open(source, encoding="utf-8", newline="") as f:',
  '    text = f.read()',
  'try:',
  '    data = text.encode(enc)',
  'except (UnicodeEncodeError, LookupError):',
  '    data = text.encode("utf-8")',
  'with open(path, "wb") as f:',
  '    f.write(data)',
].join('\n');

/** binaryornot's `is_binary`, the SDK's test: exit 3 for binary, 4 for text. */
const IS_BINARY = 'import sys\nfrom binaryornot.check import is_binary\nsys.exit(3 if is_binary(sys.argv[1]) else 4)';

interface Decoded {
  encoding: string;
  text?: string;
  error?: string;
}

async function decode(ctx: ToolContext, path: string): Promise<Decoded | undefined> {
  const r = await ctx.sandbox.exec(`command -v python3 >/dev/null && python3 -c ${shellQuote(DECODE)} ${shellQuote(path)}`, {
    timeoutMs: 60_000,
    maxOutputBytes: Number.MAX_SAFE_INTEGER,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const line = r.output.trim();
  return r.exitCode === 0 && line.startsWith('{') ? (JSON.parse(line) as Decoded) : undefined;
}

/** Writes a file's new text, in its guessed encoding for one that was not UTF-8. */
async function writeText(ctx: ToolContext, path: string, text: string, encoding: string | undefined): Promise<void> {
  if (!encoding) return ctx.sandbox.writeFile(path, text);
  const staged = `/tmp/.swe-workbench-v1-${randomBytes(6).toString('hex')}`;
  await ctx.sandbox.writeFile(staged, text);
  const r = await ctx.sandbox.exec(`python3 -c ${shellQuote(ENCODE)} ${staged} ${shellQuote(path)} ${shellQuote(encoding)}; s=$?; rm -f ${staged}; exit $s`, {
    timeoutMs: 60_000,
  });
  if (r.exitCode !== 0) throw new Error(`cannot write ${path} in the sandbox: ${r.output.slice(0, 500).trim()}`);
}

interface Probe {
  kind: 'dir' | 'file' | 'none';
  /** binaryornot's verdict: a NUL or 0xFF in the first 1024 bytes, confirmed by binaryornot where the sandbox has it. */
  binary: boolean;
  /** What the file's folder is (a create writes into it and makes no folders). */
  parent: 'dir' | 'file' | 'none';
  /** The file's size in bytes (0 for anything else). */
  size: number;
  /** A file whose bytes are not UTF-8 (V1 guesses their encoding). */
  legacy: boolean;
}

/** The path's kind, whether it reads as binary, and its folder's kind, in one round trip. */
async function probe(ctx: ToolContext, path: string): Promise<Probe> {
  const q = shellQuote(path);
  const parent = shellQuote(path.slice(0, path.lastIndexOf('/')) || '/');
  const kindOf = (p: string) => `if [ -d ${p} ]; then echo dir; elif [ -e ${p} ]; then echo file; else echo none; fi`;
  // A NUL or 0xFF is asked again of binaryornot itself where the sandbox has it: a cp1251 `я` is 0xFF.
  const binary =
    `if [ -f ${q} ] && [ "$(head -c 1024 -- ${q} | wc -c)" != "$(head -c 1024 -- ${q} | tr -d '\\000\\377' | wc -c)" ]; then ` +
    `{ command -v python3 >/dev/null && python3 -c ${shellQuote(IS_BINARY)} ${q} 2>/dev/null; }; case $? in 4) echo text;; *) echo binary;; esac; ` +
    `else echo text; fi`;
  const size = `if [ -f ${q} ]; then stat -L -c %s -- ${q}; else echo 0; fi`;
  const legacy = `if [ -f ${q} ] && command -v iconv >/dev/null && ! iconv -f UTF-8 -t UTF-8 -- ${q} >/dev/null 2>&1; then echo legacy; else echo utf8; fi`;
  const out = (await ctx.sandbox.exec(`${kindOf(q)}; ${binary}; ${kindOf(parent)}; ${size}; ${legacy}`, { timeoutMs: 30_000 })).output.trim().split('\n');
  return {
    kind: out[0] as Probe['kind'],
    binary: out[1] === 'binary',
    parent: out[2] as Probe['parent'],
    size: Number(out[3] ?? 0),
    legacy: out[4] === 'legacy',
  };
}

const BINARY = 'File appears to be binary and this file type cannot be read or edited by this tool.';
/** `MAX_FILE_SIZE_MB`: a larger file is refused before it is read. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** `f"{size / 1024 / 1024:.1f}"`: megabytes to one decimal, a tie rounded to even as Python does. */
function megabytes(size: number): string {
  const scaled = size * 10;
  const unit = 1024 * 1024;
  let tenths = Math.floor(scaled / unit);
  const rest = scaled - tenths * unit;
  if (rest * 2 > unit || (rest * 2 === unit && tenths % 2 === 1)) tenths += 1;
  return `${Math.floor(tenths / 10)}.${tenths % 10}`;
}

/** `validate_file`: the size first, then binaryornot's verdict. */
function invalidFile(path: string, { size, binary }: Probe): ToolResult | undefined {
  if (size > MAX_FILE_BYTES)
    return refused(`File validation failed for ${path}: File is too large (${megabytes(size)}MB). Maximum allowed size is ${MAX_FILE_BYTES / 1024 / 1024}MB.`);
  return binary ? refused(`File validation failed for ${path}: ${BINARY}`) : undefined;
}

/**
 * The editor's write: a temporary file beside the target, then renamed over it. It makes no
 * folders, so a missing one fails with Python's OSError text naming that temporary file
 * (`tempfile.mkstemp`'s random eight characters).
 */
async function writeInto(ctx: ToolContext, path: string, text: string, parent: Probe['parent']): Promise<ToolResult | undefined> {
  if (parent === 'dir') {
    await ctx.sandbox.writeFile(path, text);
    return undefined;
  }
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789_';
  const random = [...randomBytes(8)].map((b) => alphabet[b % alphabet.length]).join('');
  const slash = path.lastIndexOf('/');
  const tmp = `${path.slice(0, slash)}/.${path.slice(slash + 1)}.${random}.tmp`;
  const errno = parent === 'none' ? '[Errno 2] No such file or directory' : '[Errno 20] Not a directory';
  return refused(`Ran into ${errno}: '${tmp}' while trying to write to ${path}`);
}

export async function v1FileEditor(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult> {
  const command = String(args.command ?? '');
  const path = pythonPath(String(args.path ?? ''));
  if (!path.startsWith('/')) {
    // The editor suggests the path under the workspace when something is there.
    const suggested = pythonPath(`${ctx.sandbox.repoPath}/${path}`);
    const there = (await probe(ctx, suggested)).kind !== 'none';
    return invalid('path', path, `The path should be an absolute path.${there ? ` Maybe you meant ${suggested}?` : ''}`);
  }
  const probed = await probe(ctx, path);
  const { kind, parent } = probed;
  // validate_path's checks come first, then reading the file refuses one too large or binary.
  const unreadable = invalidFile(path, probed);
  // A file that is not UTF-8 is read in the encoding V1 would guess (validation comes first).
  const legacy = probed.legacy && !unreadable ? await decode(ctx, path) : undefined;
  if (command === 'view') return unreadable ?? view(ctx, path, args.view_range, legacy);
  if (command === 'create' && kind !== 'none')
    return invalid('path', path, `File already exists at: ${path}. Cannot overwrite files using command \`create\`.`);
  if (command !== 'create' && kind === 'none') return invalid('path', path, `The path ${path} does not exist. Please provide a valid path.`);
  if (kind === 'dir') return invalid('path', path, `The path ${path} is a directory and only the \`view\` command can be used on directories.`);
  if (unreadable) return unreadable;
  const kept = history(ctx.state);
  if (command === 'create') {
    if (typeof args.file_text !== 'string') return missing('create', 'file_text');
    const failed = await writeInto(ctx, path, args.file_text, parent);
    if (failed) return failed;
    kept[path] = [...(kept[path] ?? []), args.file_text];
    return { observation: `File created successfully at: ${path}`, exitCode: 0 };
  }
  if (!['str_replace', 'insert', 'undo_edit'].includes(command))
    return refused(`Unrecognized command ${command}. The allowed commands for FileEditor tool are: view, create, str_replace, insert, undo_edit`);
  if (command === 'undo_edit') {
    const previous = kept[path]?.pop();
    if (previous === undefined) return refused(`No edit history found for ${path}.`);
    await writeText(ctx, path, previous, legacy?.encoding);
    return { observation: `Last edit to ${path} undone successfully. ${catN(previous, path, 1)}`, exitCode: 0 };
  }
  if (legacy?.error !== undefined) return refused(`Ran into ${legacy.error} while trying to read ${path}`);
  const before = legacy ? (legacy.text ?? '') : universalNewlines(await ctx.sandbox.readFile(path));
  const edit = command === 'str_replace' ? strReplace(path, before, args) : insert(path, before, args);
  if ('exitCode' in edit) return edit;
  await writeText(ctx, path, edit.after, legacy?.encoding);
  kept[path] = [...(kept[path] ?? []), before];
  // Read back in the encoding guessed anew for the written bytes, which may differ from the first guess.
  const written = legacy ? ((await decode(ctx, path))?.text ?? edit.after) : edit.after;
  return { observation: edit.observation(written), exitCode: 0 };
}
