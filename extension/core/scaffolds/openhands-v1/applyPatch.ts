/**
 * V1's `apply_patch` (openhands-tools 1.43.1 `ApplyPatchExecutor`): the `*** Begin Patch` ...
 * `*** End Patch` format of OpenAI's GPT-5 prompting guide, parsed and applied as the SDK does:
 * the same section and context matching (exact, then ignoring trailing, then all surrounding
 * white space; `*** End of File` anchors at the end), the same refusals word for word
 * (`DiffError`'s text after the error header), files read as Python's text mode reads them and
 * written back with `\n`, every path kept inside the workspace. Success reads `Done!`.
 */
import { shellQuote } from '../../parsing/shellWords';
import { universalNewlines } from '../../aci/sandboxFiles';
import type { ToolContext, ToolResult } from '../../aci/toolDefinition';

const ERROR_HEADER = '[An error occurred during execution.]\n';

class DiffError extends Error {}

const SECTION_ENDS = ['@@', '*** End Patch', '*** Update File:', '*** Delete File:', '*** Add File:', '*** End of File'];
const startsWithAny = (line: string, prefixes: readonly string[]) => prefixes.some((p) => line.startsWith(p));

/** Python's `list[a:b]`, negative bounds counted from the end (the end-of-file search can start before 0). */
function pySlice<T>(items: readonly T[], start: number, end: number): T[] {
  const at = (i: number) => (i < 0 ? Math.max(0, items.length + i) : Math.min(i, items.length));
  return items.slice(at(start), at(end));
}

interface Chunk {
  origIndex: number;
  del: string[];
  ins: string[];
}
type Action = { type: 'add'; newFile: string } | { type: 'delete' } | { type: 'update'; chunks: Chunk[]; movePath: string };

const sameLines = (a: readonly string[], b: readonly string[], norm: (s: string) => string) =>
  a.length === b.length && a.every((s, i) => norm(s) === norm(b[i]!));

/** Where `context` starts at or after `start`: exact, then with trailing white space ignored, then all. */
function findContextCore(lines: readonly string[], context: readonly string[], start: number): number {
  if (context.length === 0) return start;
  for (const norm of [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => s.trim()]) {
    for (let i = start; i < lines.length; i++) if (sameLines(pySlice(lines, i, i + context.length), context, norm)) return i;
  }
  return -1;
}

function findContext(lines: readonly string[], context: readonly string[], start: number, eof: boolean): number {
  if (eof) {
    const atEnd = findContextCore(lines, context, lines.length - context.length);
    if (atEnd !== -1) return atEnd;
  }
  return findContextCore(lines, context, start);
}

/** The next section of an update: its context lines (kept and deleted), its chunks, where it ends, and whether it ends the file. */
function peekNextSection(lines: readonly string[], start: number): { old: string[]; chunks: Chunk[]; next: number; eof: boolean } {
  const old: string[] = [];
  const chunks: Chunk[] = [];
  let del: string[] = [];
  let ins: string[] = [];
  let mode = 'keep';
  let index = start;
  const flush = () => {
    if (ins.length || del.length) chunks.push({ origIndex: old.length - del.length, del, ins });
    del = [];
    ins = [];
  };
  while (index < lines.length) {
    let s = lines[index]!;
    if (startsWithAny(s, SECTION_ENDS) || s === '***') break;
    if (s.startsWith('***')) throw new DiffError(`Invalid Line: ${s}`);
    index++;
    const last = mode;
    if (s === '') s = ' ';
    if (s[0] === '+') mode = 'add';
    else if (s[0] === '-') mode = 'delete';
    else if (s[0] === ' ') mode = 'keep';
    else throw new DiffError(`Invalid Line: ${s}`);
    s = s.slice(1);
    if (mode === 'keep' && last !== mode) flush();
    if (mode === 'delete') {
      del.push(s);
      old.push(s);
    } else if (mode === 'add') ins.push(s);
    else old.push(s);
  }
  flush();
  if (index < lines.length && lines[index] === '*** End of File') return { old, chunks, next: index + 1, eof: true };
  if (index === start) throw new DiffError(`Nothing in this section - index=${index} ${lines[index]}`);
  return { old, chunks, next: index, eof: false };
}

