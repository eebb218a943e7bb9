import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Docker from 'dockerode';
import { materializeSampleRepo, type SampleRepo } from '../../helpers/sampleRepo';

const image = 'swe-workbench/base:bookworm';
const label = 'swe-workbench.test';
const docker = new Docker();

/** Runs pytest on a copy of `repoDir` in a fresh, network-less container that is removed after. */
async function pytestInContainer(repoDir: string, args: string): Promise<{ exitCode: number; output: string }> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ['sh', '-c', `cp -r /repo /tmp/work && cd /tmp/work && pytest -p no:cacheprovider ${args} 2>&1`],
    Labels: { [label]: 'sample-repo-pytest' },
    NetworkDisabled: true,
    HostConfig: { Binds: [`${repoDir}:/repo:ro`], NetworkMode: 'none', Memory: 512 * 2 ** 20, PidsLimit: 128 },
  });
  try {
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    container.modem.demuxStream(stream, out, out);
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    return { exitCode: StatusCode, output: Buffer.concat(chunks).toString('utf8') };
  } finally {
    await container.remove({ force: true });
  }
}

describe('the sample repository in the base image', () => {
  let scratch: string;
  let repo: SampleRepo;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'sample-repo-it-'));
    repo = await materializeSampleRepo(path.join(scratch, 'repo'));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  test('all 57 tests pass at the last commit', async () => {
    const { exitCode, output } = await pytestInContainer(repo.dir, '-q');
    assert.equal(exitCode, 0, output);
    assert.match(output, /^57 passed in /m);
  });

  test("at the bug fix's parent, the fix's tests fail and the others pass", async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, encoding: 'utf8' });
    git('checkout', '-q', `${repo.bugFixCommit}^`);
    git('checkout', repo.bugFixCommit, '--', 'tests/test_money.py');
    const { exitCode, output } = await pytestInContainer(repo.dir, '-q -rf tests/test_money.py');
    assert.equal(exitCode, 1, output);
    assert.match(output, /^FAILED tests\/test_money\.py::test_allocate_keeps_every_cent /m);
    assert.match(output, /^FAILED tests\/test_money\.py::test_allocate_negative_amount_keeps_every_cent /m);
    assert.match(output, /^2 failed, 15 passed in /m);
  });

  test('no container is left behind', async () => {
    const left = await docker.listContainers({ all: true, filters: { label: [`${label}=sample-repo-pytest`] } });
    assert.deepEqual(left, []);
  });
});
