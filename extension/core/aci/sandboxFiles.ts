import { randomBytes } from 'node:crypto';
import { shellQuote } from '../parsing/shellWords';
import type { ToolContext } from './toolDefinition';

/**
 * File access for tools, through the session's shell so that a tool call costs one round trip:
 * paths resolve against the agent's working directory, and contents travel as base64 so every
 * byte (a missing final newline, a `\r`) survives a terminal or a pty.
 */

export type FileLookup =
  | { kind: 'file'; path: string; text: string }
  /** `listing`: what the lookup's directory script printed, when it was given one. */
  | { kind: 'directory'; path: string; listing?: string }
  | { kind: 'missing' };

const STATUS_RE = /^@(file|directory|missing) ?(.*)$/;

/**
 * `realpath` with shell builtins only (it sets `$__swb_r`): `cd -P` into the folder and read
 * `$PWD`, then go back and restore `OLDPWD` so the agent's `cd -` still works. A symlinked file
 * falls back to the real `realpath`. Saves a fork and an exec per tool call.
 */
const REALPATH_FN =
  '__swb_real() { local p=$1 dir base old=$PWD oldold=$OLDPWD; ' +
  'if [ -L "$p" ]; then __swb_r=$(realpath -- "$p"); return; fi; ' +
  'if [ -d "$p" ]; then dir=$p; base=; else case $p in */*) dir=${p%/*}; base=${p##*/};; *) dir=.; base=$p;; esac; fi; ' +
  'builtin cd -P -- "${dir:-/}" 2>/dev/null || return 1; ' +
  '__swb_r=${PWD%/}${base:+/$base}; __swb_r=${__swb_r:-/}; builtin cd -- "$old"; OLDPWD=$oldold; }';

/** A snippet that sets `$__swb_r` to the real absolute path of `path` (as `realpath` would). */
export function realpathScript(path: string): string {
  return `${REALPATH_FN}; __swb_real ${shellQuote(path)}`;
}

/**
 * A shell snippet that prints `@file <abs>` + base64 content, `@missing`, or `@directory <abs>`
 * followed by what `directoryScript` prints (a listing wanted in the same round trip).
 */
export function lookupScript(path: string, directoryScript?: string): string {
  const p = shellQuote(path);
  return (
    `if [ -d ${p} ]; then ${realpathScript(path)}; printf '@directory %s\\n' "$__swb_r"; ${directoryScript ? `{ ${directoryScript}; }; ` : ''}` +
    `elif [ -f ${p} ]; then ${realpathScript(path)}; printf '@file %s\\n' "$__swb_r"; base64 -w0 -- ${p}; echo; ` +
    `else echo @missing; fi`
  );
}

/** Reads what `lookupScript` printed, starting at its first line. */
export function parseLookup(lines: readonly string[]): FileLookup {
  const status = STATUS_RE.exec((lines[0] ?? '').replace(/\r$/, ''));
  if (!status) throw new Error(`unexpected answer from the sandbox shell: ${JSON.stringify(lines.slice(0, 2).join('\n').slice(0, 200))}`);
  if (status[1] === 'missing') return { kind: 'missing' };
  if (status[1] === 'directory') return { kind: 'directory', path: status[2] as string, ...(lines.length > 1 ? { listing: lines.slice(1).join('\n') } : {}) };
  return { kind: 'file', path: status[2] as string, text: decodeBase64(lines[1] ?? '') };
}

function decodeBase64(text: string): string {
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
  return { output: result.output.replace(/\r\n/g, '\n'), exitCode: result.exitCode };
}

export async function lookupFile(ctx: ToolContext, path: string, directoryScript?: string): Promise<FileLookup> {
  const { output } = await runTool(ctx, lookupScript(path, directoryScript));
  return parseLookup(output.split('\n'));
}

/** Python's `Path(p)` spelling of a path as given: no `.` segments, no doubled or trailing `/`. */
export function pathAsGiven(path: string): string {
  const absolute = path.startsWith('/');
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}