/** The patch's actions, in the order written, read against the files it updates or deletes. */
function parsePatch(text: string, files: ReadonlyMap<string, string>): Map<string, Action> {
  const lines = text.trim().split('\n');
  if (lines.length < 2 || !lines[0]!.startsWith('*** Begin Patch') || lines[lines.length - 1] !== '*** End Patch') throw new DiffError('Invalid patch text');
  const actions = new Map<string, Action>();
  let index = 1;
  const done = (prefixes: readonly string[]) => index >= lines.length || startsWithAny(lines[index]!, prefixes);
  const read = (prefix: string): string => {
    if (index >= lines.length) throw new DiffError(`Unexpected end of patch at index ${index}`);
    const line = lines[index]!;
    if (!line.startsWith(prefix)) return '';
    index++;
    return line.slice(prefix.length);
  };

  const parseUpdate = (text: string): Action & { type: 'update' } => {
    const action: Action & { type: 'update' } = { type: 'update', chunks: [], movePath: '' };
    const fileLines = text.split('\n');
    let at = 0;
    while (!done(['*** End Patch', '*** Update File:', '*** Delete File:', '*** Add File:', '*** End of File'])) {
      const defStr = read('@@ ');
      let section = '';
      if (!defStr && lines[index] === '@@') {
        section = '@@';
        index++;
      }
      if (!(defStr || section || at === 0)) throw new DiffError(`Invalid Line:\n${lines[index]}`);
      if (defStr.trim()) {
        let found = false;
        if (!fileLines.slice(0, at).some((s) => s === defStr)) {
          const i = fileLines.indexOf(defStr, at);
          if (i !== -1) {
            at = i + 1;
            found = true;
          }
        }
        if (!found && !fileLines.slice(0, at).some((s) => s.trim() === defStr.trim())) {
          const i = fileLines.findIndex((s, j) => j >= at && s.trim() === defStr.trim());
          if (i !== -1) at = i + 1;
        }
      }
      const section_ = peekNextSection(lines, index);
      const found = findContext(fileLines, section_.old, at, section_.eof);
      if (found === -1) throw new DiffError(`Invalid ${section_.eof ? 'EOF ' : ''}Context ${at}:\n${section_.old.join('\n')}`);
      for (const chunk of section_.chunks) action.chunks.push({ ...chunk, origIndex: chunk.origIndex + found });
      at = found + section_.old.length;
      index = section_.next;
    }
    return action;
  };

  while (!done(['*** End Patch'])) {
    let path = read('*** Update File: ');
    if (path) {
      if (actions.has(path)) throw new DiffError(`Update File Error: Duplicate Path: ${path}`);
      const moveTo = read('*** Move to: ');
      if (moveTo && (moveTo.split('/').includes('..') || moveTo.startsWith('/')))
        throw new DiffError(`Update File Error: Invalid move path '${moveTo}': must be a relative path without '..' components`);
      const text = files.get(path);
      if (text === undefined) throw new DiffError(`Update File Error: Missing File: ${path}`);
      const action = parseUpdate(text);
      action.movePath = moveTo;
      actions.set(path, action);
      continue;
    }
    path = read('*** Delete File: ');
    if (path) {
      if (actions.has(path)) throw new DiffError(`Delete File Error: Duplicate Path: ${path}`);
      if (!files.has(path)) throw new DiffError(`Delete File Error: Missing File: ${path}`);
      actions.set(path, { type: 'delete' });
      continue;
    }
    path = read('*** Add File: ');
    if (path) {
      if (actions.has(path)) throw new DiffError(`Add File Error: Duplicate Path: ${path}`);
      const added: string[] = [];
      while (!done(['*** End Patch', '*** Update File:', '*** Delete File:', '*** Add File:'])) {
        const s = read('');
        if (!s.startsWith('+')) throw new DiffError(`Invalid Add File Line: ${s}`);
        added.push(s.slice(1));
      }
      actions.set(path, { type: 'add', newFile: added.join('\n') });
      continue;
    }
    throw new DiffError(`Unknown Line: ${lines[index]}`);
  }
  if (index >= lines.length) throw new DiffError(`Unexpected end of patch at index ${index}`);
  if (!lines[index]!.startsWith('*** End Patch')) throw new DiffError('Missing End Patch');
  return actions;
}

