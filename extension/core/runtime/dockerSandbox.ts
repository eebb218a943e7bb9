/**
 * The Sandbox in a Docker container (dockerode): one long-lived interactive bash per container,
 * reached through a single exec with stdin attached; files move through the archive API.
 *
 * Lifetime: the container carries labels (sandboxLabels.ts) and is
 * removed on dispose(), when creation fails, when `options.signal` aborts (at any time, so a
 * cancelled job takes its container with it), and at process exit when the docker CLI can be
 * run. cleanupLeftovers() removes containers whose owning process is gone.
 *
 * `tty: true` runs the shell under a pseudo-terminal of 80x24, as SWE-agent 1.x recorded:
 * output lines end with \r\n, programs that check isatty (ls, git, pytest) format for a
 * terminal, and bash's job control reports killed jobs ("Killed"). Commands still read
 * /dev/null, never the terminal.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { CancelledError, InputError, throwIfAborted, errorText } from '../errors';
import { abortable } from './abortable';
import { dockerFromEnv } from './dockerConnection';
import { signalTreeArgv } from './processTree';
import { RepoSnapshots } from './repoSnapshot';
import { isNoSuchImage, MissingImageError } from './images';
import { DEFAULT_LIMITS, type ExecOptions, type ExecResult, type Sandbox, type SandboxLimits, type SandboxOptions, type SandboxProcess } from './sandbox';
import { bashQuote, ShellSession, type ShellHost, type ShellProcess, type TreeSignal } from './shellSession';
import { extractTo, packHostPath } from './tarArchive';
import { OWNER_LABEL, SANDBOX_LABEL, SESSION_LABEL } from './sandboxLabels';
import { PROCESS_DIR, SANDBOX_SNAPSHOT_DIR } from './containerPaths';

const TTY_SIZE = { w: 80, h: 24 };
const FILE_TIMEOUT_MS = 5 * 60_000;
/** Keeps the container alive with whatever `sleep` the image has (busybox lacks `infinity`). */
const IDLE_COMMAND = ['/bin/sh', '-c', 'while :; do sleep 3600; done'];

/** Exit codes of 128 + N (a signal, e.g. 137 for SIGKILL: the OOM killer, `docker kill`) or none at all. */
function killedBySignal(result: ExecResult): boolean {
  return result.exitCode < 0 || result.exitCode >= 128;
}

function formatMiB(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MiB`;
}

function ownerId(): string {
  return `${hostname()}:${process.pid}`;
}

function statusCode(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null && 'statusCode' in err ? (err as { statusCode: number }).statusCode : undefined;
}

function engineMessage(err: unknown): string {
  const json = typeof err === 'object' && err !== null && 'json' in err ? (err as { json: unknown }).json : undefined;
  if (json && typeof json === 'object' && 'message' in json) return String((json as { message: unknown }).message);
  return errorText(err);
}

// Containers of this process, removed with the docker CLI at exit if dispose() never ran.
const live = new Map<string, string | undefined>();
let exitHookInstalled = false;

function cliHost(docker: Docker): string | undefined {
  const modem = docker.modem as { socketPath?: string; protocol?: string; host?: string; port?: number | string };
  if (modem.socketPath) return `unix://${modem.socketPath}`;
  if (modem.protocol === 'http' && modem.host) return `tcp://${modem.host}:${modem.port ?? 2375}`;
  return undefined;
}

function track(docker: Docker, id: string): void {
  live.set(id, cliHost(docker));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const [left, host] of live) {
      spawnSync('docker', [...(host ? ['-H', host] : []), 'rm', '-f', '-v', left], { stdio: 'ignore', timeout: 10_000 });
    }
  });
}

