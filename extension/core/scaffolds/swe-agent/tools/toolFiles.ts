/**
 * The host's file access (core/aci/sandboxFiles.ts) as SWE-agent's tools read files: in Python's
 * text mode (1.x) or byte for byte (0.x's shell functions), by the session's version.
 */
import { shellQuote } from '../../../parsing/shellWords';
import {
  READ_SNIPPET,
  decodeBase64,
  lookupFile as lookupFileAs,
  parseLookup as parseLookupAs,
  runTool,
  universalNewlines,
  type FileLookup,
} from '../../../aci/sandboxFiles';
import type { ToolContext } from '../../../aci/toolDefinition';
import { sweAgentDialect } from './sweAgentVersion';
import { linesOfText, type WindowLines } from './windowedFile';

/**
 * A file's text as the session's tools read it: SWE-agent 1.x's Python tools in text mode
 * (`universalNewlines`), 0.7's shell functions byte for byte (`SweAgentDialect.readsTextMode`).
 * Every file read of SWE-agent's tools goes through it.
 */
function toolText(ctx: Pick<ToolContext, 'config'>, raw: string): string {
  return sweAgentDialect(ctx.config.sweAgentVersion).readsTextMode ? universalNewlines(raw) : raw;
}

/** `sandboxFiles.parseLookup`, the text as `toolText` reads it. */
export function parseLookup(ctx: Pick<ToolContext, 'config'>, lines: readonly string[]): FileLookup {
  return parseLookupAs(lines, (raw) => toolText(ctx, raw));
}

/** `sandboxFiles.lookupFile`, the text as `toolText` reads it. */
export function lookupFile(ctx: ToolContext, path: string, directoryScript?: string): Promise<FileLookup> {
  return lookupFileAs(ctx, (raw) => toolText(ctx, raw), path, directoryScript);
}

/**
 * Prints `@lines N`, then lines `from`..`from+count-1` and the last `tail` lines of file `$1`
 * (0-based, `split("\n")` lines), with shell builtins only: no process, no whole file sent.
 * Fails as `READ_SNIPPET` does, and for a file holding a line break other than `\n` that
 * Python's `splitlines()` counts (`\r`, `\v`, `\f`, `\x1c`-`\x1e`, U+0085, U+2028, U+2029),
 * which the shell would count differently: the caller then sends the whole file instead.
 */
const LINES_FN =
  `__swb_lines() { local LC_ALL=C __swb_a __swb_n __swb_t __swb_e=$'[\\r\\v\\f\\x1c\\x1d\\x1e]|\\xc2\\x85|\\xe2\\x80\\xa8|\\xe2\\x80\\xa9'; local -a __swb_l; ` +
  `${READ_SNIPPET} [[ $__swb_a =~ $__swb_e ]] && return 4; ` +
  'mapfile -t __swb_l < "$1"; __swb_n=${#__swb_l[@]}; __swb_t=$(( __swb_n > $4 ? __swb_n - $4 : 0 )); ' +
  `printf '@lines %s\\n' "$__swb_n"; printf '%s\\n' "\${__swb_l[@]:$2:$3}" "\${__swb_l[@]:$__swb_t}"; }`;

/** The `WindowLines` of a window's worth of a file, or what `lookupFile` says when it is not a plain one. */
export type LinesLookup = { kind: 'lines'; lines: WindowLines } | Exclude<FileLookup, { kind: 'file' }>;

/**
 * Lines `from`..`from+count-1` and the last `tail` lines of the file at `path` (taken as
 * already resolved, as SWE-agent takes its current file), with the line count, in one round
 * trip; the whole file when the shell cannot split it as Python does (see `LINES_FN`).
 */
export async function fetchLines(ctx: ToolContext, path: string, from: number, count: number, tail: number): Promise<LinesLookup> {
  const p = shellQuote(path);
  const [a, b, c] = [from, count, tail].map((n) => Math.max(0, Math.trunc(n))) as [number, number, number];
  const { output } = await runTool(
    ctx,
    `if [ -d ${p} ]; then echo @directory; elif [ -f ${p} ]; then ${LINES_FN}; __swb_lines ${p} ${a} ${b} ${c} || { echo @file; base64 -w0 -- ${p}; echo; }; else echo @missing; fi`,
  );
  const lines = output.split('\n');
  const head = lines[0] ?? '';
  if (head === '@directory') return { kind: 'directory' };
  if (head === '@missing') return { kind: 'missing' };
  if (head === '@file') {
    return { kind: 'lines', lines: linesOfText(toolText(ctx, decodeBase64(lines[1] ?? ''))) };
  }
  const counted = /^@lines (\d+)$/.exec(head);
  if (!counted) throw new Error(`unexpected answer from the sandbox shell: ${JSON.stringify(output.slice(0, 200))}`);
  const nLines = Number(counted[1]);
  const known = new Map<number, string>();
  const shown = Math.max(0, Math.min(b, nLines - a));
  for (let i = 0; i < shown; i++) known.set(a + i, lines[1 + i] ?? '');
  const tailStart = Math.max(0, nLines - c);
  for (let i = tailStart; i < nLines; i++) known.set(i, lines[1 + shown + i - tailStart] ?? '');
  return {
    kind: 'lines',
    lines: {
      nLines,
      line(i) {
        const text = known.get(i);
        if (text === undefined) throw new Error(`line ${i + 1} of ${path} was not fetched (fetched ${a + 1}-${a + shown} and the last ${c})`);
        return text;
      },
    },
  };
}
