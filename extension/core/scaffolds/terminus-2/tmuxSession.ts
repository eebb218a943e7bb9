/**
 * Terminus-2's terminal: one tmux session in the sandbox, driven as Harbor's `TmuxSession` drives
 * it. Every tmux command is a process of its own (`bash -c`, as Harbor's environment runs them);
 * keystrokes go in as `tmux send-keys` arguments, one command per 16,000 characters of quoted
 * keys; a non-blocking send waits out its duration counted from when the keys were sent; a blocking
 * one (keys ending in Enter or a newline) appends `; tmux wait -S done` and waits for the signal
 * under `timeout`. What the agent reads is the pane's whole history compared with the previous
 * capture ("New Terminal Output:"), or the visible screen when that comparison fails ("Current
 * Terminal Screen:"), with the exact index arithmetic Harbor's `_find_new_content` does.
 */
import { CancelledError, throwIfAborted } from '../../errors';
import type { Sandbox } from '../../runtime/sandbox';
import { pyFloat, pyStrip, shlexQuote } from '../../parsing/pythonText';
import { findNewContent, prepareKeys, sendKeysCommands } from './tmuxKeys';

const HISTORY_LIMIT = 10_000_000;

/** Seconds since some fixed time, as Python's `time.time()` differences measure them. */
function nowS(): number {
  return performance.now() / 1000;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CancelledError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class TmuxTimeoutError extends Error {}

interface ShellRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface TmuxSessionOptions {
  /** Harbor names the session after the agent: `terminus-2`. */
  name?: string;
  width?: number;
  height?: number;
  /** Where the pane's output is piped (`pipe-pane`); Harbor's agent log folder. */
  logPath?: string;
  /** The directory the session's shell starts in (Harbor: the image's working directory, `/app`). */
  cwd?: string;
}

export class TmuxSession {
  readonly name: string;
  private readonly width: number;
  private readonly height: number;
  private readonly logPath: string;
  private readonly cwd: string | undefined;
  private previous: string | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    options: TmuxSessionOptions = {},
  ) {
    this.name = options.name ?? 'terminus-2';
    this.width = options.width ?? 160;
    this.height = options.height ?? 40;
    if (!Number.isInteger(this.width) || !Number.isInteger(this.height) || this.width <= 0 || this.height <= 0)
      throw new Error('pane_width and pane_height must be positive integers.');
    this.logPath = options.logPath ?? '/logs/agent/terminus_2.pane';
    this.cwd = options.cwd;
  }

  /** One tmux command as Harbor's environment runs one: a fresh `bash -c`, stdout and stderr apart. */
  private async run(command: string, signal?: AbortSignal): Promise<ShellRun> {
    throwIfAborted(signal);
    const child = await this.sandbox.spawn(['bash', '-c', command], this.cwd ? { cwd: this.cwd } : {});
    child.stdin.end();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(Buffer.from(c)));
    child.stderr.on('data', (c: Buffer) => err.push(Buffer.from(c)));
    const kill = () => void child.kill().catch(() => undefined);
    signal?.addEventListener('abort', kill, { once: true });
    try {
      const exitCode = await child.exited;
      if (signal?.aborted) throw new CancelledError();
      const decode = (chunks: Buffer[]) => new TextDecoder('utf-8').decode(Buffer.concat(chunks));
      return { stdout: decode(out), stderr: decode(err), exitCode };
    } finally {
      signal?.removeEventListener('abort', kill);
    }
  }

  /** Starts the session as Harbor does: tmux under `script` for a terminal, a login bash, the pane piped to the log, a deep history. */
  async start(signal?: AbortSignal): Promise<void> {
    const version = await this.run('tmux -V', signal);
    if (version.exitCode !== 0) throw new Error(MISSING_TMUX);
    const logDir = this.logPath.replace(/\/[^/]*$/, '') || '/';
    await this.run(`mkdir -p ${shlexQuote(logDir)}`, signal);
    const started = await this.run(
      'export TERM=xterm-256color && export SHELL=/bin/bash && ' +
        `script -qc "tmux new-session -x ${this.width} -y ${this.height} -d -s ${this.name} 'bash --login' \\; ` +
        `pipe-pane -t ${this.name} 'cat > ${this.logPath}'" /dev/null`,
      signal,
    );
    if (started.exitCode !== 0) throw new Error(`Failed to start tmux session. Error: ${started.stderr}`);
    await this.run(`tmux set-option -g history-limit ${HISTORY_LIMIT}`, signal);
  }

  async isAlive(signal?: AbortSignal): Promise<boolean> {
    return (await this.run(`tmux has-session -t ${this.name}`, signal)).exitCode === 0;
  }

  /**
   * Sends keystrokes (`send_keys`): a blocking send of a command (keys ending in Enter or a
   * newline) waits for it to finish up to `maxTimeoutS` and throws `TmuxTimeoutError` after;
   * any other send waits until `minTimeoutS` have passed since it began.
   */
  async sendKeys(
    keys: string | readonly string[],
    options: { block?: boolean; minTimeoutS?: number; maxTimeoutS?: number; signal?: AbortSignal } = {},
  ): Promise<void> {
    const { block = false, minTimeoutS = 0, maxTimeoutS = 180, signal } = options;
    const prepared = prepareKeys(keys, block);
    for (const command of sendKeysCommands(this.name, prepared.keys)) {
      const sent = await this.run(command, signal);
      if (sent.exitCode !== 0) throw new Error(`failed to send ${prepared.blocking ? 'blocking' : 'non-blocking'} keys: ${sent.stderr}`);
    }
    // The duration is counted from when the shell has the keys, not from before the process that
    // types them starts (Harbor's `start_time_sec`): on a loaded machine that start takes hundreds
    // of milliseconds, which counted in would end the wait before a command given exactly its
    // duration (`sleep 5`, 5 seconds) has finished, where Harbor's recording shows it finished.
    const start = nowS();
    if (prepared.blocking) {
      const waited = await this.run(`timeout ${pyFloat(maxTimeoutS)}s tmux wait done`, signal);
      if (waited.exitCode !== 0) throw new TmuxTimeoutError(`Command timed out after ${maxTimeoutS} seconds`);
      return;
    }
    const elapsed = nowS() - start;
    if (elapsed < minTimeoutS) await sleep((minTimeoutS - elapsed) * 1000, signal);
  }

  /** `tmux capture-pane -p`: the visible screen, or with `entire` the whole history too. */
  async capture(entire = false, signal?: AbortSignal): Promise<string> {
    return (await this.run(`tmux capture-pane -p ${entire ? '-S - ' : ''}-t ${this.name}`, signal)).stdout;
  }

  /** What the agent reads after its commands (`get_incremental_output`). */
  async incrementalOutput(signal?: AbortSignal): Promise<string> {
    const current = await this.capture(true, signal);
    if (this.previous === undefined) {
      this.previous = current;
      return `Current Terminal Screen:\n${await this.capture(false, signal)}`;
    }
    const fresh = findNewContent(this.previous, current);
    this.previous = current;
    if (fresh !== undefined && pyStrip(fresh) !== '') return `New Terminal Output:\n${fresh}`;
    return `Current Terminal Screen:\n${await this.capture(false, signal)}`;
  }
}

/** What to do when the image has no tmux: the words shown to the person. */
const MISSING_TMUX =
  "Terminus-2 drives a tmux session, and the task's image has no tmux (`tmux -V` failed in its container); the sandbox runs without a network, so it is not installed for you. " +
  'Add it to the image, e.g. on a Debian or Ubuntu image `RUN apt-get update && apt-get install -y tmux` in its Dockerfile, or offline: ' +
  '`apt-get download tmux libevent-core-2.1-7 libutempter0` on a host of the same release, then `COPY *.deb /tmp/` and `RUN dpkg -i /tmp/*.deb` ' +
  '(built with `docker build --network none`); `script` (util-linux) is needed too.';
