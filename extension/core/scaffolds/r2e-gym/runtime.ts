/**
 * How R2E-Gym's runtime runs a tool and turns what it printed into the observation the agent
 * reads (`DockerRuntime.run` and `Observation.__str__` at 69bc953).
 */
import type { Sandbox } from '../../runtime/sandbox';
import { runFreshProcess } from '../freshProcess';

/** The runtime's PATH (`DOCKER_PATH`): the image's venv first. */
const R2E_PATH = '/root/.venv/bin:/root/.local/bin:/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Seconds a tool may run (`max_exec_time`). */
const R2E_TIMEOUT_S = 90;
/** Lines kept at each end of a long `execute_bash` output. */
const KEPT_LINES = 40;

export interface R2eRun {
  output: string;
  /** `0`, `Error: Exit code N`, or `-1` after a timeout: R2E-Gym's `error_code` text. */
  code: string;
}

/** `/bin/sh -c "timeout 90 <cmd> "` in the repository, no terminal, stdout and stderr merged. */
export async function runR2eCommand(sandbox: Sandbox, commandLine: string, signal?: AbortSignal): Promise<R2eRun> {
  const result = await runFreshProcess(sandbox, `timeout ${R2E_TIMEOUT_S} ${commandLine} `, {
    cwd: sandbox.repoPath,
    env: { PATH: R2E_PATH },
    guardMs: (R2E_TIMEOUT_S + 5) * 1000,
    ...(signal ? { signal } : {}),
  });
  const tooLong = `The command took too long to execute (>${R2E_TIMEOUT_S}s)`;
  if (result.killed || result.exitCode === 124) return { output: tooLong, code: '-1' };
  if (result.exitCode !== 0) return { output: result.output, code: `Error: Exit code ${result.exitCode}` };
  // Colour codes and carriage returns go only from a successful command's output.
  return { output: result.output.replace(/\x1b\[[0-9;]*m|\r/g, ''), code: '0' };
}

/** Python's `str.splitlines()` (no line ends kept). @internal */
export function pySplitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The observation of a tool that ran. */
export function r2eObservation(tool: string, run: R2eRun): string {
  if (tool !== 'execute_bash') return `Execution output of [${tool}]:\n${run.output}`;
  const lines = run.output ? pySplitLines(run.output) : [];
  let shown = run.output;
  if (lines.length > 2 * KEPT_LINES) {
    const divider = '-'.repeat(50);
    shown = `${lines.slice(0, KEPT_LINES).join('\n')}\n${divider}\n<Observation truncated in middle for saving context>\n${divider}\n${lines.slice(-KEPT_LINES).join('\n')}`;
  }
  return `Exit code: ${run.code}\nExecution output of [${tool}]:\n${shown}`;
}

/** What `finish` shows: R2E-Gym echoes a marker but the observation is always this. */
export const R2E_FINISHED = '<<< Finished >>>';
