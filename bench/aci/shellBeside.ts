/**
 * Another persistent shell in a Docker sandbox's container, as a Sandbox of its own: the same
 * files, its own cwd, variables and functions, with or without a terminal. bench/aci/peers.ts
 * runs several scaffolds' shells side by side on one container so that their tools see the same
 * files. Everything but the shell is the owner's (files, processes, snapshots); disposing it
 * ends the shell alone, and the container goes with its owner.
 */
import { PassThrough, type Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { signalTreeArgv } from '../../extension/core/runtime/processTree';
import { DEFAULT_LIMITS, type Sandbox } from '../../extension/core/runtime/sandbox';
import { ShellSession, type ShellProcess } from '../../extension/core/runtime/shellSession';

/** The terminal size SWE-agent 1.x recorded under, as the product's own pty shell uses. */
const TTY_SIZE = { w: 80, h: 24 };

export async function shellBeside(owner: Sandbox, options: { tty: boolean; commandTimeoutMs?: number }, docker: Docker = dockerFromEnv()): Promise<Sandbox> {
  if (owner.kind !== 'docker') throw new Error('a shell beside needs a Docker sandbox');
  const container = docker.getContainer(owner.id);
  const { tty } = options;
  const shell = new ShellSession(
    {
      tty,
      startShell: () => startShell(container, owner.repoPath, tty),
      signalTree: (pid, how) => runToEnd(container, signalTreeArgv(pid, how)),
    },
    { cwd: owner.repoPath, commandTimeoutMs: options.commandTimeoutMs ?? DEFAULT_LIMITS.commandTimeoutMs, maxOutputBytes: DEFAULT_LIMITS.maxOutputBytes },
  );
  await shell.start();
  return {
    kind: owner.kind,
    id: owner.id,
    repoPath: owner.repoPath,
    tty,
    exec: (command, execOptions) => shell.exec(command, execOptions),
    spawn: (argv, spawnOptions) => owner.spawn(argv, spawnOptions),
    readFile: (path) => owner.readFile(path),
    readFileBytes: (path) => owner.readFileBytes(path),
    writeFile: (path, content) => owner.writeFile(path, content),
    copyIn: (hostPath, sandboxPath) => owner.copyIn(hostPath, sandboxPath),
    copyOut: (sandboxPath, hostPath) => owner.copyOut(sandboxPath, hostPath),
    copyTo: (sandboxPath, target, targetDir) => owner.copyTo(sandboxPath, target, targetDir),
    snapshot: () => owner.snapshot(),
    reset: (id) => owner.reset(id),
    dispose: () => shell.dispose(),
  };
}

/** The same bash as the product's shell (no rc files, no readline), attached through the engine with stdin open. */
async function startShell(container: Docker.Container, cwd: string, tty: boolean): Promise<ShellProcess> {
  const exec = await container.exec({
    Cmd: ['bash', '--norc', '--noprofile', '--noediting', '-i'],
    Tty: tty,
    WorkingDir: cwd,
    Env: tty ? ['TERM=xterm'] : [],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: tty })) as Duplex;
  const stdout = new PassThrough();
  if (tty) stream.pipe(stdout);
  else container.modem.demuxStream(stream, stdout, new PassThrough().resume());
  if (tty) await exec.resize(TTY_SIZE).catch(() => undefined);
  const exited = new Promise<number>((done) => {
    let ended = false;
    const onEnd = () => {
      if (ended) return;
      ended = true;
      stdout.end();
      exec.inspect().then(
        (info) => done(info.ExitCode ?? -1),
        () => done(-1),
      );
    };
    stream.once('end', onEnd);
    stream.once('close', onEnd);
  });
  return {
    stdin: stream,
    stdout,
    exited,
    kill: async () => {
      stream.destroy();
    },
  };
}

/** Runs a short command in the container and waits for it to end. */
async function runToEnd(container: Docker.Container, argv: string[]): Promise<void> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, Tty: false });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise<void>((done) => {
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', () => done());
  });
}
