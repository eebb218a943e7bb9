// What only a DockerSandbox promises: isolation, limits, labels, and nothing left behind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CancelledError } from '../../../extension/core/errors';
import Docker from 'dockerode';
import { createSandbox } from '../../../extension/core/runtime/createSandbox';
import { hasImage } from '../../../extension/core/runtime/images';
import { DockerSandbox, cleanupLeftovers } from '../../../extension/core/runtime/dockerSandbox';
import { OWNER_LABEL, SANDBOX_LABEL, SESSION_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { TEST_IMAGE, containersOfSession, testDocker } from '../../helpers/docker';
import { sampleGitRepo } from './fixtureRepo';

const docker = testDocker();
let sessionCount = 0;
const session = () => `runtime-test-${process.pid}-${++sessionCount}`;

describe('docker sandbox: isolation and limits', () => {
  let sb: DockerSandbox;
  const id = session();
  const mountDir = mkdtempSync(join(tmpdir(), 'swe-workbench-mount-'));
  writeFileSync(join(mountDir, 'tool.txt'), 'from the host\n');

  before(async () => {
    sb = await DockerSandbox.create(
      {
        image: TEST_IMAGE,
        repoPath: '/repo',
        labels: { [SESSION_LABEL]: id, 'example.owner': 'tests' },
        limits: { memoryBytes: 512 * 1024 ** 2, cpus: 1.5, pids: 256 },
        mounts: [{ hostPath: mountDir, containerPath: '/opt/tool', readOnly: true }],
        env: { TASK_NAME: 'ledger-1' },
      },
      docker,
    );
  });
  after(async () => {
    await sb?.dispose();
    rmSync(mountDir, { recursive: true, force: true });
  });

  test('has no network but loopback', async () => {
    assert.equal((await sb.exec('ls /sys/class/net')).output, 'lo\n');
    const info = await docker.getContainer(sb.id).inspect();
    assert.equal(info.HostConfig.NetworkMode, 'none');
  });

  test('runs with the memory, CPU and pid limits asked for', async () => {
    const { HostConfig } = await docker.getContainer(sb.id).inspect();
    assert.equal(HostConfig.Memory, 512 * 1024 ** 2);
    assert.equal(HostConfig.MemorySwap, 512 * 1024 ** 2);
    assert.equal(HostConfig.NanoCpus, 1.5e9);
    assert.equal(HostConfig.PidsLimit, 256);
    assert.equal((await sb.exec('cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max')).output, '256\n');
  });

  test('carries the sandbox, owner and caller labels', async () => {
    const { Config } = await docker.getContainer(sb.id).inspect();
    assert.equal(Config.Labels[SANDBOX_LABEL], '1');
    assert.equal(Config.Labels[OWNER_LABEL], `${hostname()}:${process.pid}`);
    assert.equal(Config.Labels[SESSION_LABEL], id);
    assert.equal(Config.Labels['example.owner'], 'tests');
  });

  test('passes the environment and a read-only mount', async () => {
    assert.equal((await sb.exec('echo $TASK_NAME; cat /opt/tool/tool.txt')).output, 'ledger-1\nfrom the host\n');
    const w = await sb.exec('touch /opt/tool/new');
    assert.notEqual(w.exitCode, 0);
    assert.match(w.output, /Read-only file system/);
  });

  test('writeFile keeps the mode of a file it replaces', async () => {
    await sb.exec('printf "#!/bin/sh\\necho old\\n" > run.sh && chmod 755 run.sh');
    await sb.writeFile('run.sh', '#!/bin/sh\necho new\n');
    assert.equal((await sb.exec('./run.sh; stat -c %a run.sh')).output, 'new\n755\n');
  });

  test('spawn gives a process that kill() ends', async () => {
    const p = await sb.spawn(['sleep', '1000']);
    await p.kill();
    assert.notEqual(await p.exited, 0);
    assert.equal((await sb.exec('ps -eo args= | grep -c "^sleep 1000" || true')).output, '0\n');
  });

  test('a process spawned after the agent emptied /tmp still runs and kill() still ends it', async () => {
    await sb.exec('rm -rf /tmp/.swe-workbench');
    const p = await sb.spawn(['sleep', '1001']);
    await p.kill();
    assert.notEqual(await p.exited, 0);
    assert.equal((await sb.exec('ps -eo args= | grep -c "^sleep 1001" || true')).output, '0\n');
    const again = await sb.spawn(['sh', '-c', 'echo ran']);
    const out: Buffer[] = [];
    again.stdout.on('data', (c: Buffer) => out.push(c));
    again.stdin.end();
    assert.equal(await again.exited, 0);
    assert.equal(Buffer.concat(out).toString(), 'ran\n');
  });

  test('an aborted command stops, and the session goes on', async () => {
    await sb.exec('export STAYS=1');
    const controller = new AbortController();
    const running = sb.exec('echo started; sleep 600', { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(running, CancelledError);
    assert.equal((await sb.exec('echo $STAYS; ps -eo args= | grep -c "^sleep 600" || true')).output, '1\n0\n');
  });
});

describe('docker sandbox: a pty', () => {
  test('programs see a terminal and lines end with \\r\\n', async () => {
    const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/repo', tty: true }, docker);
    try {
      assert.equal((await sb.exec('test -t 1 && echo terminal; stty size < /dev/tty')).output, 'terminal\r\n24 80\r\n');
    } finally {
      await sb.dispose();
    }
  });
});

describe('docker sandbox: network when asked', () => {
  test('has an interface besides loopback', async () => {
    const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/repo', network: true }, docker);
    try {
      assert.match((await sb.exec('ls /sys/class/net')).output, /eth0/);
      assert.equal((await docker.getContainer(sb.id).inspect()).HostConfig.NetworkMode, 'bridge');
    } finally {
      await sb.dispose();
    }
  });
});

describe('docker sandbox: nothing left behind', () => {
  let repo: ReturnType<typeof sampleGitRepo>;
  before(() => {
    repo = sampleGitRepo();
  });
  after(() => repo.remove());

  test('dispose removes the container and may be called twice', async () => {
    const id = session();
    const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/testbed', repoDir: repo.dir, labels: { [SESSION_LABEL]: id } }, docker);
    assert.deepEqual(await containersOfSession(docker, id), [sb.id]);
    await sb.dispose();
    await sb.dispose();
    assert.deepEqual(await containersOfSession(docker, id), []);
    await assert.rejects(sb.exec('true'), /disposed/);
  });

  test('an image that does not exist gives a clear error and no container', async () => {
    const id = session();
    await assert.rejects(
      DockerSandbox.create({ image: 'swe-workbench/no-such-image:0', repoPath: '/testbed', labels: { [SESSION_LABEL]: id } }, docker),
      /cannot start a sandbox from image 'swe-workbench\/no-such-image:0': .*no such image/i,
    );
    assert.deepEqual(await containersOfSession(docker, id), []);
    // What the VS Code glue asks before it shows "starting a container": the engine says no.
    assert.equal(await hasImage(docker, 'swe-workbench/no-such-image:0'), false);
    assert.equal(await hasImage(docker, TEST_IMAGE), true);
    assert.equal(
      await hasImage(new Docker({ socketPath: join(tmpdir(), 'no-engine-here.sock') }), TEST_IMAGE),
      undefined,
      'an engine it cannot reach says nothing',
    );
  });

  test('a repoPath that is not absolute is refused before anything starts', async () => {
    await assert.rejects(DockerSandbox.create({ image: TEST_IMAGE, repoPath: 'testbed' }, docker), /repoPath: expected an absolute directory/);
  });

  // The engine's own events say where the start is: the abort lands in each phase in turn
  // (creating, starting, copying the repository in, starting the shell), whatever the timing.
  for (const phase of ['create', 'start', 'extract-to-dir', 'exec_create', 'exec_start'] as const) {
    test(`aborting when the engine reports '${phase}' leaves no container and says cancelled`, async () => {
      const id = session();
      const controller = new AbortController();
      const events = (await docker.getEvents({ filters: { type: ['container'], label: [`${SESSION_LABEL}=${id}`] } })) as NodeJS.ReadableStream & {
        destroy(): void;
      };
      let seen = '';
      events.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          const action = String((JSON.parse(line) as { Action?: string }).Action ?? '');
          if (!seen && action.split(':')[0] === phase) {
            seen = action;
            controller.abort();
          }
        }
      });
      try {
        const outcome = await DockerSandbox.create(
          { image: TEST_IMAGE, repoPath: '/testbed', repoDir: repo.dir, labels: { [SESSION_LABEL]: id }, signal: controller.signal },
          docker,
        ).then(
          (sb) => sb,
          (err: unknown) => err,
        );
        if (outcome instanceof DockerSandbox) {
          // The shell answered before the event arrived: the abort tears the sandbox down itself.
          controller.abort();
          await assert.rejects(outcome.exec('true'), /disposed/);
          await outcome.dispose();
        } else {
          assert.ok(outcome instanceof CancelledError, `aborted at '${seen}': ${String(outcome)}`);
        }
        assert.deepEqual(await containersOfSession(docker, id), []);
      } finally {
        events.destroy();
      }
    });
  }

  test('aborting before the start begins is cancelled at once, with nothing created', async () => {
    const id = session();
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(
      DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/testbed', labels: { [SESSION_LABEL]: id }, signal: controller.signal }, docker),
      CancelledError,
    );
    assert.deepEqual(await containersOfSession(docker, id), []);
  });

  test('aborting the sandbox signal during a command removes the container', async () => {
    const id = session();
    const controller = new AbortController();
    const sb = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/testbed', labels: { [SESSION_LABEL]: id }, signal: controller.signal }, docker);
    const running = sb.exec('sleep 600');
    setTimeout(() => controller.abort(), 200);
    await assert.rejects(running, CancelledError);
    await sb.dispose();
    assert.deepEqual(await containersOfSession(docker, id), []);
  });

  test('a process that exits without disposing takes its containers with it', async () => {
    const id = session();
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'exitWithoutDispose.ts'), id], { encoding: 'utf8' });
    assert.equal(child.status, 3, child.stderr);
    assert.match(child.stdout, /^[0-9a-f]{64}\n$/);
    assert.deepEqual(await containersOfSession(docker, id), []);
  });

  test('cleanupLeftovers removes containers of ended processes only', async () => {
    const ended = spawnSync('true');
    const deadPid = ended.pid!;
    const id = session();
    const orphan = await docker.createContainer({
      Image: TEST_IMAGE,
      Entrypoint: ['sleep', 'infinity'],
      Labels: { [SANDBOX_LABEL]: '1', [OWNER_LABEL]: `${hostname()}:${deadPid}`, [SESSION_LABEL]: id },
      HostConfig: { NetworkMode: 'none' },
    });
    const mine = await DockerSandbox.create({ image: TEST_IMAGE, repoPath: '/testbed' }, docker);
    try {
      const removed = await cleanupLeftovers({ docker });
      assert.ok(removed.includes(orphan.id));
      assert.ok(!removed.includes(mine.id));
      assert.deepEqual(await containersOfSession(docker, id), []);
      assert.equal((await mine.exec('echo alive')).output, 'alive\n');
    } finally {
      await mine.dispose();
    }
  });
});

describe('choosing a sandbox', () => {
  test('uses Docker when the engine answers', async () => {
    const { sandbox, notice } = await createSandbox({ image: TEST_IMAGE, repoPath: '/testbed' });
    try {
      assert.equal(sandbox.kind, 'docker');
      assert.equal(notice, undefined);
    } finally {
      await sandbox.dispose();
    }
  });

  test('falls back to a local sandbox, saying why, when DOCKER_HOST does not answer', async () => {
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = 'tcp://127.0.0.1:1';
    try {
      const { sandbox, notice } = await createSandbox({ image: TEST_IMAGE, repoPath: '/testbed' });
      try {
        assert.equal(sandbox.kind, 'local');
        assert.match(notice ?? '', /Docker engine at tcp:\/\/127\.0\.0\.1:1 does not answer \(.*ECONNREFUSED.*\)/);
        assert.match(notice ?? '', /no isolation/);
        assert.equal((await sandbox.exec('echo local')).output, 'local\n');
      } finally {
        await sandbox.dispose();
      }
      await assert.rejects(createSandbox({ image: TEST_IMAGE, repoPath: '/testbed', prefer: 'docker' }), /tcp:\/\/127\.0\.0\.1:1 does not answer/);
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
  });
});
