import { flake8Script } from './flake8Guard';
import { warmFlake8For, type WarmFlake8 } from './flake8Server';
import { lookupScript, runTool, writeScript, type FileLookup } from '../../../aci/sandboxFiles';
import { parseLookup } from './toolFiles';
import type { ToolContext } from '../../../aci/toolDefinition';

/**
 * How the edit tools' lint guard reads a file and checks an edit: through the warm flake8
 * (flake8Server.ts) when it runs, the proposed text checked in memory and written only when the
 * guard lets it through; otherwise through the flake8 command, as SWE-agent does, the proposed
 * text written, checked on the disk and put back when refused. Both print the same findings.
 */

const LINT_MARK = '@lint';
/** Printed instead of findings when the command path could not write the proposed text. */
const WRITE_FAILED = '@write-failed';

/** The warm flake8 for checks of `path` (flake8Server.ts), or undefined: then the command runs. */
async function warmLinter(ctx: ToolContext, path: string): Promise<WarmFlake8 | undefined> {
  if (!path.endsWith('.py') || !path.startsWith('/') || ctx.sandbox.kind !== 'docker' || ctx.config.warmLinter === false) return undefined;
  return warmFlake8For(ctx.sandbox, async (script) => (await runTool(ctx, script)).output);
}

/**
 * A file and flake8's findings on it as the command prints them for `path`, in one round trip:
 * the warm linter checks the file while the shell reads it, or the command runs after the read.
 */
export async function lookupWithLint(ctx: ToolContext, path: string): Promise<{ lookup: FileLookup; lint: string }> {
  const warm = await warmLinter(ctx, path);
  if (warm) {
    const [{ output }, lint] = await Promise.all([
      runTool(ctx, lookupScript(path)),
      warm.check(path, undefined, ctx.config.commandTimeoutMs).catch(() => undefined),
    ]);
    return { lookup: parseLookup(ctx, output.split('\n')), lint: lint ?? (await runTool(ctx, flake8Script(path))).output };
  }
  const { output } = await runTool(ctx, `${lookupScript(path)}; echo ${LINT_MARK}; ${flake8Script(path)}`);
  const mark = output.indexOf(`\n${LINT_MARK}\n`);
  return {
    lookup: parseLookup(ctx, output.slice(0, mark < 0 ? output.length : mark).split('\n')),
    lint: mark < 0 ? '' : output.slice(mark + LINT_MARK.length + 2),
  };
}

/** flake8's findings on a proposed text; `written` when the command path already wrote it to the file. */
export interface LintedProposal {
  lint: string;
  written: boolean;
}

/**
 * flake8's findings on `text` as the content of `path`: checked in memory by the warm linter,
 * the file untouched, or (the command) written first and then checked on the disk.
 */
export async function lintProposal(ctx: ToolContext, path: string, text: string): Promise<LintedProposal> {
  const warm = await warmLinter(ctx, path);
  const lint = await warm?.check(path, text, ctx.config.commandTimeoutMs).catch(() => undefined);
  if (lint !== undefined) return { lint, written: false };
  const { output } = await runTool(ctx, `${writeScript(path, text)}if [ $? -ne 0 ]; then echo ${WRITE_FAILED}; else ${flake8Script(path)}; fi`);
  const failed = output.indexOf(`${WRITE_FAILED}\n`);
  if (failed >= 0) throw new Error(`cannot write ${path}: ${output.slice(0, failed).trim() || 'the shell could not write the file'}`);
  return { lint: output, written: true };
}

/** Writes `text` to `path`; a write the shell could not do is an error naming the file, never "File updated". */
async function writeOrFail(ctx: ToolContext, path: string, text: string): Promise<void> {
  const { output, exitCode } = await runTool(ctx, writeScript(path, text));
  if (exitCode !== 0) throw new Error(`cannot write ${path}: ${output.trim() || `exit code ${exitCode}`}`);
}

/** Keeps a proposal the guard let through: writes it unless the command already did. */
export async function keepProposal(ctx: ToolContext, path: string, text: string, proposal: LintedProposal): Promise<void> {
  if (!proposal.written) await writeOrFail(ctx, path, text);
}

/**
 * Drops a proposal the guard refused: puts the original text back if the command wrote the
 * proposal, or if reading it changed its line ends (`FileLookup.translated`): SWE-agent's undo
 * writes back the text it read, so a refused edit still leaves `\n` line ends.
 */
export async function dropProposal(ctx: ToolContext, path: string, original: { text: string; translated: boolean }, proposal: LintedProposal): Promise<void> {
  if (proposal.written || original.translated) await writeOrFail(ctx, path, original.text);
}
