import { z } from 'zod';
import { clipObservation, markedCommand, splitCwdMarker } from './bashOutput';
import { sweAgentDialect } from './sweAgentVersion';
import { defineTool, type ToolContext, type ToolResult } from '../../../aci/toolDefinition';
import { printedOutput } from '../../../runtime/sandbox';

/**
 * The `bash` tool: the command runs in the session's persistent shell, so `cd` and exported
 * variables carry over to the next call. The shell's working directory comes back on a marker
 * line after the command's own output, so one round trip serves the call and the step state.
 */

function timeoutMessage(command: string, timeoutMs: number): string {
  return (
    `The command '${command}' was cancelled because it took more than ${timeoutMs / 1000} seconds. ` +
    'Please try a different command that completes more quickly. Note: A common source of this error is if the command is interactive or requires user input (it is impossible to receive user input in the current environment, so the command will never complete).'
  );
}

async function runBash(ctx: ToolContext, command: string): Promise<ToolResult> {
  const { commandTimeoutMs, maxObservationChars } = ctx.config;
  const result = await ctx.sandbox.exec(markedCommand(command), {
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
