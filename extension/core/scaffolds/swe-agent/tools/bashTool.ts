import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { shellQuote } from '../../../parsing/shellWords';
import { sweAgentDialect } from './sweAgentVersion';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { printedOutput } from '../../../runtime/sandbox';

/**
 * The `bash` tool: the command runs in the session's persistent shell, so `cd` and exported
 * variables carry over to the next call. The shell's working directory comes back on a marker
 * line after the command's own output, so one round trip serves the call and the step state.
 */

const CWD_MARK = `__SWB_CWD_${randomBytes(6).toString('hex')}__`;

function timeoutMessage(command: string, timeoutMs: number): string {
  return (
    `The command '${command}' was cancelled because it took more than ${timeoutMs / 1000} seconds. ` +
    'Please try a different command that completes more quickly. Note: A common source of this error is if the command is interactive or requires user input (it is impossible to receive user input in the current environment, so the command will never complete).'
  );
}

/** SWE-agent's note for an observation over the limit, after the kept characters. @internal */
export function clipObservation(text: string, max: number, droppedBytes = 0): string {
  if (text.length <= max && droppedBytes === 0) return text;
  const elided = Math.max(0, text.length - max) + droppedBytes;
  return (
    `${text.slice(0, max)}<response clipped><NOTE>Observations should not exceeded ${max} characters. ${elided} characters were elided. ` +
    'Please try a different command that produces less output or use head/tail/grep/redirect the output to a file. Do not use interactive pagers.</NOTE>'
  );
}

/** Splits the working-directory marker off the command's output. @internal */
export function splitCwdMarker(output: string): { output: string; cwd: string | undefined } {
  const at = output.lastIndexOf(`\n${CWD_MARK}`);
  if (at < 0) return { output, cwd: undefined };
  const cwd = output.slice(at + CWD_MARK.length + 1).replace(/\r?\n$/, '');
  return { output: output.slice(0, at), cwd };
}

async function runBash(ctx: ToolContext, command: string): Promise<ToolResult> {
  const { commandTimeoutMs, maxObservationChars } = ctx.config;
  // eval keeps a syntax error inside the command from swallowing the marker line; the exit
  // code is handed back through a function, which costs no fork.
  const script = `__swb_ret() { return $1; }; eval ${shellQuote(command)}\n__swb_rc=$?; printf '\\n${CWD_MARK}%s\\n' "$PWD"; __swb_ret $__swb_rc`;
  const result = await ctx.sandbox.exec(script, {
    timeoutMs: commandTimeoutMs,
    // Bytes, not characters: room for multi-byte text before the character limit applies.
    maxOutputBytes: maxObservationChars * 4 + 4096,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  if (result.timedOut) {
    await refreshWorkingDir(ctx);
    return { observation: timeoutMessage(command, commandTimeoutMs), exitCode: result.exitCode === 0 ? 124 : result.exitCode };
  }
  const split = splitCwdMarker(printedOutput(ctx.sandbox, result.output));
  if (split.cwd !== undefined) ctx.state.workingDir = split.cwd;
  else await refreshWorkingDir(ctx);
  // Trailing whitespace goes before the limit applies, as SWE-agent 1.x's runtime strips first (0.7 kept it).
  const output = sweAgentDialect(ctx.config.sweAgentVersion).trimsObservations ? split.output.trimEnd() : split.output;
  return { observation: clipObservation(output, maxObservationChars, result.truncatedBytes), exitCode: result.exitCode };
}

/** Asks the shell for its directory when the marker line was lost (output cut, shell replaced). */
async function refreshWorkingDir(ctx: ToolContext): Promise<void> {
  const pwd = await ctx.sandbox.exec('pwd', { timeoutMs: 10_000 });
  if (pwd.exitCode === 0 && pwd.output.trim() !== '') ctx.state.workingDir = pwd.output.trim();
}

const bash = defineTool({
  name: 'bash',
  bundle: 'bash',
  description: 'runs the given command directly in bash',
  signature: '<command>',
  parameters: z.object({ command: z.string().describe('a command to run directly in the current shell') }),
  run: (ctx, { command }) => runBash(ctx, command),
});

export const bashTools = [bash];