/** Removes a container and resolves only once it is gone, also when another removal raced us. */
async function removeContainer(docker: Docker, id: string): Promise<void> {
  const container = docker.getContainer(id);
  try {
    await container.remove({ force: true, v: true });
  } catch (err) {
    // 404: already gone; 409: a removal is already under way (e.g. an abort's dispose).
    if (statusCode(err) === 409) await untilGone(container);
    else if (statusCode(err) !== 404) throw err;
  } finally {
    live.delete(id);
  }
}

async function untilGone(container: Docker.Container, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await container.inspect();
    } catch (err) {
      if (statusCode(err) === 404) return;
      throw err;
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
  throw new Error(`container ${container.id.slice(0, 12)} was still being removed after ${timeoutMs / 1000} s`);
}

/** Runs a short command in the container and waits for it to end; returns its output and exit code. */
async function execOnce(container: Docker.Container, argv: string[]): Promise<{ output: string; exitCode: number }> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, Tty: false });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  const sink = new PassThrough();
  sink.on('data', (c: Buffer) => chunks.push(c));
  container.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((done) => {
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', () => done());
  });
  const info = await exec.inspect();
  return { output: Buffer.concat(chunks).toString('utf8'), exitCode: info.ExitCode ?? -1 };
}

interface AttachedExec {
  exec: Docker.Exec;
  stream: Duplex;
  stdout: PassThrough;
  stderr: PassThrough;
  exited: Promise<number>;
}

/** Starts an exec with stdin attached; without a tty its stdout and stderr are demultiplexed. */
async function attach(container: Docker.Container, create: Docker.ExecCreateOptions): Promise<AttachedExec> {
  const exec = await container.exec({ ...create, AttachStdin: true, AttachStdout: true, AttachStderr: true });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: create.Tty ?? false })) as Duplex;
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  if (create.Tty) stream.pipe(stdout);
  else container.modem.demuxStream(stream, stdout, stderr);
  const exited = new Promise<number>((done) => {
    let ended = false;
    const onEnd = () => {
      if (ended) return;
      ended = true;
      stdout.end();
      stderr.end();
      exec.inspect().then(
        (info) => done(info.ExitCode ?? -1),
        () => done(-1),
      );
    };
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onEnd);
  });
  return { exec, stream, stdout, stderr, exited };
}

export class DockerSandbox implements Sandbox {
  readonly kind = 'docker' as const;
  readonly repoPath: string;
  readonly tty: boolean;
  private readonly shell: ShellSession;
  private readonly snapshots: RepoSnapshots;
  private readonly env: string[];
  private spawned = 0;
  private disposed = false;
  private disposing: Promise<void> | undefined;
  private readonly onAbort = () => void this.dispose(new CancelledError(typeof this.signal?.reason === 'string' ? this.signal.reason : 'cancelled'));

