/**
 * How R2E-Gym's runtime runs a tool and turns what it printed into the observation the agent
 * reads (`DockerRuntime.run` and `Observation.__str__` at 69bc953).
 */
import { CancelledError, throwIfAborted } from '../../errors';
import type { Sandbox } from '../../runtime/sandbox';
import { WarmPerSandbox, WarmPython, WarmPythonTimeout } from '../../runtime/warmPython';
import { r2eArgv, r2eCommandLine, type R2eAction } from './action';
import { runFreshProcess } from '../freshProcess';
import { R2E_PROGRAM_PATH, R2E_PYTHON, R2E_TOOL_DIR } from './toolProgram';
import { R2E_SERVER_SOURCE } from './warmTools';

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

const tooLong = `The command took too long to execute (>${R2E_TIMEOUT_S}s)`;

/** `/bin/sh -c "timeout 90 <cmd> "` in the repository, no terminal, stdout and stderr merged. @internal */
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
function r2eRun(output: string, exitCode: number): R2eRun {
  if (exitCode === 124) return { output: tooLong, code: '-1' };
  if (exitCode !== 0) return { output, code: `Error: Exit code ${exitCode}` };
  // Colour codes and carriage returns go only from a successful command's output.
  return { output: output.replace(/\x1b\[[0-9;]*m|\r/g, ''), code: '0' };
}

/** The tools the warm server runs; `execute_bash` keeps its fresh `/bin/sh` (R2E-Gym's semantics), `finish` only echoes. */
const WARM_TOOLS = new Set(['file_editor', 'search']);

/** One warm server per sandbox (`python -c` with the image's venv Python), started on first use. @internal */
export const r2eServers = new WarmPerSandbox<WarmPython>(
  (sandbox) =>
    WarmPython.start(sandbox, [R2E_PYTHON, '-c', R2E_SERVER_SOURCE, R2E_PROGRAM_PATH, R2E_TOOL_DIR], {
      cwd: sandbox.repoPath,
      env: { PATH: R2E_PATH },
    }),
  (sandbox, reason) =>
    console.warn(`swe-workbench: R2E-Gym's file_editor and search start a new Python process for every call in sandbox ${sandbox.id.slice(0, 12)}: ${reason}`),
);

/** Calls that only read, so running one again after the server died midway changes nothing. */
function readOnly(action: R2eAction): boolean {
  return action.name === 'search' || (action.name === 'file_editor' && action.parameters.command === 'view');
}

/**
 * Runs a tool call as R2E-Gym's runtime does and gives what it printed. `file_editor` and `search`
 * go to the sandbox's warm server when it runs (the same program, no Python start-up); a call
 * that runs past 90 s gives the runtime's "took too long" and the server is restarted for the
 * next call. Everything else, and every call when the image's Python cannot run the server, is a
 * fresh process (runR2eCommand).
 */
export async function runR2eTool(sandbox: Sandbox, action: R2eAction, signal?: AbortSignal, timeoutS = R2E_TIMEOUT_S): Promise<R2eRun> {
  const argv = WARM_TOOLS.has(action.name) ? r2eArgv(action) : undefined;
  if (argv) {
    throwIfAborted(signal);
    for (let attempt = 0; attempt < 2; attempt++) {
      const server = await r2eServers.get(sandbox);
      if (!server) break;
      const stop = () => void server.dispose().catch(() => undefined);
      signal?.addEventListener('abort', stop, { once: true });
      try {
        const answer = await server.request(
          { tool: action.name, argv: argv.map((word) => Buffer.from(word, 'utf8').toString('base64')), cwd: sandbox.repoPath },
          timeoutS * 1000,
        );
        if (typeof answer.output === 'string' && typeof answer.code === 'number') {
          return r2eRun(new TextDecoder('utf-8').decode(Buffer.from(answer.output, 'base64')), answer.code);
        }
        // The server failed around the call (not in the tool): the call runs fresh.
        console.warn(`swe-workbench: R2E-Gym's warm tools could not run ${action.name}, running it fresh: ${String(answer.error)}`);
        break;
      } catch (e) {
        if (signal?.aborted) throw new CancelledError();
        if (e instanceof WarmPythonTimeout) return { output: tooLong, code: '-1' };
        // The server died before answering: a read runs again on a new one; an edit may have
        // happened, so it is reported as a killed process would be.
        if (!readOnly(action)) return { output: '', code: 'Error: Exit code 137' };
      } finally {
        signal?.removeEventListener('abort', stop);
      }
    }
  }
  return runR2eCommand(sandbox, r2eCommandLine(action), signal);
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
