import { stat } from 'node:fs/promises';
import { createSandbox } from '../core/runtime/createSandbox';
import type { Sandbox } from '../core/runtime/sandbox';
import { CliError, type CommandContext } from './command';

export interface SandboxFlags {
  image?: string | undefined;
  repo?: string | undefined;
  workdir?: string | undefined;
  local?: boolean | undefined;
}

/**
 * The sandboxes a verb runs in: containers of --image holding a copy of --repo (or local copies
 * with --local), labelled with the verb. With `dockerOnly` an engine that does not answer is an
 * error rather than a fallback to local copies.
 */
export async function sandboxMaker(
  values: SandboxFlags,
  ctx: CommandContext,
  label: string,
  usage: string,
  dockerOnly = false,
): Promise<(signal?: AbortSignal) => Promise<Sandbox>> {
  if (!values.image || !values.repo) throw new CliError(`--image and --repo are required\n\n${usage}`);
  const repoInfo = await stat(values.repo).catch(() => undefined);
  if (!repoInfo?.isDirectory()) throw new CliError(`--repo: no such directory '${values.repo}'`);
  const { image, repo } = values;
  const workdir = values.workdir ?? '/testbed';
  let noticeShown = false;
  return async (signal) => {
    const choice = await createSandbox({
      image,
      repoDir: repo,
      repoPath: workdir,
      labels: { 'swe-workbench.command': label },
      prefer: dockerOnly ? 'docker' : values.local ? 'local' : 'auto',
      ...(signal ? { signal } : {}),
    });
    if (choice.notice && !noticeShown) ctx.stderr.write(`swe-workbench: ${choice.notice}\n`);
    noticeShown ||= choice.notice !== undefined;
    return choice.sandbox;
  };
}

/** A --name flag that must be a whole number of at least 1; `fallback` when absent. */
export function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} expects a whole number of at least 1, got '${value}'`);
  return n;
}