  private constructor(
    private readonly docker: Docker,
    private readonly container: Docker.Container,
    private readonly options: SandboxOptions,
    private readonly limits: SandboxLimits,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.repoPath = options.repoPath;
    const tty = options.tty ?? false;
    this.tty = tty;
    this.env = Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`);
    const host: ShellHost = {
      tty,
      startShell: () => this.startShell(tty),
      signalTree: async (pid: number, how: TreeSignal) => {
        await execOnce(this.container, signalTreeArgv(pid, how));
      },
    };
    this.shell = new ShellSession(host, {
      cwd: this.repoPath,
      commandTimeoutMs: limits.commandTimeoutMs,
      maxOutputBytes: limits.maxOutputBytes,
      ...(options.shellStartup ? { startup: options.shellStartup } : {}),
    });
    this.snapshots = new RepoSnapshots((c, o) => this.exec(c, o), this.repoPath, SANDBOX_SNAPSHOT_DIR);
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get id(): string {
    return this.container.id;
  }

  /**
   * Creates and starts a container of `options.image` (which must be on the engine), copies
   * `options.repoDir` (or unpacks `options.repoTar`) in at `options.repoPath` and starts the shell. On any failure or abort
   * nothing is left behind.
   */
  static async create(options: SandboxOptions, docker: Docker = dockerFromEnv()): Promise<DockerSandbox> {
    const { signal } = options;
    throwIfAborted(signal);
    if (!posix.isAbsolute(options.repoPath) || posix.normalize(options.repoPath) === '/') {
      throw new InputError(undefined, 'repoPath', `expected an absolute directory other than '/', got '${options.repoPath}'`);
    }
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    // Awaited after the start; until then its failure is not unhandled.
    if (options.repoTar instanceof Promise) options.repoTar.catch(() => undefined);
    const creating = docker.createContainer({
      Image: options.image,
      Entrypoint: IDLE_COMMAND,
      Cmd: [],
      WorkingDir: options.repoPath,
      Env: Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
      Labels: { [SESSION_LABEL]: randomUUID(), ...options.labels, [SANDBOX_LABEL]: '1', [OWNER_LABEL]: ownerId() },
      NetworkDisabled: !options.network,
      HostConfig: {
        NetworkMode: options.network ? 'bridge' : 'none',
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        NanoCpus: Math.round(limits.cpus * 1e9),
        PidsLimit: limits.pids,
        Init: true,
        Mounts: (options.mounts ?? []).map((m) => ({ Type: 'bind' as const, Source: m.hostPath, Target: m.containerPath, ReadOnly: m.readOnly })),
      },
    });
    let container: Docker.Container | undefined;
    try {
      container = await abortable(creating, signal);
      track(docker, container.id);
      await abortable(container.start(), signal);
      if (options.repoTar !== undefined) {
        // The engine unpacks the tar as it is into the working directory it created at `repoPath`.
        const repoTar = await abortable(Promise.resolve(options.repoTar), signal);
        await abortable(container.putArchive(repoTar, { path: options.repoPath }), signal);
      } else if (options.repoDir) {
        await abortable(container.putArchive(packHostPath(options.repoDir, options.repoPath.slice(1)), { path: '/' }), signal);
      }
      const sandbox = new DockerSandbox(docker, container, options, limits, signal);
      await sandbox.shell.start(signal);
      throwIfAborted(signal);
      return sandbox;
    } catch (err) {
      if (container) await removeContainer(docker, container.id).catch(() => undefined);
      else
        await creating
          .then(
            (late) => removeContainer(docker, late.id),
            () => undefined,
          )
          .catch(() => undefined);
      // Whatever broke after an abort (an exec into a container being removed) broke because of it.
      throwIfAborted(signal);
      if (err instanceof CancelledError || err instanceof InputError) throw err;
      if (!container && isNoSuchImage(err)) throw new MissingImageError(options.image);
      throw new Error(`cannot start a sandbox from image '${options.image}': ${engineMessage(err)}`, { cause: err });
    }
  }

  private async startShell(tty: boolean): Promise<ShellProcess> {
    const attached = await attach(this.container, {
      // No readline, with or without a terminal: under a tty `stty -echo` then silences the echo of
      // our command lines; through a pipe readline echoed every byte of them to stderr, one write
      // per byte, which cost milliseconds per tool call (bench/aci, bench/RESULTS.md).
      Cmd: ['bash', '--norc', '--noprofile', '--noediting', '-i'],
      Tty: tty,
      WorkingDir: this.repoPath,
      Env: tty ? [...this.env, 'TERM=xterm'] : this.env,
    });
    if (tty) await attached.exec.resize(TTY_SIZE).catch(() => undefined);
    attached.stderr.resume();
    return {
      stdin: attached.stream,
      stdout: attached.stdout,
      exited: attached.exited,
      kill: async () => {
        attached.stream.destroy();
      },
    };
  }

  async exec(command: string, options?: ExecOptions): Promise<ExecResult> {
    if (this.disposed) throw new Error('the sandbox has been disposed');
    if (this.stopped) throw new Error(`the sandbox cannot run commands any more: ${this.stopped}`);
    let result: ExecResult;
    try {
      result = await this.shell.exec(command, options);
    } catch (err) {
      // A shell that cannot be started again: the container or the engine is the likely cause.
      const gone = this.disposed ? undefined : await this.containerGone();
      if (gone) throw new Error(`the sandbox cannot run commands any more: ${gone}`, { cause: err });
      throw err;
    }
    // An ordinary failure (grep finding nothing) costs no engine call; a signal, a timeout, a closed shell or lost output is looked into.
    if (!killedBySignal(result) && !result.timedOut && result.truncatedBytes === 0 && !result.shellClosed && !result.shellRestarted) return result;
    const fault = await this.faultOf(result, options);
    return fault ? { ...result, fault } : result;
  }

  /** Set once the container has stopped or its engine has gone: the reason, given to every later command. */
  private stopped: string | undefined;
  private oomKillsSeen = 0;

  /** Why the container can no longer run commands, or undefined while it runs. */
  private async containerGone(): Promise<string | undefined> {
    let state: Docker.ContainerInspectInfo['State'];
    try {
      state = (await this.container.inspect()).State;
    } catch (err) {
      this.stopped = statusCode(err) === 404 ? 'the container was removed from outside' : `the Docker engine stopped answering (${engineMessage(err)})`;
      return this.stopped;
    }
    if (state.Running) return undefined;
    this.stopped = state.OOMKilled
      ? `the container was killed for memory (limit ${formatMiB(this.limits.memoryBytes)})`
      : `the container stopped (exit code ${state.ExitCode}${state.Error ? `, ${state.Error}` : ''}): killed from outside, or its engine restarted`;
    return this.stopped;
  }

  /** The kernel's count of OOM kills in the container's memory cgroup (v2, then v1). */
  private async oomKills(): Promise<number> {
    const r = await execOnce(this.container, [
      '/bin/sh',
      '-c',
      'cat /sys/fs/cgroup/memory.events 2>/dev/null || cat /sys/fs/cgroup/memory/memory.oom_control',
    ]).catch(() => undefined);
    const m = r && /^oom_kill (\d+)$/m.exec(r.output);
    return m ? Number(m[1]) : 0;
  }

  /** The reasons a command that did not end cleanly gives: the container's state first, then the limits it ran into. */
  private async faultOf(result: ExecResult, options: ExecOptions | undefined): Promise<string | undefined> {
    const suspect = killedBySignal(result) || result.timedOut || result.shellClosed || result.shellRestarted;
    let gone = suspect ? await this.containerGone() : undefined;
    // A shell that closed mid-command usually means its container is going away: the engine may take a moment to say so.
    for (let i = 0; !gone && result.shellClosed && killedBySignal(result) && i < 10; i++) {
      await new Promise((wake) => setTimeout(wake, 200));
      gone = await this.containerGone();
    }
    if (gone) return `${gone} during the command`;
    const reasons: string[] = [];
    const ooms = suspect ? await this.oomKills() : this.oomKillsSeen;
    if (ooms > this.oomKillsSeen) {
      reasons.push(
        `out of memory: the kernel killed ${ooms - this.oomKillsSeen === 1 ? 'a process' : `${ooms - this.oomKillsSeen} processes`} at the ${formatMiB(this.limits.memoryBytes)} memory limit`,
      );
      this.oomKillsSeen = ooms;
    }
    if (/fork: (retry: )?Resource temporarily unavailable/.test(result.output)) reasons.push(`the process limit (${this.limits.pids}) was reached`);
    if (result.timedOut) reasons.push(`timed out after ${((options?.timeoutMs ?? this.limits.commandTimeoutMs) / 1000).toFixed(1)} s`);
    if (result.truncatedBytes > 0)
      reasons.push(`output over the ${formatMiB(options?.maxOutputBytes ?? this.limits.maxOutputBytes)} cap: ${result.truncatedBytes} bytes dropped`);
    if (result.shellRestarted) reasons.push('the shell could not be stopped and was replaced');
    if (result.shellClosed) reasons.push(`the shell ended during the command (exit code ${result.exitCode})`);
    return reasons.length > 0 ? reasons.join('; ') : undefined;
  }

  async spawn(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<SandboxProcess> {
    if (argv.length === 0) throw new Error('spawn needs a program to run');
    const pidFile = `${PROCESS_DIR}/${++this.spawned}.pid`;
    // The pid file lets kill() find the process: exec ids do not reveal in-container pids. Its
    // folder is made only when missing (the first spawn, or after /tmp was emptied): a `mkdir`
    // every time was one process more per call than the work itself.
    const attached = await attach(this.container, {
      Cmd: ['/bin/sh', '-c', '{ echo $$ > "$0"; } 2>/dev/null || { mkdir -p "${0%/*}" && echo $$ > "$0"; } && exec "$@"', pidFile, ...argv],
      Tty: false,
      WorkingDir: this.resolve(options.cwd ?? '.'),
      Env: [...this.env, ...Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`)],
    });
    const process: SandboxProcess = {
      stdin: attached.stream,
      stdout: attached.stdout,
      stderr: attached.stderr,
      exited: attached.exited,
      kill: async () => {
        const pid = await this.spawnedPid(pidFile, attached.exited);
        if (pid) await execOnce(this.container, signalTreeArgv(pid, 'kill-all'));
        attached.stream.destroy();
        await attached.exited;
      },
    };
    return process;
  }

  /** The in-container pid of a spawned process, once its wrapper has written it (undefined if it ended first). */
  private async spawnedPid(pidFile: string, exited: Promise<number>): Promise<number | undefined> {
    let ended = false;
    void exited.then(() => (ended = true));
    while (!ended && !this.disposed) {
      const pid = Number((await execOnce(this.container, ['cat', pidFile])).output.trim());
      if (Number.isInteger(pid) && pid > 0) return pid;
      await new Promise((done) => setTimeout(done, 20));
    }
    return undefined;
  }

  async readFile(path: string): Promise<string> {
    return (await this.readFileBytes(path)).toString('utf8');
  }

  // Files go through the shell as base64: much faster than the archive API for a source file
  // (bench/aci/sandbox.ts prints the ratio), and a rewrite keeps the file's mode and owner.
  async readFileBytes(path: string): Promise<Buffer> {
    const target = this.resolve(path);
    const r = await this.fileCommand(`base64 -w0 < ${bashQuote(target)}`);
    if (r.exitCode !== 0) throw new Error(`cannot read ${target} in the sandbox: ${r.output.trim()}`);
    return Buffer.from(r.output, 'base64');
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const target = this.resolve(path);
    const encoded = Buffer.from(content).toString('base64');
    const r = await this.fileCommand(`mkdir -p -- ${bashQuote(posix.dirname(target))} && printf %s '${encoded}' | base64 -d > ${bashQuote(target)}`);
    if (r.exitCode !== 0) throw new Error(`cannot write ${target} in the sandbox: ${r.output.trim()}`);
  }

  private fileCommand(command: string): Promise<ExecResult> {
    return this.exec(command, { timeoutMs: FILE_TIMEOUT_MS, maxOutputBytes: Number.MAX_SAFE_INTEGER });
  }

  async copyIn(hostPath: string, sandboxPath: string): Promise<void> {
    const target = this.resolve(sandboxPath);
    await this.container.putArchive(packHostPath(hostPath, target.slice(1)), { path: '/' });
  }

  async copyOut(sandboxPath: string, hostPath: string): Promise<void> {
    await extractTo(await this.getArchive(this.resolve(sandboxPath)), hostPath);
  }

  async copyTo(sandboxPath: string, target: Sandbox, targetDir: string): Promise<void> {
    const source = this.resolve(sandboxPath);
    if (target instanceof DockerSandbox) {
      // The engine's archive of one file, put as it comes: a single entry, which the engine unpacks far faster than a tree.
      await target.container.putArchive(await this.getArchive(source), { path: target.resolve(targetDir) });
      return;
    }
    const local = await mkdtemp(join(tmpdir(), 'swe-workbench-copy-'));
    try {
      await this.copyOut(source, join(local, posix.basename(source)));
      await target.copyIn(join(local, posix.basename(source)), posix.join(targetDir, posix.basename(source)));
    } finally {
      await rm(local, { recursive: true, force: true });
    }
  }

  /**
   * A sandbox of its own in a new container of this one's image and engine, with the image's repository folder and no
   * scaffold (or of `image`): room to prepare an image (`commit`) while this sandbox runs on. Its dispose removes it.
   */
  sibling(role: string, image = this.options.image): Promise<DockerSandbox> {
    return DockerSandbox.create({ image, repoPath: this.repoPath, labels: { 'swe-workbench.role': role } }, this.docker);
  }

  /**
   * This container's file system as an image (without pausing it: commit an idle container), labelled with this process
   * as its owner; a sandbox created from the image id starts with it. Returns the image id; `removeImage` removes it.
   */
  async commit(): Promise<string> {
    const made = (await this.container.commit({ pause: false, changes: `LABEL ${OWNER_LABEL}=${ownerId()}` })) as { Id: string };
    return made.Id;
  }

  /** Removes an image `commit` made (a container still running from it keeps its layers until it goes). */
  async removeImage(id: string): Promise<void> {
    try {
      await this.docker.getImage(id).remove({ force: true });
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
  }

  snapshot(): Promise<string> {
    return this.snapshots.snapshot();
  }

  reset(snapshotId: string): Promise<void> {
    return this.snapshots.reset(snapshotId);
  }

  /** Removes the container; a command still running fails with `reason`. */
  dispose(reason?: Error): Promise<void> {
    this.disposing ??= this.tearDown(reason);
    return this.disposing;
  }

  private async tearDown(reason: Error | undefined): Promise<void> {
    this.disposed = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    await this.shell.dispose(reason);
    await removeContainer(this.docker, this.container.id);
  }

  private resolve(path: string): string {
    return posix.resolve(this.repoPath, path);
  }

  private async getArchive(target: string): Promise<NodeJS.ReadableStream> {
    try {
      return await this.container.getArchive({ path: target });
    } catch (err) {
      if (statusCode(err) === 404) throw new Error(`no such file or directory in the sandbox: ${target}`);
      throw err;
    }
  }
}

