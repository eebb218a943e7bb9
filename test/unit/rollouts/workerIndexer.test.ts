import '../../helpers/families';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelledError, InputError } from '../../../extension/core/errors';
import { RolloutIndexer, indexRollouts, type IndexProgress } from '../../../extension/core/rollouts/rolloutIndex';
import { WorkerRolloutIndexer } from '../../../extension/core/rollouts/workerIndexer';
import { writeGeneratedRun } from '../../../bench/rollouts/generatedRun';
import { miniSweAgentTraj, workSteps, writeJson } from '../../fixtures/rollouts/runWriter';
import { suiteRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

function tempFolder(): { root: string; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'swe-workbench-worker-index-'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A worker indexer (with a cache folder of its own unless given one) closed after the test, whatever happens in it. */
async function withWorker<T>(root: string, cacheDir: string | undefined, run: (w: WorkerRolloutIndexer) => Promise<T>): Promise<T> {
  const own = cacheDir === undefined ? tempFolder() : undefined;
  const worker = new WorkerRolloutIndexer(root, { cacheDir: cacheDir ?? own!.root });
  try {
    return await run(worker);
  } finally {
    await worker.close();
    own?.cleanup();
  }
}

/** A generated run of `instances` x 10 attempts and a cache folder of its own, both removed after `use`. */
async function withGeneratedRun<T>(instances: number, use: (root: string, cacheDir: string) => Promise<T>): Promise<T> {
  const run = tempFolder();
  const cache = tempFolder();
  try {
    writeGeneratedRun(run.root, instances, 10, 'light');
    return await use(run.root, cache.root);
  } finally {
    run.cleanup();
    cache.cleanup();
  }
}

/** A trajectory file that makes a generated run's `acme__widgets-1000` one attempt longer. */
const writeEleventhAttempt = (root: string) =>
  writeJson(
    root,
    'attempt_11/acme__widgets-1000.traj.json',
    miniSweAgentTraj({ instance: 'acme__widgets-1000', steps: workSteps(4), exit: 'Submitted', patch: '' }),
  );

describe('indexing in a worker thread', () => {
  const folder = suiteRolloutFolder();

  thirdPartyFiles.test('gives the same rows, errors and counts as the index in this thread', async () => {
    const inThread = await indexRollouts(folder.root);
    const inWorker = await withWorker(folder.root, undefined, (w) => w.refresh());
    assert.ok(inThread.rollouts.length > 10, 'the fixture run has rollouts of several formats');
    assert.deepEqual(inWorker.rollouts, inThread.rollouts);
    assert.deepEqual(inWorker.errors, inThread.errors);
    assert.deepEqual(inWorker.stats, inThread.stats);
    assert.equal(inWorker.root, inThread.root);
  });

  test('sends rows in slices and joins them back in order: a run larger than one message', async () => {
    // 300 instances x 10 attempts: 3,000 rollouts, more than one slice of rows.
    await withGeneratedRun(300, async (root, cacheDir) => {
      const inThread = await indexRollouts(root);
      const inWorker = await withWorker(root, cacheDir, (w) => w.refresh());
      assert.equal(inWorker.rollouts.length, 3000);
      assert.deepEqual(
        inWorker.rollouts.map((r) => r.id),
        inThread.rollouts.map((r) => r.id),
      );
      assert.deepEqual(inWorker.rollouts, inThread.rollouts);
    });
  });

  test('reports a broken file with its place, as the index in this thread does, and indexes the rest', async () => {
    const run = tempFolder();
    try {
      writeJson(run.root, 'a/acme__widgets-1.traj.json', miniSweAgentTraj({ instance: 'acme__widgets-1', steps: workSteps(3), exit: 'Submitted', patch: '' }));
      writeFileSync(join(run.root, 'a', 'broken.traj'), '{"trajectory": [\n  {"action": "ls",}\n]}\n');
      const inWorker = await withWorker(run.root, undefined, (w) => w.refresh());
      assert.deepEqual(
        inWorker.rollouts.map((r) => r.id),
        ['a/acme__widgets-1.traj.json'],
      );
      assert.equal(inWorker.errors.length, 1);
      assert.equal(inWorker.errors[0]!.file, 'a/broken.traj');
      assert.match(inWorker.errors[0]!.where ?? inWorker.errors[0]!.message, /line 2/);
      assert.deepEqual(inWorker.errors, (await indexRollouts(run.root)).errors);
    } finally {
      run.cleanup();
    }
  });

  test('a folder that is not there is the same InputError as in this thread', async () => {
    const missing = join(tmpdir(), 'swe-workbench-no-such-rollouts-folder');
    const inThread = await indexRollouts(missing).then(
      () => assert.fail('indexed a missing folder'),
      (error: unknown) => error,
    );
    await assert.rejects(
      withWorker(missing, undefined, (w) => w.refresh()),
      (error: unknown) => error instanceof InputError && error.message === (inThread as InputError).message && /no such folder/.test(error.message),
    );
  });

  test('a cancelled refresh rejects as cancelled, and the next one indexes everything', async () => {
    await withGeneratedRun(200, (root, cacheDir) =>
      withWorker(root, cacheDir, async (w) => {
        const controller = new AbortController();
        const progress: IndexProgress[] = [];
        // Cancelled at its first progress report: 1,400 files are left to read.
        const cancelled = w.refresh(controller.signal, (p) => {
          progress.push(p);
          controller.abort('cancelled by the test');
        });
        await assert.rejects(cancelled, (error: unknown) => error instanceof CancelledError && error.message === 'cancelled by the test');
        assert.ok(progress[0]!.done < progress[0]!.total, 'the cancel came while files were left');
        const full = await w.refresh();
        assert.equal(full.rollouts.length, 2000);
        assert.equal(full.stats.filesRead, full.stats.files);
      }),
    );
  });

  test('each refresh reads only what changed since the last: an unchanged folder nothing, a new file alone', async () => {
    await withGeneratedRun(20, (root, cacheDir) =>
      withWorker(root, cacheDir, async (w) => {
        const first = await w.refresh();
        const again = await w.refresh();
        assert.equal(again.stats.filesRead, 0);
        assert.equal(again.stats.filesCached, again.stats.files);
        assert.deepEqual(again.rollouts, first.rollouts);
        writeEleventhAttempt(root);
        const grown = await w.refresh();
        assert.equal(grown.stats.filesRead, 1);
        assert.equal(grown.rollouts.length, first.rollouts.length + 1);
        assert.equal(grown.rollouts.find((r) => r.id === 'attempt_11/acme__widgets-1000.traj.json')?.attempt, 11);
      }),
    );
  });

  test('rows another indexer of the same cache made are taken, not the ones held', async () => {
    await withGeneratedRun(20, (root, cacheDir) =>
      withWorker(root, cacheDir, async (w) => {
        const cold = await w.refresh();
        // Another window indexes the same folder into the same cache after the run grew.
        writeEleventhAttempt(root);
        const other = await new RolloutIndexer(root, { cacheDir }).refresh();
        const next = await w.refresh();
        assert.equal(next.stats.filesRead, 0, 'the other indexer read the new file; its cache says so');
        assert.equal(next.rollouts.length, cold.rollouts.length + 1);
        assert.deepEqual(next.rollouts, other.rollouts);
        assert.deepEqual(next.text, other.text);
      }),
    );
  });

  test('closing it cancels the refresh under way and refuses later ones', async () => {
    await withGeneratedRun(200, (root, cacheDir) =>
      withWorker(root, cacheDir, async (w) => {
        let closing: Promise<void> | undefined;
        const refresh = w.refresh(undefined, () => (closing ??= w.close()));
        await assert.rejects(refresh, (error: unknown) => error instanceof CancelledError && error.message === 'the index was closed');
        await closing;
        await assert.rejects(w.refresh(), (error: unknown) => error instanceof CancelledError && error.message === 'the index was closed');
      }),
    );
  });

  test('with a cache folder, a second worker reads nothing the first one read', async () => {
    await withGeneratedRun(20, async (root, cacheDir) => {
      const cold = await withWorker(root, cacheDir, (w) => w.refresh());
      const warm = await withWorker(root, cacheDir, (w) => w.refresh());
      assert.equal(cold.stats.filesRead, cold.stats.files);
      assert.equal(warm.stats.filesCached, warm.stats.files);
      assert.deepEqual(warm.rollouts, cold.rollouts);
      // Where each row's text lies crosses the thread by row: the host keys it by its own rows' ids.
      assert.equal(cold.text?.ranges.size, cold.rollouts.length);
      assert.deepEqual(warm.text, cold.text);
    });
  });

  test('with a cache folder, an unchanged refresh keeps the rows and their text places, and a change brings every row again', async () => {
    await withGeneratedRun(20, (root, cacheDir) =>
      withWorker(root, cacheDir, async (w) => {
        const cold = await w.refresh();
        const again = await w.refresh();
        assert.equal(again.stats.filesRead, 0);
        assert.equal(again.rollouts, cold.rollouts, 'the rows the host holds, not sent again');
        assert.deepEqual(again.text, cold.text);
        writeEleventhAttempt(root);
        const grown = await w.refresh();
        assert.equal(grown.stats.filesRead, 1);
        assert.deepEqual(grown.rollouts, (await indexRollouts(root)).rollouts);
        assert.equal(grown.text?.ranges.size, grown.rollouts.length);
        assert.ok(grown.text?.ranges.has('attempt_11/acme__widgets-1000.traj.json'));
      }),
    );
  });
});
