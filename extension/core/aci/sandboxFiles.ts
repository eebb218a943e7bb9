import { randomBytes } from 'node:crypto';
import { shellQuote } from '../parsing/shellWords';
import type { ToolContext } from './toolDefinition';
import { printedOutput } from '../runtime/sandbox';

/**
 * File access for tools, through the session's shell so that a tool call costs one round trip:
 * paths resolve against the agent's working directory, and contents travel as they are when
 * bash's builtins can read them and every byte survives a terminal or a pty (small text files,
 * no control character but tab and newline), as base64 otherwise (a `\r`, a NUL, a big file).
 */

export type FileLookup =
  /**
   * `text`: the file as the family's tools read it (`ReadText`); `translated`: the bytes held a
   * `\r` that reading turned into `\n`, so writing `text` back changes the file.
   */
  | { kind: 'file'; path: string; text: string; translated: boolean }
  /** `listing`: what the lookup's directory script printed, when it was given one. */
  | { kind: 'directory'; listing?: string }
  | { kind: 'missing' };

const STATUS_RE = /^@(file|directory|missing) ?(.*)$/;

/**
 * `realpath` with shell builtins only (it sets `$__swb_r`): `cd -P` into the folder and read
 * `$PWD`, then go back and restore `OLDPWD` so the agent's `cd -` still works. A symlinked file,
 * and a shell whose `$PWD` no longer names its directory (renamed away: there is no way back by
 * name), fall back to the real `realpath`. Saves a fork and an exec per tool call.
 */
const REALPATH_FN =
  '__swb_real() { local p=$1 dir base old=$PWD oldold=$OLDPWD; ' +
  'if [ -L "$p" ] || ! [ . -ef "$old" ]; then __swb_r=$(realpath -- "$p"); return; fi; ' +
  'if [ -d "$p" ]; then dir=$p; base=; else case $p in */*) dir=${p%/*}; base=${p##*/};; *) dir=.; base=$p;; esac; fi; ' +
  'builtin cd -P -- "${dir:-/}" 2>/dev/null || return 1; ' +
  '__swb_r=${PWD%/}${base:+/$base}; __swb_r=${__swb_r:-/}; builtin cd -- "$old"; OLDPWD=$oldold; }';

/**
 * The walk the kernel makes through `path`, from `/` or from `workingDir`, with `.` and `..`
 * taken lexically: the paths it visits and where it ends. When none of the visited paths is a
 * symlink (and, for a relative path, the shell's directory is `workingDir`), where it ends is the
 * real path, as `realpath` prints it. Undefined for a relative path without an absolute
 * working directory.
 */
function lexicalWalk(path: string, workingDir: string | undefined): { real: string; visited: string[] } | undefined {
  const absolute = path.startsWith('/');
  if (!absolute && !workingDir?.startsWith('/')) return undefined;
  const at: string[] = [];
  const visited = new Set<string>();
  for (const part of [...(absolute ? [] : (workingDir ?? '').split('/')), ...path.split('/')]) {
    if (part === '' || part === '.') continue;
    if (part === '..') at.pop();
    else {
      at.push(part);
      visited.add(`/${at.join('/')}`);
    }
  }
  return { real: `/${at.join('/')}`, visited: [...visited] };
}

/**
 * The real absolute path of `path` worked out here, lexically against `workingDir` (the
 * session's, kept from the last shell command), and the shell condition under which it is what
 * `realpath` prints: one `[[ ]]` checking that the shell is in `workingDir` and that the walk met
 * no symlink (a few stats). Undefined when it cannot be worked out here (a relative path and no
 * absolute working directory); `check` is undefined when nothing needs checking (`/`).
 */
export function resolvedHere(path: string, workingDir: string | undefined): { real: string; check: string | undefined } | undefined {
  const walk = lexicalWalk(path, workingDir);
  if (!walk) return undefined;
  const checks = [...(path.startsWith('/') ? [] : [`. -ef ${shellQuote(workingDir ?? '')}`]), ...walk.visited.map((visited) => `! -L ${shellQuote(visited)}`)];
  return { real: walk.real, check: checks.length === 0 ? undefined : `[[ ${checks.join(' && ')} ]]` };
}

/**
 * A snippet that sets `$__swb_r` to the real absolute path of `path` (as `realpath` would), for
 * a path that exists: the path `resolvedHere` works out when its check holds, where resolving in
 * the shell parsed and ran a function that enters the folder and comes back; that function
 * otherwise (its definition is quoted, so bash parses it only then).
 */
export function realpathScript(path: string, workingDir?: string): string {
  const inShell = `eval ${shellQuote(REALPATH_FN)}; __swb_real ${shellQuote(path)}`;
  const here = resolvedHere(path, workingDir);
  if (!here) return inShell;
  const resolved = `__swb_r=${shellQuote(here.real)}`;
  return here.check === undefined ? resolved : `if ${here.check}; then ${resolved}; else ${inShell}; fi`;
}

/**
 * Files up to this many bytes are read by the shell's own `read` (no process); bigger ones go
 * through `base64`, which is faster from about here on (bash reads ~20 us per KB).
 */
const SHELL_READ_MAX = 65536;

/**
 * Reads file `$1` into `$__swb_a` with builtins, under `LC_ALL=C` (set by the caller's `local`)
 * so that lengths and matches are in bytes. Fails for a file it cannot read, one holding a NUL
 * (a shell variable cannot) or one over `SHELL_READ_MAX` bytes.
 */
export const READ_SNIPPET = `[ -r "$1" ] || return 5; IFS= read -r -d '' -n ${SHELL_READ_MAX} __swb_a < "$1" && return 3;`;

/** Marks the end of a file's text sent as it is (`TEXT_FN`). */
const TEXT_END = '@swb-end-of-text';

