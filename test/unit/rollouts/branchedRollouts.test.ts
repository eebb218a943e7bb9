import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveBranchIndex } from '../../../extension/core/branch/branchFolder';
import { branchFolderOf } from '../../../extension/core/rollouts/branchFolderName';
import { summarizeIndex, type BranchIndex } from '../../../extension/core/rollouts/branchIndex';
import { RolloutIndexer, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import { WorkerRolloutIndexer } from '../../../extension/core/rollouts/workerIndexer';
import { miniSweAgentTraj, workSteps, writeJson } from '../../fixtures/rollouts/runWriter';
import { command as rollouts } from '../../../extension/cli/rollouts';
import { runCli } from '../../helpers/cliRunner';

const BRANCHED = 'attempt_1/acme__widgets-1.traj.json';
const PLAIN = 'attempt_2/acme__widgets-1.traj.json';

/** A branch run's index as `swe-workbench branch` keeps it: per branch point, its continuations' rewards. */
function branchIndex(points: Array<[afterStep: number, rewards: number[]]>): BranchIndex {
  return {
    recording: { file: BRANCHED, id: null, steps: 6 },
    settings: { model: 'policy', scaffold: 'mini-swe-agent', maxSteps: null, sampling: { temperature: 1 } },
    replayedSteps: { recording: 6, forks: 0 },
    points: points.map(([afterStep, rewards]) => ({
      afterStep,
      continuations: rewards.map((reward, sample) => ({
        sample,
        file: `after-step-${afterStep}/continuation-${sample + 1}.traj.json`,
        patch: null,
        outcome: 'submitted',
        steps: 2,
        reward,
        mask: null,
        seed: null,
        restoredAt: afterStep,
        replayed: 0,
      })),
    })),
  };
}

/** Writes the branch run of the branched recording through the branch run's own writer, with one continuation file beside it. */
async function writeBranchRun(root: string, points: Array<[number, number[]]>): Promise<void> {
  const folder = branchFolderOf(join(root, BRANCHED));
  mkdirSync(join(folder, 'after-step-6'), { recursive: true });
  // A continuation is a trajectory of the scaffold's format: the branch run's, never a rollout of the run.
  writeFileSync(
    join(folder, 'after-step-6', 'continuation-1.traj.json'),
    JSON.stringify(miniSweAgentTraj({ instance: 'acme__widgets-1', steps: workSteps(8), exit: 'Submitted', patch: '' })),
  );
  await saveBranchIndex(folder, branchIndex(points));
}

const rowOf = (index: RolloutIndex, path: string) => index.rollouts.find((r) => r.path === path);

describe("a branched rollout's critical step in the rollouts index", () => {
  let root: string;
  let cacheDir: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-branched-run-'));
    cacheDir = mkdtempSync(join(tmpdir(), 'swe-workbench-branched-cache-'));
    for (const path of [BRANCHED, PLAIN])
      writeJson(root, path, miniSweAgentTraj({ instance: 'acme__widgets-1', steps: workSteps(6), exit: 'Submitted', patch: '' }));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });

  // Each listing is a new indexer on the same cache folder, as each `rollouts list --cache` is a new process.
  const list = () => new RolloutIndexer(root, { cacheDir }).refresh();

  test('is kept in the cache and follows a new branch run on the next listing, which reads the branch index alone', async () => {
    const first = await list();
    assert.equal(first.rollouts.length, 2);
    assert.ok(first.rollouts.every((r) => r.critical === undefined));

    // V 1 at the start and after step 5, 0.25 after step 6: step 6 is critical.
    await writeBranchRun(root, [
      [0, [1, 1, 1, 1]],
      [5, [1, 1, 1, 1]],
      [6, [1, 0, 0, 0]],
    ]);
    const branched = await list();
    assert.deepEqual(
      branched.rollouts.map((r) => r.path),
      [BRANCHED, PLAIN],
      'the continuation and the index are no rollouts of the run',
    );
    assert.deepEqual(rowOf(branched, BRANCHED)!.critical, { from: 5, to: 6, before: 1, after: 0.25 });
    assert.equal(rowOf(branched, PLAIN)!.critical, undefined);
    assert.equal(branched.stats.filesRead, 1, 'only the branch index was read; the trajectories came from the cache');
    assert.equal(branched.stats.filesCached, 2);

    const warm = await list();
    assert.equal(warm.stats.filesRead, 0);
    assert.deepEqual(rowOf(warm, BRANCHED)!.critical, { from: 5, to: 6, before: 1, after: 0.25 }, 'the rows decoded from the cache keep it');

    // A later branch run of the same recording adds a state: V falls to 0 by step 4.
    await writeBranchRun(root, [
      [0, [1, 1, 1, 1]],
      [4, [0, 0, 0, 0]],
      [5, [1, 1, 1, 1]],
      [6, [1, 0, 0, 0]],
    ]);
    const again = await list();
    assert.deepEqual(rowOf(again, BRANCHED)!.critical, { from: 0, to: 4, before: 1, after: 0 });
    assert.equal(again.stats.filesRead, 1);

    // V never falls: branched, with no critical step (null, not unknown).
    await writeBranchRun(root, [
      [0, [0, 0, 1, 1]],
      [6, [1, 1, 1, 1]],
    ]);
    assert.equal(rowOf(await list(), BRANCHED)!.critical, null);

    rmSync(branchFolderOf(join(root, BRANCHED)), { recursive: true });
    const unbranched = await list();
    assert.equal(rowOf(unbranched, BRANCHED)!.critical, undefined);
    assert.equal(unbranched.rollouts.length, 2);
  });

  test('a broken branch index is an error naming the file and the JSON path; the row stays unbranched', async () => {
    const folder = branchFolderOf(join(root, BRANCHED));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'index.json'), JSON.stringify({ ...branchIndex([[0, [1]]]), points: [{ afterStep: -1, continuations: [] }] }));
    try {
      const index = await list();
      assert.equal(rowOf(index, BRANCHED)!.critical, undefined);
      const error = index.errors.find((e) => e.file === 'attempt_1/acme__widgets-1.traj.json.branches/index.json');
      assert.ok(error, JSON.stringify(index.errors));
      assert.equal(error.where, 'points.0.afterStep');
    } finally {
      rmSync(folder, { recursive: true });
    }
  });

  test('the worker thread sends it to the host, and a new branch run reaches a host that holds the rows', async () => {
    const own = mkdtempSync(join(tmpdir(), 'swe-workbench-branched-worker-cache-'));
    const worker = new WorkerRolloutIndexer(root, { cacheDir: own });
    try {
      assert.ok((await worker.refresh()).rollouts.every((r) => r.critical === undefined));
      await writeBranchRun(root, [
        [0, [1, 1, 1, 1]],
        [5, [1, 1, 1, 1]],
        [6, [1, 0, 0, 0]],
      ]);
      const index = await worker.refresh();
      assert.deepEqual(rowOf(index, BRANCHED)!.critical, { from: 5, to: 6, before: 1, after: 0.25 });
      assert.equal(index.stats.filesRead, 1);
    } finally {
      await worker.close();
      rmSync(own, { recursive: true, force: true });
      rmSync(branchFolderOf(join(root, BRANCHED)), { recursive: true, force: true });
    }
  });

  test('rollouts list shows it as a column and in --json, filters and sorts on it', async () => {
    await writeBranchRun(root, [
      [0, [1, 1, 1, 1]],
      [5, [1, 1, 1, 1]],
      [6, [1, 0, 0, 0]],
    ]);
    try {
      const text = await runCli(rollouts, ['list', root, '--cache', cacheDir]);
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.split('\n');
      assert.match(lines[0]!, /SECONDS\s+CRITICAL$/);
      assert.match(
        lines.find((l) => l.startsWith(BRANCHED))!,
        /step 6 \(V 1\.00 -> 0\.25\)$/,
      );
      assert.match(
        lines.find((l) => l.startsWith(PLAIN))!,
        /\s-$/,
        'not branched: "-", never 0',
      );

      const json = await runCli(rollouts, ['list', root, '--cache', cacheDir, '--json']);
      assert.equal(json.code, 0, json.stderr);
      const rows = (JSON.parse(json.stdout) as { rollouts: Array<{ path: string; branched: boolean; critical: unknown }> }).rollouts;
      assert.deepEqual(
        rows.map((r) => [r.path, r.branched, r.critical]),
        [
          [BRANCHED, true, { step: 6, from: 5, before: 1, after: 0.25 }],
          [PLAIN, false, null],
        ],
      );

      const filtered = await runCli(rollouts, ['list', root, '--cache', cacheDir, '--json', '--filter', 'critical=6']);
      assert.deepEqual(
        (JSON.parse(filtered.stdout) as { rollouts: Array<{ path: string }> }).rollouts.map((r) => r.path),
        [BRANCHED],
      );
      const unbranched = await runCli(rollouts, ['list', root, '--cache', cacheDir, '--json', '--filter', 'branched=no']);
      assert.deepEqual(
        (JSON.parse(unbranched.stdout) as { rollouts: Array<{ path: string }> }).rollouts.map((r) => r.path),
        [PLAIN],
      );
      // Sorted descending, the rollout with no critical step still comes last.
      const sorted = await runCli(rollouts, ['list', root, '--cache', cacheDir, '--json', '--sort=-critical']);
      assert.deepEqual(
        (JSON.parse(sorted.stdout) as { rollouts: Array<{ path: string }> }).rollouts.map((r) => r.path),
        [BRANCHED, PLAIN],
      );
    } finally {
      rmSync(branchFolderOf(join(root, BRANCHED)), { recursive: true, force: true });
    }
  });
});

describe("a branch index's values", () => {
  test('a continuation with neither a reward nor a mask is left out of V with its reason, never counted as 0', () => {
    const index = branchIndex([[2, [1, 1, 1]]]);
    index.points[0]!.continuations[2]!.reward = null;
    const [point] = summarizeIndex(index).values;
    assert.equal(point!.value, 1, 'V rests on the two known rewards');
    assert.equal(point!.n, 2);
    assert.deepEqual(point!.masked, [{ reason: 'no reward recorded', count: 1 }]);
  });
});
