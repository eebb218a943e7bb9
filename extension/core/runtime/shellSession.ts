/**
 * The one persistent shell of a sandbox: `bash --norc --noprofile --noediting -i` fed one line per
 * command, each answered by a unique end marker that carries the exit code. The transport
 * (a host child process or a Docker exec) is supplied by the sandbox. It reads no startup file
 * of its own; the startup files the scaffold's shell read (`ShellStartup`) are sourced first.
 *
 * The shell is interactive on purpose: on SIGINT an interactive bash abandons the whole
 * command line (loops included) and reads the next one, while keeping cwd, variables and
 * functions, which is how a terminal behaves on Ctrl-C. A non-interactive bash would either
 * die or carry on with the rest of a compound command.
 */
import { randomBytes } from 'node:crypto';
import { CancelledError, throwIfAborted } from '../errors';
import type { ExecOptions, ExecResult } from './sandbox';

export interface ShellProcess {
  readonly stdin: NodeJS.WritableStream;
  /** The shell's stdout (commands' stderr is merged into it by the framing). */
  readonly stdout: NodeJS.ReadableStream;
  /** Resolves with the shell's exit code once it has ended. */
  readonly exited: Promise<number>;
  /** Ends the shell and everything it started. */
  kill(): Promise<void>;
}

export type TreeSignal = 'interrupt' | 'kill-children' | 'kill-all';

export interface ShellHost {
  startShell(): Promise<ShellProcess>;
  /**
   * Signals the shell `pid` and its descendants (and their process groups):
   * `interrupt` sends SIGINT to all of them, `kill-children` SIGKILL to the descendants only,
   * `kill-all` SIGKILL to the shell too.
   */
  signalTree(pid: number, how: TreeSignal): Promise<void>;
  /** Under a pty the shell's output ends lines with \r\n. */
  readonly tty: boolean;
}

export interface ShellDefaults {
  cwd: string;
  commandTimeoutMs: number;
  maxOutputBytes: number;
  /** Bash the shell runs once started, before any command (`startupScript`); again after a fresh start. */
  startup?: string;
}

/**
 * The startup files a scaffold's own shell reads before its first command, as bash(1)
 * INVOCATION describes them: a login shell reads /etc/profile and the first of
 * ~/.bash_profile, ~/.bash_login, ~/.profile; an interactive non-login shell reads
 * /etc/bash.bashrc (Debian's build) and ~/.bashrc; `source` lists files sourced after those
 * (SWE-ReX's `startup_source`). This is how an image's own environment (SWE-bench's
 * `conda activate testbed` in /root/.bashrc) comes into effect.
 */
export interface ShellStartup {
  login?: boolean;
  interactive?: boolean;
  source?: readonly string[];
}

/** The bash lines that read `startup`'s files, each with stdin from /dev/null so none eats our command lines; '' for none. */
export function startupScript(startup: ShellStartup | undefined): string {
  if (!startup) return '';
  const read = (file: string) => `. ${file} </dev/null`;
  const lines: string[] = [];
  if (startup.login) {
    lines.push(`if [ -r /etc/profile ]; then ${read('/etc/profile')}; fi`);
    lines.push(
      `if [ -r ~/.bash_profile ]; then ${read('~/.bash_profile')}; elif [ -r ~/.bash_login ]; then ${read('~/.bash_login')}; elif [ -r ~/.profile ]; then ${read('~/.profile')}; fi`,
    );
  } else if (startup.interactive) {
    lines.push(`if [ -r /etc/bash.bashrc ]; then ${read('/etc/bash.bashrc')}; fi`, `if [ -r ~/.bashrc ]; then ${read('~/.bashrc')}; fi`);
  }
  for (const file of startup.source ?? []) lines.push(`if [ -r ${bashQuote(file)} ]; then ${read(bashQuote(file))}; fi`);
  return lines.join('\n');
}

/**
 * Printed by an interactive bash without a terminal when a child it waits for dies of a signal:
 * a command that overran and was stopped, but also any pipeline whose writer gets SIGPIPE when
 * `head` exits first (0.x's `_print` is one), so whether it appears depends on which process
 * finished first. Bash's complaint about our terminal-less shell, never what the command printed.
 */