export interface LeftoverOptions {
  docker?: Docker;
  /** Remove every labelled sandbox, including those of processes still running. */
  all?: boolean;
}

/**
 * Removes sandbox containers left behind by processes that are gone (same host, dead pid), or
 * all of them with `all`, and the images such sandboxes committed. Returns the removed container ids.
 */
export async function cleanupLeftovers(options: LeftoverOptions = {}): Promise<string[]> {
  const docker = options.docker ?? dockerFromEnv();
  const containers = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } });
  const me = hostname();
  const stale = containers.filter((c) => {
    if (options.all) return true;
    const [host, pid] = (c.Labels[OWNER_LABEL] ?? '').split(':');
    return host === me && !processAlive(Number(pid));
  });
  await Promise.all(stale.map((c) => removeContainer(docker, c.Id)));
  // Images `commit` made (they carry the committed container's labels), by the same rule; one still in use stays.
  const images = await docker.listImages({ filters: { label: [`${SANDBOX_LABEL}=1`] } });
  const staleImages = images.filter((i) => {
    if (options.all) return true;
    const [host, pid] = (i.Labels?.[OWNER_LABEL] ?? '').split(':');
    return host === me && !processAlive(Number(pid));
  });
  await Promise.all(
    staleImages.map((i) =>
      docker
        .getImage(i.Id)
        .remove({ force: false })
        .catch(() => undefined),
    ),
  );
  return stale.map((c) => c.Id);
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
