/**
 * A call as R2E-Gym's runtime runs it (`DockerRuntime.run` at 69bc953): a fresh
 * `/bin/sh -c "timeout 90 <cmd> "` in the repository with the image's venv first on PATH, and what
 * it makes of the output and exit status. `execute_bash` always runs this way; `file_editor` and
 * `search` do when the sandbox's warm server cannot serve them.
 */
import type { Sandbox } from '../../runtime/sandbox';
import { runFreshProcess } from '../freshProcess';

/** The runtime's PATH (`DOCKER_PATH`): the image's venv first. */
export const R2E_PATH = '/root/.venv/bin:/root/.local/bin:/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Seconds a tool may run (`max_exec_time`). */
export const R2E_TIMEOUT_S = 90;

export interface R2eRun {
  output: string;
  /** `0`, `Error: Exit code N`, or `-1` after a timeout: R2E-Gym's `error_code` text. */
  code: string;
}

export const tooLong = `The command took too long to execute (>${R2E_TIMEOUT_S}s)`;

/** `/bin/sh -c "timeout 90 <cmd> "` in the repository, no terminal, stdout and stderr merged. */
export async function runR2eCommand(sandbox: Sandbox, commandLine: string, signal?: AbortSignal): Promise<R2eRun> {
  const result = await runFreshProcess(sandbox, `timeout ${R2E_TIMEOUT_S} ${commandLine} `, {
    cwd: sandbox.repoPath,
    env: { PATH: R2E_PATH },
    guardMs: (R2E_TIMEOUT_S + 5) * 1000,
    ...(signal ? { signal } : {}),
  });
  if (result.killed || result.exitCode === 124) return { output: tooLong, code: '-1' };
  return r2eRun(result.output, result.exitCode);
}

/** What the runtime makes of a finished process's output and exit status. */
export function r2eRun(output: string, exitCode: number): R2eRun {
  if (exitCode === 124) return { output: tooLong, code: '-1' };
  if (exitCode !== 0) return { output, code: `Error: Exit code ${exitCode}` };
  // Colour codes and carriage returns go only from a successful command's output.
  return { output: output.replace(/\x1b\[[0-9;]*m|\r/g, ''), code: '0' };
}
