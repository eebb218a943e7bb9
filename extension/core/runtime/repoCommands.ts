import { throwIfAborted } from '../errors';
import type { Sandbox } from './sandbox';
import { bashQuote } from './shellSession';

export interface LoggedRun {
  /** What the command wrote (stdout and stderr), read back from its log; '' when the log is unreadable. */
  output: string;
  exitCode: number;
  timedOut: boolean;
  /** Why the command did not simply run to its end (out of memory, the container gone), from the sandbox. */
  fault?: string;
}

/**
 * Runs a test command in the repository with its output sent to `log` (a file outside the
 * repository), then reads the log back: the one way a test suite runs in a sandbox, for bug
 * validation and for grading a patch. The shell's own output stays small whatever the suite prints.
 */
export async function runLoggedCommand(
  sandbox: Sandbox,
  command: string,
  log: string,
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<LoggedRun> {
  throwIfAborted(options.signal);
  const run = await sandbox.exec(`${command} > ${bashQuote(log)} 2>&1`, { cwd: sandbox.repoPath, timeoutMs: options.timeoutMs, signal: options.signal });
  const output = await sandbox.readFile(log).catch(() => '');
  return { output, exitCode: run.exitCode, timedOut: run.timedOut, ...(run.fault ? { fault: run.fault } : {}) };
}

/** Shell steps putting `files` back as they are at `baseRef` (removed when the base has none). */
export function restoreFromBase(baseRef: string, files: readonly string[]): string[] {
  const base = bashQuote(baseRef);
  return files.map(
    (f) => `if git cat-file -e ${base}:${bashQuote(f)} 2>/dev/null; then git checkout -q ${base} -- ${bashQuote(f)}; else rm -f -- ${bashQuote(f)}; fi`,
  );
}

/**
 * The signal reaches the sandbox only while it starts: afterwards the caller disposes it and
 * waits for its removal, rather than racing a sandbox that disposes itself on abort.
 */
export async function createUntilStarted(options: {
  createSandbox: (signal?: AbortSignal) => Promise<Sandbox>;
  signal?: AbortSignal | undefined;
}): Promise<Sandbox> {
  const starting = new AbortController();
  const forward = () => starting.abort(options.signal?.reason);
  if (options.signal?.aborted) forward();
  options.signal?.addEventListener('abort', forward, { once: true });
  try {
    return await options.createSandbox(starting.signal);
  } finally {
    options.signal?.removeEventListener('abort', forward);
  }
}
