/**
 * The Docker paths under faults: each command ends with a reason (`ExecResult.fault`), keeps
 * the output recorded until then, and no container is left behind. The engine restart and the
 * remote engine over tcp:// with TLS use a second dockerd of this test's own (the shared engine
 * is never restarted).
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import type Docker from 'dockerode';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import { SESSION_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { PersonSource } from '../../../extension/core/session/actionSources';
import { startContainerSession } from '../../../extension/core/session/containerSession';
import { DebugSession } from '../../../extension/core/session/debugSession';
import { writeTrajectoryFile } from '../../../extension/core/session/trajectoryRecorder';
import { TEST_IMAGE, containersOfSession, testDocker } from '../../helpers/docker';
import { sampleRepoCopy } from '../../helpers/ledgerAgentScript';
import { startPrivateEngine, type PrivateEngine } from '../../helpers/privateDockerd';

const repoRoot = path.resolve(__dirname, '../../..');
const MIB = 1024 ** 2;
let count = 0;
const session = () => `docker-faults-${process.pid}-${++count}`;

/** Runs `work` with a sandbox on `docker` and checks no container of its session is left, whatever happened. */
async function withSandbox(
  docker: Docker,
  limits: Parameters<typeof DockerSandbox.create>[0]['limits'],
  work: (sb: DockerSandbox, docker: Docker) => Promise<void>,
): Promise<void> {
  const id = session();
  const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/repo', labels: { [SESSION_LABEL]: id }, limits }, docker);
  try {
    await work(sb, docker);
  } finally {
    await sb.dispose().catch(() => undefined);
    assert.deepEqual(await containersOfSession(docker, id), [], 'no container is left behind');
  }
}