const TCSETATTR_NOISE = /^bash: \[\d+: \d+ \(\d+\)\] tcsetattr: Inappropriate ioctl for device\r?\n/gm;

/**
 * Stopping a command that overran: SIGINT to the shell and its children, then up to
 * STOP_ATTEMPTS - 1 rounds of SIGKILL to the children and SIGINT again (a loop goes on to its
 * next iteration when a child is killed), each waiting STOP_WAIT_MS for the shell to answer;
 * after that a fresh shell.
 */
const STOP_ATTEMPTS = 4;
const STOP_WAIT_MS = 750;
const SYNC_TIMEOUT_MS = 5000;

/** Quotes any string as a bash ANSI-C literal `$'...'`, so no byte is interpreted. */
export function bashQuote(text: string): string {
  // One regular expression pass: a tool's command line is a few hundred characters, quoted per call.
  const quoted = text.replace(/[\\'\x00-\x1f\x7f]/g, (ch) => (ch === '\\' || ch === "'" ? `\\${ch}` : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`));
  return `$'${quoted}'`;
}

/** Command output kept up to a byte cap, with the number of bytes left out. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.kept;
    if (room >= chunk.length) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept += room;
    }
    this.dropped += chunk.length - Math.max(room, 0);
  }
  /** Decodes the kept bytes, moving a UTF-8 sequence split by the cap into the dropped count. */
  text(): string {
    let buf = Buffer.concat(this.chunks);
    if (this.dropped > 0) {
      let end = buf.length;
      while (end > 0 && end > buf.length - 4 && (buf[end - 1]! & 0xc0) === 0x80) end--;
      if (end > 0 && buf[end - 1]! >= 0xc0) {
        const lead = buf[end - 1]!;
        const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
        if (buf.length - (end - 1) < need) {
          this.dropped += buf.length - (end - 1);
          buf = buf.subarray(0, end - 1);
        }
      }
    }
    return buf.toString('utf8');
  }
}

interface Pending {
  /** The command's marker numbers: its own, and those asked for again after an interrupt. */
  readonly seqs: Set<number>;
  readonly output: CappedOutput;
  /** Recent bytes not yet known to be output, so a marker split across chunks is found. */
  held: Buffer;
  resolve(exitCode: number | 'closed'): void;
  fail(reason: Error): void;
}

export class ShellSession {
  private shell: ShellProcess | undefined;
  private pid = 0;
  private readonly nonce = randomBytes(8).toString('hex');
  private seq = 0;
  private pending: Pending | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private disposed = false;
  /** Set when a command had to be stopped; the next command first syncs with the shell. */
  private settling = false;

  constructor(
    private readonly host: ShellHost,
    private readonly defaults: ShellDefaults,
  ) {}

  private get markerPrefix(): string {
    return `__SWB_${this.nonce}_`;
  }

  /** Starts the shell (once) and waits until it answers; later calls return at once. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.shell) return;
    const shell = await this.host.startShell();
    if (signal?.aborted) {
      await shell.kill().catch(() => undefined);
      throwIfAborted(signal);
    }
    this.shell = shell;
    shell.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    shell.stdout.on('end', () => this.onClosed(shell));
    void shell.exited.then(() => this.onClosed(shell));
    const init = [
      // The image's own profile first (it may set PS1 or PROMPT_COMMAND, which the lines after reset).
      ...(this.defaults.startup ? [`{ ${this.defaults.startup}\n} >/dev/null 2>&1`] : []),
      "PS1=''",
      "PS2=''",
      "PS0=''",
      'unset PROMPT_COMMAND HISTFILE',
      'set +H',
      // A pager reads keys from the terminal, which no command here can answer.
      'export PAGER="${PAGER:-cat}"',
      // No echo of our lines, and no canonical mode: it caps a line at 4095 bytes.
      ...(this.host.tty ? ['stty -echo -icanon 2>/dev/null'] : []),
      `cd -- ${bashQuote(this.defaults.cwd)} 2>/dev/null`,
    ].join('; ');
    let answer: Awaited<ReturnType<ShellSession['roundTrip']>>;
    try {
      answer = await this.roundTrip(init, signal, 'start');
    } catch (err) {
      await this.abandon(shell);
      throw err;
    }
    if (answer.code === 'closed') {
      await this.abandon(shell);
      throw new Error(`the sandbox shell did not start (bash --norc --noprofile --noediting -i): ${answer.text.slice(-500) || 'no output'}`);
    }
    this.pid = answer.code;
  }

  private async abandon(shell: ShellProcess): Promise<void> {
    if (this.shell === shell) this.shell = undefined;
    await shell.kill().catch(() => undefined);
  }

  exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const run = this.queue.then(() => this.execNow(command, options));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Ends the shell; a command still running fails with `reason`. */
  async dispose(reason: Error = new Error('the sandbox was disposed while the command ran')): Promise<void> {
    this.disposed = true;
    const shell = this.shell;
    this.shell = undefined;
    this.pending?.fail(reason);
    if (shell) await shell.kill().catch(() => undefined);
  }

  private async execNow(command: string, options: ExecOptions): Promise<ExecResult> {
    if (this.disposed) throw new Error('the sandbox has been disposed');
    if (options.signal?.aborted) throw new CancelledError();
    const started = performance.now();
    if (!this.shell) await this.start(options.signal);
    if (this.settling) {
      // A stop may have sent SIGINT to a shell that had already finished: let it land on an
      // empty line here, together with any job notice, rather than on the next command.
      this.settling = false;
      await this.roundTrip(':', options.signal, 'command', SYNC_TIMEOUT_MS, 0);
    }
    const body = options.cwd
      ? `__swb_prev=$PWD; { cd -- ${bashQuote(options.cwd)} && eval ${bashQuote(command)}; } </dev/null 2>&1; __swb_rc=$?; cd -- "$__swb_prev"; (exit $__swb_rc)`
      : `eval ${bashQuote(command)} </dev/null 2>&1`;
    const timeoutMs = options.timeoutMs ?? this.defaults.commandTimeoutMs;
    const result = await this.roundTrip(body, options.signal, 'command', timeoutMs, options.maxOutputBytes ?? this.defaults.maxOutputBytes);
    return {
      output: result.text.includes('tcsetattr') ? result.text.replace(TCSETATTR_NOISE, '') : result.text,
      exitCode: result.code === 'closed' ? await this.closedExitCode() : result.code,
      timedOut: result.timedOut,
      ...(result.restarted ? { shellRestarted: true } : {}),
      ...(result.code === 'closed' ? { shellClosed: true } : {}),
      truncatedBytes: result.dropped,
      durationMs: performance.now() - started,
    };
  }

  private async closedExitCode(): Promise<number> {
    const shell = this.shell;
    this.shell = undefined;
    return shell ? await shell.exited : -1;
  }

  /**
   * Sends one line and waits for its end marker. On timeout (or abort) it escalates: SIGINT
   * to the shell and its children, then SIGKILL to the children, then a fresh shell.
   */
  private roundTrip(
    body: string,
    signal: AbortSignal | undefined,
    purpose: 'start' | 'command',
    timeoutMs = 30_000,
    cap = 1 << 20,
  ): Promise<{ text: string; code: number | 'closed'; timedOut: boolean; restarted: boolean; dropped: number }> {
    const shell = this.shell!;
    const seq = ++this.seq;
    const output = new CappedOutput(purpose === 'start' ? 1 << 16 : cap);
    const status = purpose === 'start' ? '$$' : '$?';
    const line = `${body}; printf '\\n%s%d %d\\n' ${this.markerPrefix} ${seq} ${status}\n`;
    return new Promise((resolve, reject) => {
      // A listener added to a signal that has already aborted never hears it.
      if (signal?.aborted) {
        reject(new CancelledError(typeof signal.reason === 'string' ? signal.reason : 'cancelled'));
        return;
      }
      let timedOut = false;
      let restarted = false;
      let cancelled = false;
      let stopping: Promise<void> | undefined;
      let timer: NodeJS.Timeout | undefined;
      let wake: () => void = () => undefined;
      const finish = (code: number | 'closed') => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending = undefined;
        wake();
        const settle = () => {
          if (cancelled) reject(new CancelledError(typeof signal?.reason === 'string' ? signal.reason : 'cancelled'));
          else resolve({ text: output.text(), code, timedOut, restarted, dropped: output.dropped });
        };
        // A signal still on its way must land before the next command starts, not on it.
        if (stopping) void stopping.then(settle);
        else settle();
      };
      const fail = (reason: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.pending = undefined;
        wake();
        reject(reason);
      };
      this.pending = { seqs: new Set([seq]), output, held: Buffer.alloc(0), resolve: finish, fail };
      const running = () => this.pending?.seqs.has(seq) === true;
      const stop = async () => {
        this.settling = true;
        for (let attempt = 0; attempt < STOP_ATTEMPTS; attempt++) {
          if (attempt > 0 && running()) await this.host.signalTree(this.pid, 'kill-children').catch(() => undefined);
          if (running()) await this.host.signalTree(this.pid, 'interrupt').catch(() => undefined);
          if (!running()) return;
          this.resync();
          await new Promise<void>((done) => {
            wake = done;
            setTimeout(done, STOP_WAIT_MS);
          });
        }
        if (!running()) return;
        restarted = true;
        await this.host.signalTree(this.pid, 'kill-all').catch(() => undefined);
        await shell.kill().catch(() => undefined);
        if (this.shell === shell) this.shell = undefined;
        finish(130);
      };
      const begin = () => {
        stopping ??= stop();
      };
      const onAbort = () => {
        cancelled = true;
        if (purpose === 'start') finish('closed');
        else begin();
      };
      if (signal) signal.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => {
        timedOut = true;
        begin();
      }, timeoutMs);
      shell.stdin.write(line);
    });
  }

  /** After an interrupt the aborted line never prints its marker: ask for a new one. */
  private resync(): void {
    const seq = ++this.seq;
    this.pending?.seqs.add(seq);
    this.shell?.stdin.write(`printf '\\n%s%d %d\\n' ${this.markerPrefix} ${seq} $?\n`);
  }

  /** Splits the stream into output and end markers; stale markers (from a resync) are dropped. */
  private onData(chunk: Buffer): void {
    const p = this.pending;
    if (!p) return;
    let data = p.held.length ? Buffer.concat([p.held, chunk]) : chunk;
    const prefix = Buffer.from(this.markerPrefix);
    for (let at = data.indexOf(prefix); at >= 0; at = data.indexOf(prefix)) {
      const lead = this.host.tty && at >= 2 && data[at - 2] === 0x0d && data[at - 1] === 0x0a ? 2 : at >= 1 && data[at - 1] === 0x0a ? 1 : 0;
      const eol = data.indexOf(0x0a, at + prefix.length);
      if (eol < 0) {
        p.output.push(data.subarray(0, at - lead));
        p.held = Buffer.from(data.subarray(at - lead));
        return;
      }
      p.output.push(data.subarray(0, at - lead));
      // A pty echoes the command line before `stty -echo` applies; only `<seq> <code>` counts.
      const tail = /^(\d+) (-?\d+)\r?$/.exec(data.subarray(at + prefix.length, eol).toString('latin1'));
      if (tail && p.seqs.has(Number(tail[1]))) {
        p.resolve(Number(tail[2]));
        return;
      }
      data = data.subarray(eol + 1);
    }
    // Keep back enough bytes to hold a marker cut in two, plus the newline before it.
    const keep = Math.min(data.length, prefix.length + 2);
    p.output.push(data.subarray(0, data.length - keep));
    p.held = Buffer.from(data.subarray(data.length - keep));
  }

  private onClosed(shell: ShellProcess): void {
    if (this.shell !== shell) return;
    const p = this.pending;
    if (!p) {
      this.shell = undefined;
      return;
    }
    p.output.push(p.held);
    p.held = Buffer.alloc(0);
    p.resolve('closed');
  }
}