/**
 * Prints `@text`, the file `$1` as it is and `\n@swb-end-of-text`, with builtins only (no
 * `base64` process). Fails as `READ_SNIPPET` does, and for a file holding a control character
 * other than a tab or a newline: a `\r` would not survive the `\r\n` a terminal writes, and the
 * rest are rare enough in text to leave to base64 too.
 */
const TEXT_FN =
  `__swb_text() { local LC_ALL=C __swb_a __swb_e=$'[\\x01-\\x08\\x0b-\\x1f\\x7f]'; ${READ_SNIPPET} [[ $__swb_a =~ $__swb_e ]] && return 4; ` +
  `printf '@text\\n%s\\n${TEXT_END}\\n' "$__swb_a"; }`;

/** A snippet that prints the file at shell word `quoted` as `TEXT_FN` does, or as one line of base64. */
export function fileContentScript(quoted: string): string {
  return `${TEXT_FN}; __swb_text ${quoted} || { base64 -w0 -- ${quoted}; echo; }`;
}

/**
 * Python's text-mode read (universal newlines): `\r\n` and a lone `\r` become `\n`. A text
 * without `\r` comes back as it is, unscanned beyond the one search.
 */
export function universalNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** Python's `str.splitlines()` line boundaries. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/** Python's `str.splitlines()`: a final line break adds no empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split(LINE_BREAKS);
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** How a family's tools read a file's raw text (Python's text mode, the bytes as they are...). */
export type ReadText = (raw: string) => string;

/** The file's text from what `fileContentScript` printed, given as its lines. */
export function parseFileContent(lines: readonly string[]): string {
  if (lines[0] !== '@text') return decodeBase64(lines[0] ?? '');
  const rest = lines.slice(1).join('\n');
  const end = rest.lastIndexOf(`\n${TEXT_END}`);
  if (end < 0) throw new Error(`a file's text from the sandbox shell ends early: ${JSON.stringify(rest.slice(-200))}`);
  return rest.slice(0, end);
}

/**
 * A shell snippet that prints `@file <abs>` + the content (`fileContentScript`), `@missing`, or
 * for a directory `@directory`, or what `directoryScript` prints when given (a listing wanted in
 * the same round trip: no line of its own before it, a write less through the sandbox's stream;
 * `lookupFile` tells it from the other answers). A relative `path` is resolved against
 * `workingDir` when given (`realpathScript`).
 */
export function lookupScript(path: string, directoryScript?: string, workingDir?: string): string {
  const p = shellQuote(path);
  return (
    `if [ -d ${p} ]; then ${directoryScript ? `{ ${directoryScript}; }; ` : 'echo @directory; '}` +
    `elif [ -f ${p} ]; then ${realpathScript(path, workingDir)}; printf '@file %s\\n' "$__swb_r"; ${fileContentScript(p)}; ` +
    `else echo @missing; fi`
  );
}

/** Reads what `lookupScript` printed, starting at its first line; the text as `read` reads it. */
export function parseLookup(lines: readonly string[], read: ReadText): FileLookup {
  const status = STATUS_RE.exec((lines[0] ?? '').replace(/\r$/, ''));
  if (!status) throw new Error(`unexpected answer from the sandbox shell: ${JSON.stringify(lines.slice(0, 2).join('\n').slice(0, 200))}`);
  if (status[1] === 'missing') return { kind: 'missing' };
  if (status[1] === 'directory') return { kind: 'directory', ...(lines.length > 1 ? { listing: lines.slice(1).join('\n') } : {}) };
  const raw = parseFileContent(lines.slice(1));
  const text = read(raw);
  return { kind: 'file', path: status[2] as string, text, translated: text !== raw };
}

export function decodeBase64(text: string): string {
  return Buffer.from(text.replace(/\s+/g, ''), 'base64').toString('utf8');
}

/** A heredoc-fed snippet that writes `text` to `path` byte for byte. */
export function writeScript(path: string, text: string): string {
  const end = `__SWB_EOF_${randomBytes(6).toString('hex')}`;
  const body = Buffer.from(text, 'utf8')
    .toString('base64')
    .replace(/.{1,76}/g, '$&\n');
  return `base64 -d > ${shellQuote(path)} <<'${end}'\n${body}${end}\n`;
}

/**
 * Runs a tool's snippet in the agent's shell. Snippets never `cd` and name their variables
 * `__swb_*`, so they run without a subshell: one fork less per call, measured in bench/aci.
 */
export async function runTool(ctx: ToolContext, script: string): Promise<{ output: string; exitCode: number }> {
  const result = await ctx.sandbox.exec(`{\n${script}\n}`, {
    timeoutMs: ctx.config.commandTimeoutMs,
    maxOutputBytes: 64 * 1024 * 1024,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (result.timedOut) throw new Error(`a tool command timed out after ${ctx.config.commandTimeoutMs} ms`);
  return { output: printedOutput(ctx.sandbox, result.output), exitCode: result.exitCode };
}

/**
 * `lookupScript`'s answer for `path`. With a `directoryScript`, whatever does not start as
 * another answer is the directory's listing: for an absolute path, a `find` of it prints it first.
 */
export async function lookupFile(ctx: ToolContext, read: ReadText, path: string, directoryScript?: string): Promise<FileLookup> {
  const { output } = await runTool(ctx, lookupScript(path, directoryScript, ctx.state.workingDir));
  const lines = output.split('\n');
  if (directoryScript !== undefined && !STATUS_RE.test(lines[0] ?? '')) return { kind: 'directory', listing: output };
  return parseLookup(lines, read);
}

/** Python's `Path(p)` spelling of a path as given: no `.` segments, no doubled or trailing `/`. */
export function pathAsGiven(path: string): string {
  const absolute = path.startsWith('/');
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}
