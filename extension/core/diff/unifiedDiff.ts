import { InputError } from '../errors';

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** What follows the second `@@` (often the enclosing function). */
  section: string;
  /** Body lines with their ' ', '-', '+' or '\' prefix. */
  lines: string[];
}

export interface FilePatch {
  /** Repository-relative path before the change; null for a new file. */
  oldPath: string | null;
  /** Repository-relative path after the change; null for a deleted file. */
  newPath: string | null;
  /** Extended git header lines (`new file mode`, `index`, `rename from` ...). */
  extended: string[];
  hunks: Hunk[];
  /** 1-based line of the section's first line in the diff text. */
  line: number;
  /** The section's text as written. */
  text: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/**
 * Parses a unified diff (git or plain). Hunk bodies are checked against their header counts,
 * and paths are checked to stay inside the repository: no absolute path, no `..` segment.
 */
export function parseUnifiedDiff(text: string, file?: string): FilePatch[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const patches: FilePatch[] = [];
  let current: FilePatch | undefined;
  let start = 0;
  const close = (end: number) => {
    if (current) current.text = lines.slice(start, end).join('\n') + '\n';
  };
  const fail = (i: number, problem: string): never => {
    throw new InputError(file, `line ${i + 1}`, problem);
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const beginsPlain = line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ') && (!current || current.hunks.length > 0);
    if (line.startsWith('diff --git ') || beginsPlain) {
      close(i);
      current = { oldPath: null, newPath: null, extended: [], hunks: [], line: i + 1, text: '' };
      start = i;
      patches.push(current);
      if (line.startsWith('diff --git ')) {
        const [oldPath, newPath] = gitHeaderPaths(line.slice(11), (p) => fail(i, p));
        current.oldPath = oldPath;
        current.newPath = newPath;
        continue;
      }
    }
    if (line === '-- ' && current?.hunks.length) {
      close(i);
      current = undefined; // `git format-patch` ends with a signature: `-- ` then the git version
      break;
    }
    if (!current) {
      if (line.startsWith('@@')) fail(i, 'hunk before any file header');
      continue; // text before the first file (a commit message) is allowed
    }
    if (line.startsWith('--- ')) current.oldPath = headerPath(line.slice(4), 'a/', (p) => fail(i, p));
    else if (line.startsWith('+++ ')) current.newPath = headerPath(line.slice(4), 'b/', (p) => fail(i, p));
    else if (line.startsWith('@@')) i = readHunk(lines, i, current, fail);
    else if (/^(rename|copy) (from|to) /.test(line)) {
      const path = checkedPath(unquote(line.replace(/^\S+ \S+ /, '')), (p) => fail(i, p));
      if (line.includes(' from ')) current.oldPath = path;
      else current.newPath = path;
      current.extended.push(line);
    } else if (line.startsWith('new file mode')) {
      current.oldPath = null;
      current.extended.push(line);
    } else if (line.startsWith('deleted file mode')) {
      current.newPath = null;
      current.extended.push(line);
    } else if (/^(index|old mode|new mode|similarity index|dissimilarity index|Binary files|GIT binary patch)/.test(line)) {
      current.extended.push(line);
    } else if (line.trim() !== '') fail(i, `unexpected line in a diff: ${JSON.stringify(line.slice(0, 80))}`);
  }
  close(lines.length);
  for (const p of patches) if (p.oldPath === null && p.newPath === null) fail(p.line - 1, 'file header names no path');
  return patches;
}

function readHunk(lines: string[], at: number, patch: FilePatch, fail: (i: number, problem: string) => never): number {
  const m = HUNK_HEADER.exec(lines[at] as string) ?? fail(at, `malformed hunk header ${JSON.stringify(lines[at])}`);
  const hunk: Hunk = {
    oldStart: Number(m[1]),
    oldLines: m[2] === undefined ? 1 : Number(m[2]),
    newStart: Number(m[3]),
    newLines: m[4] === undefined ? 1 : Number(m[4]),
    section: m[5] ?? '',
    lines: [],
  };
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let i = at + 1;
  for (; i < lines.length && (oldLeft > 0 || newLeft > 0 || (lines[i] ?? '').startsWith('\\')); i++) {
    const line = lines[i] as string;
    const kind = line[0] ?? ' '; // some tools strip the space of an empty context line
    if (kind === ' ' || line === '') (oldLeft--, newLeft--);
    else if (kind === '-') oldLeft--;
    else if (kind === '+') newLeft--;
    else if (kind !== '\\') break;
    hunk.lines.push(line === '' ? ' ' : line);
  }
  if (oldLeft !== 0 || newLeft !== 0) fail(at, `hunk body does not match its header ${JSON.stringify(lines[at])}`);
  patch.hunks.push(hunk);
  return i - 1;
}

function gitHeaderPaths(rest: string, fail: (problem: string) => never): [string, string] {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(rest);
  // Unquoted paths with spaces: `a/x y b/x y` splits at the middle ` b/`.
  const parts = quoted ? [quoted[1] as string, quoted[2] as string] : splitAtMiddle(rest);
  if (!parts) fail(`cannot read the paths of ${JSON.stringify('diff --git ' + rest)}`);
  const [a, b] = parts as [string, string];
  return [headerPath(a, 'a/', fail) as string, headerPath(b, 'b/', fail) as string];
}

function splitAtMiddle(rest: string): [string, string] | undefined {
  const half = (rest.length - 1) / 2;
  if (!Number.isInteger(half) || rest[half] !== ' ') return undefined;
  return [rest.slice(0, half), rest.slice(half + 1)];
}

function headerPath(raw: string, prefix: 'a/' | 'b/', fail: (problem: string) => never): string | null {
  const path = unquote(raw.split('\t')[0] as string);
  if (path === '/dev/null') return null;
  return checkedPath(path.startsWith(prefix) ? path.slice(2) : path, fail);
}

function checkedPath(path: string, fail: (problem: string) => never): string {
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)) fail(`absolute path ${JSON.stringify(path)} would write outside the repository`);
  if (path.split(/[\\/]/).includes('..')) fail(`path ${JSON.stringify(path)} climbs out of the repository with '..'`);
  if (path === '') fail('empty path');
  return path;
}

