/**
 * V1's `glob` and `grep` (openhands-tools 1.43.1 `GlobExecutor`, `GrepExecutor`) as they run
 * where ripgrep is installed: the same `rg` command lines in the sandbox, the same paths
 * (resolved as Python's `Path.resolve` does), the same filtering, ordering (newest first, at most
 * 100) and wording. A grep pattern is checked as Python's `re` reads it (the SDK compiles it
 * first), by the sandbox's `python3` when it has one. Without `rg`, `grep` searches with the
 * system grep (the SDK's second choice, its Python search when grep fails) and `glob` with Python's glob module as the SDK does, by
 * the sandbox's `python3`; where neither is installed, `glob` says so.
 */
import { shellQuote } from '../../parsing/shellWords';
import type { ToolContext, ToolResult } from '../../aci/toolDefinition';

const ERROR_HEADER = '[An error occurred during execution.]\n';
const MAX = 100;
const TRUNCATED = '\n\n[Results truncated to first 100 files. Consider using a more specific pattern.]';
const refused = (text: string): ToolResult => ({ observation: ERROR_HEADER + text, exitCode: 1 });

/** Runs a script in the workspace folder (the SDK's process runs there), its output split in lines. */
async function script(ctx: ToolContext, body: string): Promise<{ lines: string[]; exitCode: number }> {
  const r = await ctx.sandbox.exec(`cd -- ${shellQuote(ctx.sandbox.repoPath)} && { ${body}\n}`, {
    timeoutMs: 60_000,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  return { lines: r.output.split('\n').filter((l) => l !== ''), exitCode: r.exitCode };
}

/** `glob.has_magic`. */
const hasMagic = (part: string) => /[*?[]/.test(part);

/**
 * `_extract_search_path_from_pattern`: an absolute pattern split into the folder before its first
 * wildcard and the rest (`**\/*` when nothing is left); a relative one searches the workspace.
 */
function splitPattern(pattern: string, home: string): { base?: string; pattern: string } {
  if (!pattern) return { pattern: '**/*' };
  const expanded = pattern === '~' || pattern.startsWith('~/') ? home + pattern.slice(1) : pattern;
  if (!expanded.startsWith('/')) return { pattern: expanded };
  const parts = ['/', ...expanded.split('/').filter((p) => p !== '' && p !== '.')];
  const first = parts.findIndex(hasMagic);
  const fixed = first === -1 ? parts : parts.slice(0, first);
  const rest = first === -1 ? [] : parts.slice(first);
  return { base: '/' + fixed.slice(1).join('/'), pattern: rest.length ? rest.join('/') : '**/*' };
}

/**
 * `_execute_with_glob`, the SDK's way without ripgrep: a pattern without `**` made recursive as
 * ripgrep's `-g` is, `glob.glob(recursive=True)` from the search folder, the regular files among
 * the matches as absolute paths (symlinks not resolved), newest first (a stable sort), at most 100.
 */
const PYTHON_GLOB = [
  'import glob, os, pathlib, sys',
  'base, pattern = pathlib.Path(sys.argv[1]), sys.argv[2]',
  'os.chdir(base)',
  'pattern = pattern if "**" in pattern else "**/" + pattern',
  'found = [str((base / m).absolute()) for m in glob.glob(pattern, recursive=True)]',
  'found = sorted(((f, os.path.getmtime(f)) for f in found if os.path.isfile(f)), key=lambda x: x[1], reverse=True)',
  'print("cut" if len(found) > 100 else "whole")',
  'for f, _ in found[:100]:',
  '    print(f)',
].join('\n');

export async function v1Glob(ctx: ToolContext, args: { pattern: string; path?: string | null }): Promise<ToolResult> {
  const { pattern: original } = args;
  let base: string | undefined;
  let pattern = original;
  if (args.path) base = args.path;
  else ({ base, pattern } = splitPattern(original, (await script(ctx, 'printf "%s\\n" "$HOME"')).lines[0] ?? '~'));
  const searchPath = shellQuote(base ?? ctx.sandbox.repoPath);
  // The line after the search path names the way taken, or says whether the glob module's results were cut.
  const r = await script(
    ctx,
    `sp=$(realpath -m -- ${searchPath}); printf '%s\\n' "$sp"; [ -d "$sp" ] || exit 3\n` +
      `if command -v rg >/dev/null; then\n` +
      `  echo rg; rg --files "$sp" -g ${shellQuote(pattern)} --sortr=modified 2>/dev/null | head -n ${MAX} | xargs -r -d '\\n' realpath -m --\n` +
      `elif command -v python3 >/dev/null; then python3 -c ${shellQuote(PYTHON_GLOB)} "$sp" ${shellQuote(pattern)}\n` +
      `else exit 4; fi`,
  );
  const [resolved = '', way, ...files] = r.lines;
  if (r.exitCode === 3) return refused(`Search path '${resolved}' is not a valid directory`);
  if (r.exitCode === 4) return refused('glob needs ripgrep (rg) or python3 in the sandbox, and neither is installed there');
  if (files.length === 0) return { observation: `No files found matching pattern '${original}' in directory '${resolved}'`, exitCode: 0 };
  let text = `Found ${files.length} file(s) matching pattern '${original}' in '${resolved}':\n${files.join('\n')}`;
  // The SDK calls 100 files from ripgrep truncated even when there were exactly 100; the glob module's only past 100.
  if (way === 'cut' || (way === 'rg' && files.length >= MAX)) text += TRUNCATED;
  return { observation: text, exitCode: 0 };
}

/** `fnmatch.fnmatch` on a POSIX system (case-sensitive): `*`, `?`, `[seq]`, `[!seq]`. */
function fnmatch(name: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', pattern[i + 1] === '!' || pattern[i + 1] === ']' ? i + 2 : i + 1);
      if (close === -1) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = '^' + body.slice(1);
        else if (body.startsWith('^')) body = '\\' + body;
        re += `[${body}]`;
        i = close;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^(?:${re})$`, 's').test(name);
}

/**
 * `_execute_with_python_search`, the SDK's last way: every file under the search folder outside
 * hidden folders (`os.walk` order), read as UTF-8 ignoring what does not decode, that the pattern
 * (case-insensitive) finds; the filtering and ordering after are the same as for the others.
 */
const PYTHON_SEARCH = [
  'import os, re, sys',
  'from pathlib import Path',
  'regex = re.compile(sys.argv[1], re.IGNORECASE)',
  'for root, dirs, files in os.walk(sys.argv[2]):',
  '    dirs[:] = [d for d in dirs if not d.startswith(".")]',
  '    for name in files:',
  '        path = Path(root) / name',
  '        try:',
  '            text = path.read_text(encoding="utf-8", errors="ignore")',
  '        except OSError:',
  '            continue',
  '        if regex.search(text):',
  '            print(path)',
].join('\n');

/** The SDK compiles the pattern with `re.IGNORECASE` first: Python's own message for one it cannot read. */
const REGEX_CHECK =
  `if command -v python3 >/dev/null; then python3 -c 'import re, sys\ntry:\n    re.compile(sys.argv[1], re.IGNORECASE)\n` +
  `except re.error as e:\n    print("@regex " + str(e)); sys.exit(5)' "$pat" || exit 5; fi`;

export async function v1Grep(ctx: ToolContext, args: { pattern: string; path?: string | null; include?: string | null }): Promise<ToolResult> {
  const include = args.include || undefined;
  const rgArgs = ['-l', '-i', args.pattern, '"$sp"', '--sortr=modified', ...(include ? ['-g', include] : [])];
  const rg = `rg ${rgArgs.map((a) => (a === '"$sp"' ? a : shellQuote(a))).join(' ')}`;
  // The system grep when it succeeds (0 or 1); otherwise, or without grep, the SDK's Python search.
  const python = `python3 -c ${shellQuote(PYTHON_SEARCH)} "$pat" "$sp"`;
  const grep = `if command -v grep >/dev/null; then out=$(grep -R -I -l -i "$pat" "$sp"); s=$?; if [ $s -le 1 ]; then [ -z "$out" ] || printf '%s\\n' "$out"; else ${python}; fi; else ${python}; fi`;
  const r = await script(
    ctx,
    `pat=${shellQuote(args.pattern)}; sp=$(realpath -m -- ${shellQuote(args.path || ctx.sandbox.repoPath)}); printf '%s\\n' "$sp"\n` +
      `[ -d "$sp" ] || exit 3\n${REGEX_CHECK}\n` +
      // Each match resolved, with its modification time, for the SDK's filtering and ordering.
      `{ if command -v rg >/dev/null; then ${rg}; else ${grep}; fi; } 2>/dev/null | xargs -r -d '\\n' realpath -m -- | while IFS= read -r f; do printf '%s\\t%s\\n' "$(stat -c %.9Y -- "$f" 2>/dev/null || echo -Infinity)" "$f"; done`,
  );
  const [searchPath = '', ...rest] = r.lines;
  if (r.exitCode === 3) return refused(`Search path '${args.path}' is not a valid directory`);
  if (r.exitCode === 5) return refused(`Invalid regex pattern: ${(rest.find((l) => l.startsWith('@regex ')) ?? '').slice(7)}`);
  const seen = new Map<string, number>();
  for (const line of rest) {
    const tab = line.indexOf('\t');
    const file = line.slice(tab + 1);
    if (!keep(file, searchPath, include)) continue;
    seen.set(file, Number(line.slice(0, tab)));
  }
  // Newest first; ties keep ripgrep's order (Python's sort is stable).
  const sorted = [...seen].sort((a, b) => b[1] - a[1]).map(([f]) => f);
  const filtered = include ? ` (filtered by '${include}')` : '';
  if (sorted.length === 0) return { observation: `No files found containing pattern '${args.pattern}' in directory '${searchPath}'${filtered}`, exitCode: 0 };
  let text = `Found ${Math.min(sorted.length, MAX)} file(s) containing pattern '${args.pattern}' in '${searchPath}'${filtered}:\n${sorted.slice(0, MAX).join('\n')}`;
  if (sorted.length > MAX) text += TRUNCATED;
  return { observation: text, exitCode: 0 };
}

/** `_path_matches_filters`: no hidden folder on the way; the name matches `include`, or is not hidden. */
function keep(file: string, searchPath: string, include: string | undefined): boolean {
  const inside = file.startsWith(searchPath === '/' ? '/' : `${searchPath}/`);
  const parts = inside ? file.slice(searchPath === '/' ? 1 : searchPath.length + 1).split('/') : [file.slice(file.lastIndexOf('/') + 1)];
  if (parts.slice(0, -1).some((p) => p.startsWith('.'))) return false;
  const name = parts[parts.length - 1] ?? '';
  return include ? fnmatch(name, include) : !name.startsWith('.');
}
