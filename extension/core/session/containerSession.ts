import { AciSession } from '../aci/aciSession';
import { pyrightMounts } from '../aci/lspServer';
import type { AciConfig } from '../aci/toolDefinition';
import type { ToolSet } from '../aci/toolRegistry';
import { connectDocker, type DockerConnectionOptions } from '../runtime/dockerConnection';
import { DockerSandbox } from '../runtime/dockerSandbox';
import { bashQuote, startupScript } from '../runtime/shellSession';
import type { SandboxLimits } from '../runtime/sandbox';
import type { Scaffold } from '../scaffolds/scaffold';
import type { Trajectory } from '../trajectory/model';

export interface ContainerSessionOptions {
  image: string;
  /** Host directory copied into the container at `repoPath`; without it `repoPath` starts empty (a fork restores its snapshot there). */
  repoDir?: string;
  repoPath: string;
  /**
   * The scaffold the session runs (core/scaffolds): its tools, terminal, settings, the programs
   * it installs in the sandbox and the wording of its observations. Wins over `tools`.
   */
  scaffold?: Scaffold;
  /** The agent's tools, when no scaffold is given. */
  tools?: ToolSet;
  baseCommit?: string;
  /** Tool settings, e.g. a recording's (`replaySettings(recording).config`); `baseCommit` wins over theirs. */
  config?: Partial<AciConfig>;
  /** Run the shell under a pseudo-terminal, as the recording did. */
  tty?: boolean;
  /** What the session is for (`replay`, `run`), as a container label, so leftovers say where they came from. */
  role: string;
  /** Memory, CPUs, pids and per-command limits; the rest keep `DEFAULT_LIMITS`. */
  limits?: Partial<SandboxLimits>;
  /** The engine to run in; default DOCKER_HOST and friends, as the docker CLI reads them. */
  docker?: DockerConnectionOptions;
  signal?: AbortSignal;
}

/**
 * A container with the repository and the agent's tools bound to it (Pyright mounted when a
 * tool uses it). The caller disposes it with `AciSession.dispose`.
 */
export async function startContainerSession(options: ContainerSessionOptions): Promise<AciSession> {
  const { scaffold } = options;
  const tools = scaffold?.tools ?? options.tools;
  if (!tools) throw new Error('a container session needs a scaffold or its tools');
  const sandbox = await DockerSandbox.create(
    {
      image: options.image,
      ...(options.repoDir !== undefined ? { repoDir: options.repoDir } : {}),
      repoPath: options.repoPath,
      tty: options.tty ?? scaffold?.tty ?? false,
      ...(scaffold?.shellStartup ? { shellStartup: startupScript(scaffold.shellStartup) } : {}),
      labels: { 'swe-workbench.role': options.role },
      ...([...tools.tools.values()].some((t) => t.usesPyright) ? { mounts: pyrightMounts() } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options.docker && connectDocker(options.docker),
  );
  try {
    if (options.repoDir !== undefined && options.baseCommit) await checkOutBase(sandbox, options.baseCommit, options.signal);
    if (scaffold?.prepare) await scaffold.prepare(sandbox, options.signal);
  } catch (err) {
    await sandbox.dispose();
    throw err;
  }
  return new AciSession(sandbox, {
    tools,
    config: { ...scaffold?.config, ...options.config, ...(options.baseCommit ? { baseCommit: options.baseCommit } : {}) },
    ...(scaffold?.present ? { present: scaffold.present } : {}),
  });
}

/**
 * The task's base commit is the tree the agent started from: a copied repository whose history
 * holds it, checked out at another commit (the demo's sample repository is at the fix, its task
 * before it), starts there. A repository without that commit is left as it is (its patch then
 * says git's complaint, as the agent would have seen it).
 */
async function checkOutBase(sandbox: DockerSandbox, baseCommit: string, signal: AbortSignal | undefined): Promise<void> {
  const git = `git -c safe.directory='*'`;
  const base = bashQuote(`${baseCommit}^{commit}`);
  const r = await sandbox.exec(
    `if ${git} cat-file -e ${base} 2>/dev/null && [ "$(${git} rev-parse HEAD 2>/dev/null)" != "$(${git} rev-parse ${base})" ]; then ${git} -c advice.detachedHead=false checkout -q --detach ${bashQuote(baseCommit)}; fi`,
    { cwd: sandbox.repoPath, ...(signal ? { signal } : {}) },
  );
  if (r.exitCode !== 0) throw new Error(`the repository could not be checked out at the task's base commit ${baseCommit.slice(0, 12)}: ${r.output.trim()}`);
}

export type ReplaySettings = {
  bundles?: string[];
  /** The recording ran under a pseudo-terminal: so does the replay's shell. */
  tty: boolean;
  repoPath?: string;
  baseCommit?: string;
  /** The tool settings any recording shows: a pseudo-terminal's line ends, the base commit (its family's own come from its scaffold, `Scaffold.config`). */
  config: Partial<AciConfig>;
};

/** How a recording ran, so its replay runs the same way. */
export function replaySettings(recording: Trajectory): ReplaySettings {
  const { meta, task } = recording;
  return {
    ...(meta.toolBundles ? { bundles: meta.toolBundles } : {}),
    tty: meta.pty ?? false,
    ...(task.repoPath ? { repoPath: task.repoPath } : {}),
    ...(task.baseCommit ? { baseCommit: task.baseCommit } : {}),
    config: { ...(meta.pty ? { crlf: true } : {}), ...(task.baseCommit ? { baseCommit: task.baseCommit } : {}) },
  };
}
