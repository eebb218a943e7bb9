import { shellQuote } from '../parsing/shellWords';
import { runTool } from './sandboxFiles';
import type { ToolContext, ToolResult } from './toolDefinition';

/**
 * The repository's patch, `git add -A && git diff --cached` against the task's base commit when
 * known, or git's complaint (not a repository, unknown base commit) as the agent would see it.
 * Every family's submission and SWE-agent's `diff_state` read it the same way.
 */
export async function currentPatch(ctx: ToolContext): Promise<{ patch: string } | ToolResult> {
  const base = ctx.config.baseCommit ? ` ${shellQuote(ctx.config.baseCommit)}` : '';
  // Under a pseudo-terminal git would colour the diff and page it; SWE-agent's tools write it to a file.
  const { output, exitCode } = await runTool(
    ctx,
    `git -C ${shellQuote(ctx.sandbox.repoPath)} add -A && git -C ${shellQuote(ctx.sandbox.repoPath)} --no-pager diff --no-color --cached${base}`,
  );
  return exitCode === 0 ? { patch: output } : { observation: output.replace(/\n$/, ''), exitCode };
}