function updatedText(text: string, chunks: readonly Chunk[], path: string): string {
  const orig = text.split('\n');
  const dest: string[] = [];
  let at = 0;
  for (const chunk of chunks) {
    if (chunk.origIndex > orig.length) throw new DiffError(`_get_updated_file: ${path}: chunk.orig_index ${chunk.origIndex} > len(lines) ${orig.length}`);
    if (at > chunk.origIndex) throw new DiffError(`_get_updated_file: ${path}: orig_index ${at} > chunk.orig_index ${chunk.origIndex}`);
    dest.push(...orig.slice(at, chunk.origIndex), ...chunk.ins);
    at = chunk.origIndex + chunk.del.length;
  }
  dest.push(...orig.slice(at));
  return dest.join('\n');
}

/** The files the patch names as updated or deleted, which are read before it is parsed. */
function filesNeeded(text: string): string[] {
  const paths = new Set<string>();
  for (const line of text.trim().split('\n')) {
    for (const prefix of ['*** Update File: ', '*** Delete File: ']) if (line.startsWith(prefix)) paths.add(line.slice(prefix.length));
  }
  return [...paths];
}

/** The sandbox's file operations, each path resolved (symlinks followed) and refused outside the workspace. */
class Workspace {
  constructor(private readonly ctx: ToolContext) {}

  private async resolve(p: string): Promise<string> {
    const root = this.ctx.sandbox.repoPath;
    const r = await this.ctx.sandbox.exec(`cd -- ${shellQuote(root)} && realpath -m -- ${shellQuote(root)} ${shellQuote(p)}`, { timeoutMs: 10_000 });
    const [realRoot = root, real = ''] = r.output.split('\n');
    if (real !== realRoot && !real.startsWith(realRoot === '/' ? '/' : `${realRoot}/`)) throw new DiffError('Absolute or escaping paths are not allowed');
    return real;
  }

  async read(p: string): Promise<string | undefined> {
    const real = await this.resolve(p);
    const exists = await this.ctx.sandbox.exec(`[ -f ${shellQuote(real)} ]`, { timeoutMs: 10_000 });
    return exists.exitCode === 0 ? universalNewlines(await this.ctx.sandbox.readFile(real)) : undefined;
  }

  async write(p: string, text: string): Promise<void> {
    const real = await this.resolve(p);
    await this.ctx.sandbox.exec(`mkdir -p -- "$(dirname -- ${shellQuote(real)})"`, { timeoutMs: 10_000 });
    await this.ctx.sandbox.writeFile(real, text);
  }

  async remove(p: string): Promise<void> {
    const real = await this.resolve(p);
    await this.ctx.sandbox.exec(`rm -f -- ${shellQuote(real)}`, { timeoutMs: 10_000 });
  }
}

export async function v1ApplyPatch(ctx: ToolContext, patch: string): Promise<ToolResult> {
  const files = new Workspace(ctx);
  try {
    if (!patch.startsWith('*** Begin Patch')) throw new DiffError("Invalid patch: must start with '*** Begin Patch'");
    const orig = new Map<string, string>();
    for (const path of filesNeeded(patch)) {
      const text = await files.read(path);
      if (text === undefined) throw new DiffError(`Delete File Error: Missing File: ${path}`);
      orig.set(path, text);
    }
    const actions = parsePatch(patch, orig);
    const changes = [...actions].map(([path, action]) => ({
      path,
      action,
      text: action.type === 'update' ? updatedText(orig.get(path)!, action.chunks, path) : '',
    }));
    // Applied in the patch's order; a refusal part-way leaves the earlier changes made, as in V1.
    for (const { path, action, text } of changes) {
      if (action.type === 'delete') await files.remove(path);
      else if (action.type === 'add') await files.write(path, action.newFile);
      else if (action.movePath) {
        await files.write(action.movePath, text);
        await files.remove(path);
      } else await files.write(path, text);
    }
    return { observation: 'Done!', exitCode: 0 };
  } catch (err) {
    if (err instanceof DiffError) return { observation: ERROR_HEADER + err.message, exitCode: 1 };
    throw err;
  }
}
