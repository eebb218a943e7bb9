import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startContainerSession } from '../../../extension/core/session/containerSession';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';

const ROLE = 'container-session-options-test';
let repoDir: string;

async function containersOfRole(): Promise<string[]> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `swe-workbench.role=${ROLE}`] } });
  return list.map((c) => c.Id);
}

before(async () => {
  repoDir = await mkdtemp(path.join(tmpdir(), 'swb-session-options-'));
  await writeFile(path.join(repoDir, 'a.py'), 'x = 1\n');
});
after(async () => {
  await rm(repoDir, { recursive: true, force: true });
});

describe('a container session', () => {
  test('runs under the limits asked for, on the engine named, and leaves no container behind', async () => {
    const memoryBytes = 768 * 1024 ** 2;
    const aci = await startContainerSession({
      image: TEST_IMAGE,
      repoDir,
      repoPath: '/repo',
      tools: toolSetFor(),
      role: ROLE,
      limits: { memoryBytes, pids: 300 },
      docker: { host: 'unix:///var/run/docker.sock' },
    });
    try {
      const info = await testDocker().getContainer(aci.sandbox.id).inspect();
      assert.equal(info.HostConfig.Memory, memoryBytes);
      assert.equal(info.HostConfig.PidsLimit, 300);
      assert.equal((await aci.sandbox.exec('cat a.py')).output, 'x = 1\n');
    } finally {
      await aci.dispose();
    }
    assert.deepEqual(await containersOfRole(), []);
  });

  test('started against an engine that does not answer fails naming its socket, with no container created', async () => {
    await assert.rejects(
      startContainerSession({
        image: TEST_IMAGE,
        repoDir,
        repoPath: '/repo',
        tools: toolSetFor(),
        role: ROLE,
        docker: { host: 'unix:///nonexistent/docker.sock' },
      }),
      /\/nonexistent\/docker\.sock/,
    );
    assert.deepEqual(await containersOfRole(), []);
  });
});
