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
    const run = tempFolder();
    try {
      // 300 instances x 10 attempts: 3,000 rollouts, more than one slice of rows.
      writeGeneratedRun(run.root, 300, 10, 'light');
      const inThread = await indexRollouts(run.root);
      const inWorker = await withWorker(run.root, undefined, (w) => w.refresh());
      assert.equal(inWorker.rollouts.length, 3000);
      assert.deepEqual(
        inWorker.rollouts.map((r) => r.id),
        inThread.rollouts.map((r) => r.id),
      );
      assert.deepEqual(inWorker.rollouts, inThread.rollouts);
    } finally {
      run.cleanup();
    }
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
    const run = tempFolder();
    try {
      writeGeneratedRun(run.root, 200, 10, 'light');
      await withWorker(run.root, undefined, async (w) => {
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
      });
    } finally {
      run.cleanup();
    }
  });

  test('each refresh reads only what changed since the last: an unchanged folder nothing, a new file alone', async () => {
    const run = tempFolder();
    try {
      writeGeneratedRun(run.root, 20, 10, 'light');
      await withWorker(run.root, undefined, async (w) => {
        const first = await w.refresh();
        const again = await w.refresh();
        assert.equal(again.stats.filesRead, 0);
        assert.equal(again.stats.filesCached, again.stats.files);
        assert.deepEqual(again.rollouts, first.rollouts);
        writeEleventhAttempt(run.root);
        const grown = await w.refresh();
        assert.equal(grown.stats.filesRead, 1);
        assert.equal(grown.rollouts.length, first.rollouts.length + 1);
        assert.equal(grown.rollouts.find((r) => r.id === 'attempt_11/acme__widgets-1000.traj.json')?.attempt, 11);
      });
    } finally {
      run.cleanup();
    }
  });

  test('rows another indexer of the same cache made are taken, not the ones held', async () => {
    const run = tempFolder();
    const cache = tempFolder();
    try {
      writeGeneratedRun(run.root, 20, 10, 'light');
      await withWorker(run.root, cache.root, async (w) => {
        const cold = await w.refresh();
        // Another window indexes the same folder into the same cache after the run grew.
        writeEleventhAttempt(run.root);
        const other = await new RolloutIndexer(run.root, { cacheDir: cache.root }).refresh();
        const next = await w.refresh();
        assert.equal(next.stats.filesRead, 0, 'the other indexer read the new file; its cache says so');
        assert.equal(next.rollouts.length, cold.rollouts.length + 1);
        assert.deepEqual(next.rollouts, other.rollouts);
        assert.deepEqual(next.text, other.text);
      });
    } finally {
      run.cleanup();
      cache.cleanup();
    }
  });

  test('closing it cancels the refresh under way and refuses later ones', async () => {
    const run = tempFolder();
    try {
      writeGeneratedRun(run.root, 200, 10, 'light');
      const cache = tempFolder();
      const w = new WorkerRolloutIndexer(run.root, { cacheDir: cache.root });
      try {
        let closing: Promise<void> | undefined;
        const refresh = w.refresh(undefined, () => (closing ??= w.close()));
        await assert.rejects(refresh, (error: unknown) => error instanceof CancelledError && error.message === 'the index was closed');
        await closing;
        await assert.rejects(w.refresh(), (error: unknown) => error instanceof CancelledError && error.message === 'the index was closed');
      } finally {
        await w.close();
        cache.cleanup();
      }
    } finally {
      run.cleanup();
    }
  });

  test('with a cache folder, a second worker reads nothing the first one read', async () => {
    const run = tempFolder();
    const cache = tempFolder();
    try {
      writeGeneratedRun(run.root, 20, 10, 'light');
      const cold = await withWorker(run.root, cache.root, (w) => w.refresh());
      const warm = await withWorker(run.root, cache.root, (w) => w.refresh());
      assert.equal(cold.stats.filesRead, cold.stats.files);
      assert.equal(warm.stats.filesCached, warm.stats.files);
      assert.deepEqual(warm.rollouts, cold.rollouts);
      // Where each row's text lies crosses the thread by row: the host keys it by its own rows' ids.
      assert.equal(cold.text?.ranges.size, cold.rollouts.length);
      assert.deepEqual(warm.text, cold.text);
    } finally {
      run.cleanup();
      cache.cleanup();
    }
  });

  test('with a cache folder, an unchanged refresh keeps the rows and their text places, and a change brings every row again', async () => {
    const run = tempFolder();
    const cache = tempFolder();
    try {
      writeGeneratedRun(run.root, 20, 10, 'light');
      await withWorker(run.root, cache.root, async (w) => {
        const cold = await w.refresh();
        const again = await w.refresh();
        assert.equal(again.stats.filesRead, 0);
        assert.equal(again.rollouts, cold.rollouts, 'the rows the host holds, not sent again');
        assert.deepEqual(again.text, cold.text);
        writeEleventhAttempt(run.root);
        const grown = await w.refresh();
        assert.equal(grown.stats.filesRead, 1);
        assert.deepEqual(grown.rollouts, (await indexRollouts(run.root)).rollouts);
        assert.equal(grown.text?.ranges.size, grown.rollouts.length);
        assert.ok(grown.text?.ranges.has('attempt_11/acme__widgets-1000.traj.json'));
      });
    } finally {
      run.cleanup();
      cache.cleanup();
    }
  });
});