function unquote(path: string): string {
  if (!path.startsWith('"') || !path.endsWith('"')) return path;
  const bytes: number[] = [];
  const body = path.slice(1, -1);
  const simple: Record<string, number> = { n: 10, t: 9, '"': 34, '\\': 92, a: 7, b: 8, f: 12, r: 13, v: 11 };
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== '\\') {
      bytes.push(...new TextEncoder().encode(ch));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Paths a patch touches (both sides of renames). */
export function touchedPaths(patches: readonly FilePatch[]): string[] {
  const set = new Set<string>();
  for (const p of patches) {
    if (p.oldPath) set.add(p.oldPath);
    if (p.newPath) set.add(p.newPath);
  }
  return [...set];
}

/** The patch that undoes `patches`, written as git writes it ('-' lines before '+' lines). */
export function reverseDiff(patches: readonly FilePatch[]): string {
  return patches.map(reverseFile).join('');
}

function reverseFile(p: FilePatch): string {
  const aPath = p.newPath ?? p.oldPath;
  const bPath = p.oldPath ?? p.newPath;
  const out = [`diff --git a/${aPath} b/${bPath}`];
  for (const line of p.extended) out.push(reverseExtended(line));
  if (p.hunks.length > 0) {
    out.push(`--- ${p.newPath === null ? '/dev/null' : `a/${p.newPath}`}`, `+++ ${p.oldPath === null ? '/dev/null' : `b/${p.oldPath}`}`);
  }
  for (const h of p.hunks) {
    out.push(`@@ -${h.newStart},${h.newLines} +${h.oldStart},${h.oldLines} @@${h.section ? ' ' + h.section : ''}`);
    out.push(...reverseBody(h.lines));
  }
  return out.join('\n') + '\n';
}

function reverseExtended(line: string): string {
  const swaps: Array<[RegExp, (m: RegExpExecArray) => string]> = [
    [/^new file mode (.*)$/, (m) => `deleted file mode ${m[1]}`],
    [/^deleted file mode (.*)$/, (m) => `new file mode ${m[1]}`],
    [/^rename from (.*)$/, (m) => `rename to ${m[1]}`],
    [/^rename to (.*)$/, (m) => `rename from ${m[1]}`],
    [/^old mode (.*)$/, (m) => `new mode ${m[1]}`],
    [/^new mode (.*)$/, (m) => `old mode ${m[1]}`],
    [/^index (\w+)\.\.(\w+)(.*)$/, (m) => `index ${m[2]}..${m[1]}${m[3]}`],
  ];
  for (const [re, make] of swaps) {
    const m = re.exec(line);
    if (m) return make(m);
  }
  return line;
}

/** Swaps '+' and '-' and keeps each change block's removals first; a `\` marker stays with its line. */
function reverseBody(lines: readonly string[]): string[] {
  const units: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('\\') && units.length > 0) (units.at(-1) as string[]).push(line);
    else units.push([line]);
  }
  const out: string[] = [];
  let removed: string[] = [];
  let added: string[] = [];
  const flush = () => {
    out.push(...removed, ...added);
    removed = [];
    added = [];
  };
  for (const unit of units) {
    const [head, ...rest] = unit as [string, ...string[]];
    if (head.startsWith('+')) removed.push('-' + head.slice(1), ...rest);
    else if (head.startsWith('-')) added.push('+' + head.slice(1), ...rest);
    else {
      flush();
      out.push(head, ...rest);
    }
  }
  flush();
  return out;
}

/**
 * A diff as it was written before it went through a pseudo-terminal. SWE-agent 1.x reads
 * `git diff` through one, which puts a CR before every LF; a diff with any bare LF did not go
 * through one and is returned unchanged (its CRs belong to the files it changes).
 */
export function withoutTerminalLineEnds(diff: string): string {
  return /(^|[^\r])\n/.test(diff) ? diff : diff.replace(/\r\n/g, '\n');
}
