/**
 * The Sandbox on the host: a temporary copy of a repository and a persistent bash. It has no
 * isolation: no network cut, no memory, CPU or pid limit (only the per-command timeout and
 * output cap apply), and absolute paths reach the whole host. Meant for machines without a
 * Docker engine and for fast tool tests.
 */
import { execFile, spawn as spawnChild } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CancelledError, throwIfAborted } from '../errors';
import { signalTreeArgv } from './processTree';
import { RepoSnapshots } from './repoSnapshot';
import { DEFAULT_LIMITS, type ExecOptions, type ExecResult, type Sandbox, type SandboxOptions, type SandboxProcess } from './sandbox';
import { ShellSession, type ShellHost, type ShellProcess, type TreeSignal } from './shellSession';

const LOCAL_SANDBOX_PREFIX = 'swe-workbench-local-';

/** Unpacks a tar of a repository's contents into `dir` with the host's tar, as the container's engine would. */
async function unpackTar(file: string, dir: string): Promise<void> {
  await promisify(execFile)('tar', ['-C', dir, '-xpf', file]);
}

function runToEnd(argv: string[]): Promise<number> {
  return new Promise((done) => {
    const [cmd, ...args] = argv;
    const child = spawnChild(cmd!, args, { stdio: 'ignore' });
    child.on('error', () => done(-1));
    child.on('exit', (code) => done(code ?? -1));
  });
}

function startProcess(argv: string[], cwd: string, env: NodeJS.ProcessEnv): SandboxProcess & { pid: number } {
  const [cmd, ...args] = argv;
  const child = spawnChild(cmd!, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number>((done) => {
    child.on('error', () => done(-1));
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 + constants.signals[signal] : -1)));
  });
  return {
    pid: child.pid ?? 0,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      }
      await exited;
    },
  };
}

// Temporary copies of this process, deleted at exit if dispose() never ran.
const live = new Set<string>();
let exitHookInstalled = false;

function track(dir: string): void {
  live.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const left of live) rmSync(left, { recursive: true, force: true });
  });
}

export class LocalSandbox implements Sandbox {
  readonly kind = 'local' as const;
  readonly tty: boolean;
  private readonly shell: ShellSession;
  private readonly snapshots: RepoSnapshots;
  private readonly processes = new Set<SandboxProcess>();
  private disposing: Promise<void> | undefined;
  private readonly signal: AbortSignal | undefined;
  private readonly onAbort = () => void this.dispose(new CancelledError(typeof this.signal?.reason === 'string' ? this.signal.reason : 'cancelled'));

  private constructor(
    readonly id: string,
    readonly repoPath: string,
    private readonly env: NodeJS.ProcessEnv,
    options: SandboxOptions,
  ) {
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    const tty = options.tty ?? false;
    this.tty = tty;
    const host: ShellHost = {
      tty,
      startShell: async (): Promise<ShellProcess> => {
        // util-linux `script` gives the shell a pseudo-terminal without a native module. No readline
        // either way: it echoes each byte of a command line (see DockerSandbox.startShell).
        const argv = tty ? ['script', '-qfec', 'bash --norc --noprofile --noediting -i', '/dev/null'] : ['bash', '--norc', '--noprofile', '--noediting', '-i'];
        const p = startProcess(argv, repoPath, env);
        p.stderr.resume();
        return p;
      },
      signalTree: async (pid: number, how: TreeSignal) => {
        await runToEnd(signalTreeArgv(pid, how));
      },
    };
    this.shell = new ShellSession(host, { cwd: repoPath, commandTimeoutMs: limits.commandTimeoutMs, maxOutputBytes: limits.maxOutputBytes });
    this.snapshots = new RepoSnapshots((c, o) => this.exec(c, o), repoPath, join(id, 'snapshots'));
    this.signal = options.signal;
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    track(id);
  }

  /** Copies `options.repoDir` (with its .git) or unpacks `options.repoTar` into a fresh temporary directory and starts the shell. */
  static async create(options: SandboxOptions): Promise<LocalSandbox> {
    throwIfAborted(options.signal);
    if (options.repoTar instanceof Promise) options.repoTar.catch(() => undefined);
    const root = await mkdtemp(join(tmpdir(), LOCAL_SANDBOX_PREFIX));
    const repoPath = join(root, 'repo');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: root,
      LANG: 'C.UTF-8',
      TERM: options.tty ? 'xterm' : 'dumb',
      ...options.env,
    };
    const sandbox = new LocalSandbox(root, repoPath, env, options);
    try {
      if (options.repoTar !== undefined) {
        await mkdir(repoPath);
        await unpackTar(await options.repoTar, repoPath);
      } else if (options.repoDir) await cp(options.repoDir, repoPath, { recursive: true, verbatimSymlinks: true });
      else await mkdir(repoPath);
      throwIfAborted(options.signal);
      await sandbox.shell.start(options.signal);
      return sandbox;
    } catch (err) {
      await sandbox.dispose();
      throw err;
    }
  }

  exec(command: string, options?: ExecOptions): Promise<ExecResult> {
    return this.shell.exec(command, options);
  }

  async spawn(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<SandboxProcess> {
    if (argv.length === 0) throw new Error('spawn needs a program to run');
    const p = startProcess(argv, this.resolve(options.cwd ?? '.'), { ...this.env, ...options.env });
    this.processes.add(p);
    void p.exited.then(() => this.processes.delete(p));
    return p;
  }

  readFile(path: string): Promise<string> {
    return readFile(this.resolve(path), 'utf8');
  }

  readFileBytes(path: string): Promise<Buffer> {
    return readFile(this.resolve(path));
  }

  async writeFile(path: string, content: string | Uint8Array): Promise<void> {
    const target = this.resolve(path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }

  async copyIn(hostPath: string, sandboxPath: string): Promise<void> {
    await cp(hostPath, this.resolve(sandboxPath), { recursive: true, verbatimSymlinks: true });
  }

  async copyOut(sandboxPath: string, hostPath: string): Promise<void> {
    await cp(this.resolve(sandboxPath), hostPath, { recursive: true, verbatimSymlinks: true });
  }

  async copyTo(sandboxPath: string, target: Sandbox, targetDir: string): Promise<void> {
    const source = this.resolve(sandboxPath);
    await target.copyIn(source, posix.join(targetDir, basename(source)));
  }

  snapshot(): Promise<string> {
    return this.snapshots.snapshot();
  }

  reset(snapshotId: string): Promise<void> {
    return this.snapshots.reset(snapshotId);
  }

  /** Ends the shell and spawned processes and deletes the copy; a command still running fails with `reason`. */
  dispose(reason?: Error): Promise<void> {
    this.disposing ??= this.tearDown(reason);
    return this.disposing;
  }

  private async tearDown(reason: Error | undefined): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    await this.shell.dispose(reason);
    await Promise.all([...this.processes].map((p) => p.kill()));
    await rm(this.id, { recursive: true, force: true });
    live.delete(this.id);
  }

  private resolve(path: string): string {
    return isAbsolute(path) ? path : resolve(this.repoPath, path);
  }
}
