/**
 * How R2E-Gym's runtime runs a tool (the warm server for `file_editor` and `search`, else a fresh
 * process: freshRun.ts) and turns what it printed into the observation the agent reads
 * (`DockerRuntime.run` and `Observation.__str__` at 69bc953).
 */
import { CancelledError, throwIfAborted } from '../../errors';
import type { Sandbox } from '../../runtime/sandbox';
import { WarmPythonTimeout } from '../../runtime/warmPython';
import { r2eArgv, r2eCommandLine, type R2eAction } from './action';
import { pySplitLines } from '../../parsing/pythonText';
import { R2E_TIMEOUT_S, r2eRun, runR2eCommand, tooLong, type R2eRun } from './freshRun';
import { r2eServers } from './warmTools';

/** Lines kept at each end of a long `execute_bash` output. */
const KEPT_LINES = 40;

/** The tools the warm server runs; `execute_bash` keeps its fresh `/bin/sh` (R2E-Gym's semantics), `finish` only echoes. */
const WARM_TOOLS = new Set(['file_editor', 'search']);

/** Calls that only read, so running one again after the server died midway changes nothing. */
function readOnly(action: R2eAction): boolean {
  return action.name === 'search' || (action.name === 'file_editor' && action.parameters.command === 'view');
}

/**
 * Runs a tool call as R2E-Gym's runtime does and gives what it printed. `file_editor` and `search`
 * go to the sandbox's warm server when it runs (the same program, no Python start-up); a call
 * that runs past 90 s gives the runtime's "took too long" and the server is restarted for the
 * next call. Everything else, and every call when the image's Python cannot run the server, is a
 * fresh process (freshRun.ts).
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
