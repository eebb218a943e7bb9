import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Docker from 'dockerode';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { materializeSampleRepo, type SampleRepo } from '../../helpers/sampleRepo';

const label = { key: 'swe-workbench.test', value: 'sample-repo' };

describe('the sample repository in a container of the base image', () => {
  let scratch: string;
  let repo: SampleRepo;
  let sandbox: Sandbox;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'sample-repo-it-'));
    repo = await materializeSampleRepo(path.join(scratch, 'repo'));
    sandbox = await DockerSandbox.create({
      image: 'swe-workbench/base:bookworm',
      repoDir: repo.dir,
      repoPath: '/repo',
      labels: { [label.key]: label.value },
    });
  });
  after(async () => {
    await sandbox.dispose();
    await rm(scratch, { recursive: true, force: true });
  });

  test('flake8 finds nothing and all 57 tests pass at the last commit', async () => {
    const lint = await sandbox.exec('flake8 --isolated --select=F821,F822,F831,E111,E112,E113,E999,E902 . && flake8 .');
    assert.equal(lint.exitCode, 0, lint.output);
    const { exitCode, output } = await sandbox.exec('pytest -q -p no:cacheprovider 2>&1');
    assert.equal(exitCode, 0, output);
    assert.match(output, /^57 passed in /m);
  });

  test("at the bug fix's parent, the fix's tests fail and the others pass", async () => {
    const checkout = await sandbox.exec(
      `git -c safe.directory='*' checkout -q ${repo.bugFixCommit}^ && git -c safe.directory='*' checkout ${repo.bugFixCommit} -- tests/test_money.py`,
    );
    assert.equal(checkout.exitCode, 0, checkout.output);
    const { exitCode, output } = await sandbox.exec('pytest -q -rf -p no:cacheprovider tests/test_money.py 2>&1');
    assert.equal(exitCode, 1, output);
    assert.match(output, /^FAILED tests\/test_money\.py::test_allocate_keeps_every_cent /m);
    assert.match(output, /^FAILED tests\/test_money\.py::test_allocate_negative_amount_keeps_every_cent /m);
    assert.match(output, /^2 failed, 15 passed in /m);
  });
});

describe('after the sample repository tests', () => {
  test('no container is left behind', async () => {
    const left = await new Docker().listContainers({ all: true, filters: { label: [`${label.key}=${label.value}`] } });
    assert.deepEqual(left, []);
  });
});