/** Waits until a process named `name` runs in the container (the command has really started). */
async function untilRunning(docker: Docker, containerId: string, name: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const exec = await docker.getContainer(containerId).exec({ Cmd: ['pgrep', '-x', name], AttachStdout: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.resume();
    });
    if ((await exec.inspect()).ExitCode === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} never started in the container`);
}

describe('docker faults on the shared engine', () => {
  const docker = testDocker();

  test('the container killed mid-step: the step ends with the reason, its output so far kept; later commands are refused with it', async () => {
    await withSandbox(docker, {}, async (sb) => {
      const running = sb.exec('echo before; sleep 60; echo never');
      await untilRunning(docker, sb.id, 'sleep');
      await docker.getContainer(sb.id).kill();
      const r = await running;
      assert.equal(r.output, 'before\n');
      assert.match(r.fault ?? '', /the container stopped \(exit code 137\): killed from outside, or its engine restarted during the command/);
      await assert.rejects(sb.exec('echo again'), /the sandbox cannot run commands any more: the container stopped/);
    });
  });

  test('an OOM kill is named, and the session goes on', async () => {
    await withSandbox(docker, { memoryBytes: 96 * MIB }, async (sb) => {
      const r = await sb.exec('echo start; python3 -c "a = bytearray(600 * 1024 * 1024)"');
      assert.equal(r.exitCode, 137);
      assert.match(r.output, /^start\n/);
      assert.match(r.fault ?? '', /out of memory: the kernel killed a process at the 96 MiB memory limit/);
      assert.equal((await sb.exec('echo alive')).output, 'alive\n');
    });
  });

  test('1 GB of output is cut at the cap and counted, without the memory to hold it', async () => {
    await withSandbox(docker, { commandTimeoutMs: 300_000 }, async (sb) => {
      const before = process.memoryUsage().rss;
      const r = await sb.exec('head -c 1G /dev/zero');
      assert.equal(r.exitCode, 0);
      assert.equal(r.output.length, MIB);
      assert.equal(r.truncatedBytes, 1024 * MIB - MIB);
      assert.match(r.fault ?? '', /output over the 1 MiB cap: 1072693248 bytes dropped/);
      assert.ok(process.memoryUsage().rss - before < 512 * MIB, 'the output was not held');
    });
  });

  test('a fork bomb stops at the pid limit and the timeout, and the session goes on', async () => {
    await withSandbox(docker, { pids: 64, commandTimeoutMs: 5_000 }, async (sb) => {
      const r = await sb.exec('bomb() { bomb | bomb & }; bomb; sleep 60');
      assert.equal(r.timedOut, true);
      assert.match(r.fault ?? '', /the process limit \(64\) was reached; timed out after 5\.0 s/);
      const after = await sb.exec('echo alive', { timeoutMs: 60_000 });
      assert.match(after.output, /alive\n$/);
    });
  });

  test('a command waiting on stdin gets end-of-file and ends by itself', async () => {
    await withSandbox(docker, { commandTimeoutMs: 60_000 }, async (sb) => {
      const r = await sb.exec('read -r line; echo "status $? line [$line]"; cat; echo done');
      assert.equal(r.timedOut, false);
      assert.equal(r.output, 'status 1 line []\ndone\n');
      assert.equal(r.fault, undefined);
    });
  });
});

describe('docker faults on an engine of our own', { timeout: 600_000 }, () => {
  let engine: PrivateEngine;
  before(async () => {
    engine = await startPrivateEngine({ tls: true, image: TEST_IMAGE });
  });
  after(async () => {
    await engine?.stop();
  });

  test('the engine restarted mid-step: the step ends with the reason, its output kept; dispose after the restart leaves 0 containers', async () => {
    const docker = engine.docker();
    const id = session();
    const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/repo', labels: { [SESSION_LABEL]: id } }, docker);
    try {
      const running = sb.exec('echo before; sleep 120; echo never');
      await untilRunning(docker, sb.id, 'sleep');
      const restarted = engine.restart();
      const r = await running;
      await restarted;
      assert.match(r.output, /^before\n/);
      assert.doesNotMatch(r.output, /never/);
      assert.match(r.fault ?? '', /(the Docker engine stopped answering|the container stopped \(exit code \d+\)).* during the command/);
      await assert.rejects(sb.exec('echo again'), /the sandbox cannot run commands any more/);
    } finally {
      // Disposed once the engine is back: the stopped container is removed.
      await sb.dispose();
    }
    assert.deepEqual(await containersOfSession(docker, id), []);
  });

  test('a remote engine over tcp:// with TLS runs a real replay; a client without the certificates is refused', async () => {
    const repo = await sampleRepoCopy();
    const work = await mkdtemp(path.join(tmpdir(), 'swb-tls-replay-'));
    try {
      // Record on the shared engine...
      const tools = toolSetFor(['windowed', 'submit']);
      const aci = await startContainerSession({ image: TEST_IMAGE, repoDir: repo.dir, repoPath: '/repo', tools, role: 'tls-replay-record' });
      const person = new PersonSource(tools);
      person.type('open "ledger/money.py" 20');
      person.type('ls ledger');
      person.end();
      const live = new DebugSession({
        aci,
        sources: [person],
        task: { image: TEST_IMAGE, repoPath: '/repo', baseCommit: repo.commits.at(-1)!.sha },
        meta: { toolBundles: [...tools.bundles] },
      });
      await live.continue();
      const recording = path.join(work, 'recorded.traj');
      await writeTrajectoryFile(recording, await live.finish());
      // ...and replay on the remote engine, reached only through DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH.
      const since = Math.floor(Date.now() / 1000) - 1;
      const env = { ...process.env, ...engine.tlsEnv() };
      const replay = spawnSync(
        process.execPath,
        ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), 'replay', recording, '--image', TEST_IMAGE, '--repo', repo.dir, '--json'],
        { cwd: repoRoot, env, encoding: 'utf8', timeout: 300_000 },
      );
      assert.equal(replay.status, 0, replay.stderr + replay.stdout);
      assert.doesNotMatch(replay.stderr, /local sandbox|falling back/i);
      const summary = JSON.parse(replay.stdout.trim().split('\n').at(-1)!) as { summary: { matched: number; recorded: number } };
      assert.equal(summary.summary.recorded, 2);
      assert.equal(summary.summary.matched, 2);
      // The replay's container was created on the TLS engine, and is gone.
      const events = await engine
        .docker()
        .getEvents({ since, until: Math.floor(Date.now() / 1000) + 1, filters: { type: ['container'], event: ['create', 'destroy'] } });
      const text = await new Promise<string>((resolve) => {
        let all = '';
        events.on('data', (b: Buffer) => (all += b.toString()));
        events.on('end', () => resolve(all));
      });
      assert.match(text, /"Action":"create"/);
      assert.match(text, /"Action":"destroy"/);
      assert.deepEqual(await engine.docker().listContainers({ all: true }), []);
      // Without the client certificate the engine refuses the connection.
      const bare = spawnSync('docker', ['-H', engine.tlsHost!, 'version', '--format', '{{.Server.Version}}'], {
        encoding: 'utf8',
        env: { ...process.env, DOCKER_TLS_VERIFY: '', DOCKER_CERT_PATH: '' },
      });
      assert.notEqual(bare.status, 0);
    } finally {
      await repo.cleanup();
      await rm(work, { recursive: true, force: true });
    }
  });
});
