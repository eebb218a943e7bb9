import { CancelledError, throwIfAborted } from '../errors';
import type { Sandbox } from '../runtime/sandbox';

export interface FreshProcessResult {
  /** stdout and stderr in the order written (one pipe), decoded as UTF-8 with U+FFFD for bad bytes. */
  output: string;
  exitCode: number;
  /** Our own guard fired (the scaffold's own timeout is part of the command). */
  killed: boolean;
}

/**
 * Runs `script` in a new `/bin/sh` outside the sandbox's persistent shell, as scaffolds that
 * start a process per action do (R2E-Gym's `exec_run(["/bin/sh", "-c", ...])`, mini-swe-agent's
 * `bash -lc`): nothing carries over between actions. stderr joins stdout on one pipe, so the
 * text keeps the order the program wrote it in, as `docker exec` without demux gives it.
 */
export async function runFreshProcess(
  sandbox: Sandbox,
  script: string,
  options: { cwd?: string; env?: Record<string, string>; guardMs: number; signal?: AbortSignal },
): Promise<FreshProcessResult> {
  throwIfAborted(options.signal);
  const child = await sandbox.spawn(['/bin/sh', '-c', `exec 2>&1 </dev/null\n${script}`], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  child.stdin.end();
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  child.stderr.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
  let killed = false;
  const kill = () => {
    killed = true;
    void child.kill().catch(() => undefined);
  };
  const timer = setTimeout(kill, options.guardMs);
  options.signal?.addEventListener('abort', kill, { once: true });
  try {
    const exitCode = await child.exited;
    if (options.signal?.aborted) throw new CancelledError();
    return { output: new TextDecoder('utf-8').decode(Buffer.concat(chunks)), exitCode, killed };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', kill);
  }
}
