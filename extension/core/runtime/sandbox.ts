/**
 * A place where an agent's actions run: a Docker container (DockerSandbox) or a temporary
 * copy of the repository on the host (LocalSandbox). Everything above the runtime (the ACI
 * tools, sessions, bug checks, grading) talks to this interface only.
 */

export interface ExecOptions {
  /** Kill the command's process group after this many ms (default: the sandbox's limit). */
  timeoutMs?: number;
  /** Keep at most this many bytes of output; the rest is dropped and counted. */
  maxOutputBytes?: number;
  /** Working directory for this command only (the session's cwd is left unchanged). */
  cwd?: string;
  signal?: AbortSignal;
}

export interface ExecResult {
  /** stdout and stderr interleaved as the command wrote them (a terminal would show both). */
  output: string;
  exitCode: number;
  timedOut: boolean;
  /**
   * The command could not be stopped (it ignored SIGINT and outlived SIGKILL of its children,
   * or the shell itself hung) and a fresh shell replaced the session's: cwd, variables and
   * functions are back to their start.
   */
  shellRestarted?: boolean;
  /** The shell ended during the command (it ran `exit`, or its container or engine went away); the next command starts a fresh one. */
  shellClosed?: boolean;
  /** Bytes of output dropped because of `maxOutputBytes`. */
  truncatedBytes: number;
  /**
   * Why the command did not simply run to its end, in words: out of memory, the pid limit, a
   * timeout, output over the cap, or the container or its engine gone (DockerSandbox). The
   * output recorded until then is kept in `output`.
   */
  fault?: string;
  durationMs: number;
}

/** A process started beside the shell with its own stdio (e.g. a language server). */
export interface SandboxProcess {
  readonly stdin: NodeJS.WritableStream;
  readonly stdout: NodeJS.ReadableStream;
  readonly stderr: NodeJS.ReadableStream;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number>;
  kill(): Promise<void>;
}

export interface Mount {
  hostPath: string;
  containerPath: string;
  readOnly: boolean;
}

export interface SandboxLimits {
  /** Bytes of memory (Docker: HostConfig.Memory). */
  memoryBytes: number;
  /** CPUs, may be fractional (Docker: NanoCpus). */
  cpus: number;
  pids: number;
  /** Default per-command timeout. */
  commandTimeoutMs: number;
  /** Default per-command output cap. */
  maxOutputBytes: number;
}

export interface SandboxOptions {
  /** Any image name: SWE-bench `sweb.eval.*`, SWE-smith, R2E-Gym or the local base image. */
  image: string;
  /** A host directory to copy into the sandbox at `repoPath` (omit when the image has it). */
  repoDir?: string;
  /**
   * Instead of `repoDir`: a host tar of the repository's contents (entries relative to it, as
   * `tar -C <repo> -cf - .` writes them), unpacked at `repoPath`. A promise is awaited once the
   * container has started, so making the tar overlaps the start; if it rejects, so does `create`.
   */
  repoTar?: string | Promise<string>;
  /** Where the repository lives inside the sandbox, e.g. /testbed or /repo. */
  repoPath: string;
  /** Network off unless asked. */
  network?: boolean;
  limits?: Partial<SandboxLimits>;
  mounts?: Mount[];
  env?: Record<string, string>;
  /**
   * Run the shell under a pseudo-terminal of 80x24 (SWE-agent 1.x recordings were made that
   * way): output lines end with \r\n and programs format for a terminal (`ls` in columns).
   * Commands still read /dev/null.
   */
  tty?: boolean;
  /**
   * Bash the persistent shell runs before any command (`startupScript` of the scaffold's
   * `ShellStartup`): the image's profile as the scaffold's own shell reads it. Docker only: a
   * LocalSandbox runs on the host, whose profile is the person's own.
   */
  shellStartup?: string;
  labels?: Record<string, string>;
  /** Cancels the start; aborted later, it disposes the sandbox and fails a running command. */
  signal?: AbortSignal;
}

export interface Sandbox {
  readonly kind: 'docker' | 'local';
  /** Container id, or the temporary directory of a LocalSandbox. */
  readonly id: string;
  readonly repoPath: string;
  /** The shell runs under a pseudo-terminal (`SandboxOptions.tty`): its output's every `\n` arrives as `\r\n`. */
  readonly tty: boolean;
  /** Runs a command in the session's one persistent shell (cwd and env persist). */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Starts a separate process with its own stdio, outside the persistent shell. */
  spawn(argv: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<SandboxProcess>;
  /** Paths are absolute, or relative to `repoPath`. Text is decoded as UTF-8. */
  readFile(path: string): Promise<string>;
  /** The file's exact bytes. */
  readFileBytes(path: string): Promise<Buffer>;
  /** Creates missing parent directories; a string is written as UTF-8. */
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  /** Copies a host file or directory into the sandbox. */
  copyIn(hostPath: string, sandboxPath: string): Promise<void>;
  /** Copies a sandbox file or directory out to the host. */
  copyOut(sandboxPath: string, hostPath: string): Promise<void>;
  /**
   * Copies a file of this sandbox into the existing folder `targetDir` of `target`, under its own
   * name; between two Docker sandboxes straight from one container to the other, never through a host file.
   */
  copyTo(sandboxPath: string, target: Sandbox, targetDir: string): Promise<void>;
  /** Records the repository's state (working tree and index); returns an id for reset(). */
  snapshot(): Promise<string>;
  reset(snapshotId: string): Promise<void>;
  /** Stops and removes everything the sandbox created. Safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * What the shell's commands printed, from what `exec` returned: under a pseudo-terminal every
 * `\n` became `\r\n` (a file's own `\r\n` arrives as `\r\r\n`), which this undoes exactly;
 * without one the output is already as printed, a `\r\n` in it the commands' own.
 */
export function printedOutput(sandbox: Pick<Sandbox, 'tty'>, output: string): string {
  return sandbox.tty ? output.replace(/\r\n/g, '\n') : output;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 4 * 1024 ** 3,
  cpus: 2,
  pids: 1024,
  commandTimeoutMs: 120_000,
  maxOutputBytes: 1024 * 1024,
};
