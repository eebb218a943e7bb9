import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { recordedRepository } from '../../../extension/core/session/repositoryChoice';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { materializeSampleRepo } from '../../helpers/sampleRepo';

const demo = path.resolve(__dirname, '../../../demo/trajectories');

describe('the repository a recording names among the workspace folders', () => {
  let scratch: string;
  let workbench: string;
  let sampleRepo: string;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'swb-repo-choice-'));
    // The demo's two folders, the trajectories' folder first (as in demo.code-workspace).
    workbench = path.join(scratch, 'workbench');
    await mkdir(workbench);
    sampleRepo = (await materializeSampleRepo(path.join(scratch, 'sample-repo'))).dir;
  });

  after(() => rm(scratch, { recursive: true, force: true }));

  for (const file of ['ledger-allocate.swe-agent.traj', 'ledger-allocate.canonical.json', 'ledger-allocate.openhands.jsonl', 'fork-at-1.by-hand.traj']) {
    test(`${file}: sample-repo, by the recorded base commit, though workbench is the first folder`, async () => {
      const { trajectory } = await loadTrajectory(path.join(demo, file));
      const chosen = await recordedRepository(trajectory.task, [workbench, sampleRepo]);
      assert.equal(chosen?.dir, sampleRepo);
      // The commit before the fix, where the demo's task starts (the sample repository's HEAD is after it).
      assert.match(chosen?.reason ?? '', /base commit f7aa08fc1742/);
    });
  }

  test('a recording that names no commit, path or folder name answers nothing (the person is asked)', async () => {
    assert.equal(await recordedRepository({ instanceId: 'x', baseCommit: 'HEAD', repoPath: '/repo' }, [workbench, sampleRepo]), undefined);
  });

  test("a task repository 'owner/name' picks the folder of that name; an absolute local path is taken as it is", async () => {
    assert.equal((await recordedRepository({ repo: 'acme/sample-repo' }, [workbench, sampleRepo]))?.dir, sampleRepo);
    assert.equal((await recordedRepository({ repo: sampleRepo }, [workbench]))?.dir, sampleRepo);
    assert.equal(await recordedRepository({ repo: path.join(scratch, 'nowhere') }, [workbench]), undefined);
  });

  test('a base commit no folder holds falls back to the name', async () => {
    const chosen = await recordedRepository({ baseCommit: '0123456789abcdef0123456789abcdef01234567', repoPath: '/workbench' }, [sampleRepo, workbench]);
    assert.equal(chosen?.dir, workbench);
  });
});
