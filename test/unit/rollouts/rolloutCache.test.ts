import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancelledError } from '../../../extension/core/errors';
import { rootKey } from '../../../extension/core/rollouts/indexCache';
import { RolloutIndexer, indexRollouts, type IndexOptions, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import { watchRollouts } from '../../../extension/core/rollouts/rolloutWatch';
import { importRolloutTrajectory } from '../../../extension/core/rollouts/trajectoryImport';
import { r2eGymRecord, sweAgentTraj, workSteps, writeJson } from '../../fixtures/rollouts/runWriter';
import { makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** The index's cache file as it lies in the cache folder: one per indexed folder, `rollouts-<key of the folder>.json`. */
const cacheFile = (cacheDir: string, root: string) => join(cacheDir, `rollouts-${rootKey(root)}.json`);

/** Indexes with an importer that counts the documents it turns into trajectories. */
function countingIndex(root: string, cacheDir: string) {
  const counter = { imports: 0 };
  const options: IndexOptions = {
    cacheDir,
    importTrajectory: (value, file, line) => {
      counter.imports++;
      return importRolloutTrajectory(value, file, line);
    },
  };
  return { counter, run: () => indexRollouts(root, options) };
}

const record = (instance: string, steps: number) => JSON.stringify(r2eGymRecord({ instance, steps: workSteps(steps), exit: 'agent', patch: '', reward: 0 }));

describe('index cache', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let cacheDir: string;
  let root: string;
  let cold: RolloutIndex;

  thirdPartyFiles.before(async () => {
    folder = makeRolloutFolder();
    root = join(folder.root, 'run');
    cacheDir = mkdtempSync(join(tmpdir(), 'swe-workbench-rollouts-cache-'));
    const { counter, run } = countingIndex(root, cacheDir);
    cold = await run();
    // 15 readable trajectories plus the truncated SWE-agent file, which fails before import.
    assert.equal(counter.imports, 15);
  });
  thirdPartyFiles.after(() => {
    folder.cleanup();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  thirdPartyFiles.test('a second indexing of an unchanged folder reads and parses nothing', async () => {
    const { counter, run } = countingIndex(root, cacheDir);
    const warm = await run();
    assert.equal(counter.imports, 0);
    // How many folders are read again depends on how long ago they were written (fileListing.test.ts).
    const { foldersRead: _, ...stats } = warm.stats;
    assert.deepEqual(stats, { files: cold.stats.files, filesRead: 0, filesResumed: 0, filesCached: cold.stats.files, bytesRead: 0 });
    assert.deepEqual(warm.rollouts, cold.rollouts);
    assert.deepEqual(warm.errors, cold.errors);
  });

  thirdPartyFiles.test('an appended JSONL record is read from where the last read stopped', async () => {
    const file = join(root, 'attempt_4/deepswe.jsonl');
    appendFileSync(file, record('acme__widgets-303', 3) + '\n');
    const { counter, run } = countingIndex(root, cacheDir);
    const index = await run();
    assert.equal(counter.imports, 1);
    assert.deepEqual([index.stats.filesResumed, index.stats.filesRead], [1, 0]);
    const added = index.rollouts.find((r) => r.id === 'attempt_4/deepswe.jsonl:4');
    assert.deepEqual([added?.instance, added?.steps, added?.failure], ['acme__widgets-303', 3, 'no-submission']);
    assert.equal(index.rollouts.length, cold.rollouts.length + 1);
  });

  thirdPartyFiles.test('a half-written last line is named, not indexed, and picked up once complete', async () => {
    const file = join(root, 'attempt_4/deepswe.jsonl');
    const line = record('acme__widgets-404', 2);
    appendFileSync(file, line.slice(0, 120));
    const { run } = countingIndex(root, cacheDir);
    const partial = await run();
    assert.equal(
      partial.rollouts.some((r) => r.instance === 'acme__widgets-404'),
      false,
    );
    const torn = partial.errors.filter((e) => !cold.errors.some((c) => c.file === e.file && c.line === e.line));
    assert.deepEqual(
      torn.map((e) => [e.file, e.line]),
      [['attempt_4/deepswe.jsonl', 5]],
    );
    assert.match(torn[0]!.message, /incomplete last line/);
    appendFileSync(file, line.slice(120) + '\n');
    const complete = await run();
    assert.equal(complete.rollouts.find((r) => r.instance === 'acme__widgets-404')?.id, 'attempt_4/deepswe.jsonl:5');
    assert.deepEqual(complete.errors, cold.errors);
  });

  thirdPartyFiles.test('a corrupt cache is discarded, not fatal, and rewritten', async () => {
    writeFileSync(cacheFile(cacheDir, root), '{"version": 1, "root": "');
    const { run } = countingIndex(root, cacheDir);
    const rebuilt = await run();
    assert.match(rebuilt.stats.cacheDiscarded ?? '', /^cache is not valid JSON/);
    assert.equal(rebuilt.stats.filesRead, rebuilt.stats.files);
    const again = await run();
    assert.equal(again.stats.filesCached, again.stats.files);
    assert.deepEqual(again.rollouts, rebuilt.rollouts);
  });

  thirdPartyFiles.test('a cache of the wrong shape is discarded', async () => {
    writeFileSync(cacheFile(cacheDir, root), JSON.stringify({ version: 1, root, files: [{ path: 3 }] }));
    const index = await countingIndex(root, cacheDir).run();
    assert.match(index.stats.cacheDiscarded ?? '', /^cache does not match version \d+: header\.version: /);
    assert.equal(index.stats.filesRead, index.stats.files);
  });

  /** The byte offset of a part of the cache file: its header line, then the parts in the trailer's order. */
  const partAt = (buf: Buffer, part: 'rows' | 'entries') => {
    const trailer = JSON.parse(buf.toString('utf8', buf.lastIndexOf(10, buf.length - 2) + 1)) as Record<string, { bytes: number }>;
    const start = buf.indexOf(10) + 1 + trailer.files!.bytes;
    return part === 'rows' ? start : start + trailer.rows!.bytes + trailer.text!.bytes;
  };

  thirdPartyFiles.test('a cache whose rows were changed after writing is discarded and rebuilt with the same rows', async () => {
    const first = await countingIndex(root, cacheDir).run();
    const file = cacheFile(cacheDir, root);
    const buf = readFileSync(file);
    // One byte of the rows' string table, the length kept: only the checksum can tell.
    const at = buf.indexOf('attempt_', partAt(buf, 'rows'));
    buf[at] = 'A'.charCodeAt(0);
    writeFileSync(file, buf);
    const rebuilt = await countingIndex(root, cacheDir).run();
    assert.equal(rebuilt.stats.cacheDiscarded, 'cache entries do not match their checksum');
    assert.equal(rebuilt.stats.filesRead, rebuilt.stats.files);
    assert.deepEqual(rebuilt.rollouts, first.rollouts);
  });

  thirdPartyFiles.test('entries changed after writing are found when a file changes, and the run is read again', async () => {
    const first = await countingIndex(root, cacheDir).run();
    const file = cacheFile(cacheDir, root);
    const buf = readFileSync(file);
    // The entries are read only when something changed: a step count edited in place is caught then.
    const at = buf.indexOf('"steps":', partAt(buf, 'entries')) + '"steps":'.length;
    buf[at] = buf[at] === 0x39 ? 0x38 : buf[at]! + 1;
    writeFileSync(file, buf);
    const unchanged = await countingIndex(root, cacheDir).run();
    assert.deepEqual(unchanged.rollouts, first.rollouts);
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-505', 2) + '\n');
    const { counter, run } = countingIndex(root, cacheDir);
    const reread = await run();
    assert.equal(reread.stats.cacheDiscarded, 'cache entries do not match their checksum');
    assert.equal(reread.stats.filesRead, reread.stats.files);
    assert.ok(counter.imports > 1);
    const fresh = await indexRollouts(root);
    assert.deepEqual(reread.rollouts, fresh.rollouts);
  });

  thirdPartyFiles.test('a cache of the previous version (JSON lines) is discarded, not misread', async () => {
    writeFileSync(cacheFile(cacheDir, root), JSON.stringify({ version: 8, root }) + '\n{"entries":0,"rollouts":0,"sha1":"x"}\n');
    const index = await countingIndex(root, cacheDir).run();
    assert.match(index.stats.cacheDiscarded ?? '', /^cache does not match version 9: header\.version: /);
    assert.equal(index.stats.filesRead, index.stats.files);
  });
});

describe('watching a run while it writes', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  thirdPartyFiles.before(() => {
    folder = makeRolloutFolder();
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test('a new trajectory file and an appended record appear without re-reading the rest', { timeout: 60_000 }, async () => {
    const root = join(folder.root, 'run');
    const indexer = new RolloutIndexer(root);
    const first = await indexer.refresh();
    const updates: RolloutIndex[] = [];
    let wake: (() => void) | undefined;
    const watch = watchRollouts(indexer, {
      debounceMs: 50,
      onUpdate: (index) => {
        updates.push(index);
        wake?.();
      },
      onError: (err) => assert.fail(String(err)),
    });
    const until = async (found: (index: RolloutIndex) => boolean): Promise<RolloutIndex> => {
      for (;;) {
        const hit = updates.find(found);
        if (hit) return hit;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    };
    try {
      writeJson(
        root,
        'attempt_5/acme__widgets-101/acme__widgets-101.traj',
        sweAgentTraj({ instance: 'acme__widgets-101', steps: workSteps(4), exit: 'exit_cost', patch: '' }),
      );
      const withFile = await until((i) => i.rollouts.some((r) => r.path.startsWith('attempt_5/')));
      const added = withFile.rollouts.find((r) => r.path.startsWith('attempt_5/'));
      assert.deepEqual([added?.attempt, added?.failure, added?.steps], [5, 'budget-exceeded', 4]);
      assert.equal(withFile.rollouts.length, first.rollouts.length + 1);
      assert.ok(withFile.stats.filesCached >= withFile.stats.files - 1, JSON.stringify(withFile.stats));

      appendFileSync(join(root, 'rllm/episodes.jsonl'), record('acme__widgets-505', 2) + '\n');
      const withLine = await until((i) => i.rollouts.some((r) => r.id === 'rllm/episodes.jsonl:5'));
      assert.equal(withLine.rollouts.find((r) => r.id === 'rllm/episodes.jsonl:5')?.instance, 'acme__widgets-505');
      assert.equal(withLine.stats.filesRead, 0);
    } finally {
      watch.close();
    }
  });
});

describe('an indexer with a cache folder, refreshed in one process', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let cacheDir: string;
  thirdPartyFiles.before(() => {
    folder = makeRolloutFolder();
    cacheDir = mkdtempSync(join(tmpdir(), 'swe-workbench-rollouts-cache-'));
  });
  thirdPartyFiles.after(() => {
    folder.cleanup();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  /** Changes a step count in the cache's last entry, which is read back only once something changes. */
  const editLastEntry = (file: string) => {
    const buf = readFileSync(file);
    const at = buf.lastIndexOf('"steps":') + '"steps":'.length;
    buf[at] = buf[at] === 0x39 ? 0x38 : buf[at]! + 1;
    writeFileSync(file, buf);
  };

  /** A cold indexer (a cache folder of its own) that counts the documents it imports. */
  const indexer = (root: string) => {
    const counter = { imports: 0 };
    const own = mkdtempSync(join(cacheDir, 'cold-'));
    const importTrajectory: IndexOptions['importTrajectory'] = (value, file, line) => {
      counter.imports++;
      return importRolloutTrajectory(value, file, line);
    };
    return { counter, own, indexer: new RolloutIndexer(root, { cacheDir: own, importTrajectory }) };
  };

  thirdPartyFiles.test('a file changed after the cold index is read alone, the rest joined from the cache', async () => {
    const root = join(folder.root, 'run');
    const { counter, indexer: ix } = indexer(root);
    const cold = await ix.refresh();
    assert.equal(cold.stats.filesRead, cold.stats.files);
    counter.imports = 0;
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-404', 3) + '\n');
    writeJson(
      root,
      'attempt_5/acme__widgets-101/acme__widgets-101.traj',
      sweAgentTraj({ instance: 'acme__widgets-101', steps: workSteps(4), exit: 'exit_cost', patch: '' }),
    );
    const next = await ix.refresh();
    assert.equal(counter.imports, 2);
    assert.deepEqual([next.stats.filesRead, next.stats.filesResumed, next.stats.filesCached], [1, 1, cold.stats.files - 1]);
    assert.equal(next.stats.cacheDiscarded, undefined);
    assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
    assert.deepEqual(next.errors, cold.errors);
    const added = next.rollouts.find((r) => r.path.startsWith('attempt_5/'));
    assert.deepEqual([added?.instance, added?.failure, added?.steps], ['acme__widgets-101', 'budget-exceeded', 4]);
  });

  thirdPartyFiles.test('a run being written keeps its entries in memory: its next change does not read the cache', async () => {
    const root = join(folder.root, 'run');
    const { own, indexer: ix } = indexer(root);
    await ix.refresh();
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-406', 2) + '\n');
    await ix.refresh();
    // Were the entries read back again, this edit would fail their checksum and the run be read whole.
    editLastEntry(cacheFile(own, root));
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-407', 2) + '\n');
    const next = await ix.refresh();
    assert.equal(next.stats.cacheDiscarded, undefined);
    assert.deepEqual([next.stats.filesRead, next.stats.filesResumed], [0, 1]);
    assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
  });

  thirdPartyFiles.test('rows handed off: an unchanged folder answers unchanged, a change the rows and text places of a fresh index', async () => {
    const root = join(folder.root, 'run');
    const { indexer: ix } = indexer(root);
    const fresh = () => indexRollouts(root, { cacheDir: mkdtempSync(join(cacheDir, 'fresh-')) });
    const placed = (index: Pick<RolloutIndex, 'rollouts' | 'text'>) => index.rollouts.every((r) => index.text?.ranges.has(r.id));
    const cold = await ix.refreshHandingOff();
    assert.ok(!cold.unchanged, 'the first answer holds the rows');
    assert.deepEqual(cold.rollouts, (await fresh()).rollouts);
    assert.ok(placed(cold));
    const again = await ix.refreshHandingOff();
    assert.deepEqual([again.unchanged, again.stats.filesRead, again.stats.filesCached], [true, 0, again.stats.files]);
    assert.deepEqual(again.errors, cold.errors);
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-408', 2) + '\n');
    const next = await ix.refreshHandingOff();
    assert.ok(!next.unchanged, 'a change answers with the rows');
    assert.deepEqual([next.stats.filesRead, next.stats.filesResumed], [0, 1]);
    assert.equal(next.rollouts.length, cold.rollouts.length + 1);
    assert.deepEqual(next.rollouts, (await fresh()).rollouts);
    assert.equal(next.text?.ranges.size, next.rollouts.length);
    assert.ok(placed(next));
    assert.equal((await ix.refreshHandingOff()).unchanged, true);
  });

  thirdPartyFiles.test('a new indexer given the key of the rows its caller holds sends them again only when the cache holds others', async () => {
    const root = join(folder.root, 'run');
    const own = mkdtempSync(join(cacheDir, 'held-'));
    const cold = await new RolloutIndexer(root, { cacheDir: own }).refreshHandingOff();
    assert.ok(!cold.unchanged && cold.key, 'a cold index with a cache names its rows');
    const held = await new RolloutIndexer(root, { cacheDir: own, held: cold.key }).refreshHandingOff();
    assert.deepEqual([held.unchanged, held.stats.filesRead, held.key], [true, 0, cold.key]);
    // Another indexer of the same cache (another window) saw the run change: its rows are not the caller's.
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-409', 2) + '\n');
    const other = await new RolloutIndexer(root, { cacheDir: own }).refreshHandingOff();
    assert.ok(!other.unchanged && other.key !== cold.key);
    const stale = await new RolloutIndexer(root, { cacheDir: own, held: cold.key }).refreshHandingOff();
    assert.ok(!stale.unchanged, 'rows the caller does not hold are sent');
    assert.deepEqual([stale.stats.filesRead, stale.key], [0, other.key]);
    assert.deepEqual(stale.rollouts, (await indexRollouts(root)).rollouts);
    assert.equal(stale.text?.ranges.size, stale.rollouts.length);
  });

  thirdPartyFiles.test('a cold index whose cache cannot be written fails, leaves no temporary file, and is read whole next time', async () => {
    const root = join(folder.root, 'run');
    const { own, indexer: ix } = indexer(root);
    // A folder where the cache file goes: the entries are written aside first, then the rename fails.
    mkdirSync(cacheFile(own, root));
    await assert.rejects(ix.refresh(), /EISDIR|ENOTEMPTY|EEXIST|illegal operation on a directory/);
    assert.deepEqual(
      readdirSync(own).filter((name) => name.endsWith('.tmp')),
      [],
    );
    rmdirSync(cacheFile(own, root));
    const next = await ix.refresh();
    assert.equal(next.stats.filesRead, next.stats.files);
    assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
    assert.deepEqual(
      readdirSync(own).filter((name) => name.endsWith('.tmp')),
      [],
    );
  });

  thirdPartyFiles.test('a cold index cancelled while it reads leaves no temporary file, and the next one reads the whole run', async () => {
    const root = join(folder.root, 'run');
    const { own, indexer: ix } = indexer(root);
    const controller = new AbortController();
    // Cancelled once two files are read: their entries are in the spool, the rest unread.
    const cancelled = ix.refresh(controller.signal, (p) => {
      if (p.done === 2) controller.abort('cancelled by the test');
    });
    await assert.rejects(cancelled, (error: unknown) => error instanceof CancelledError);
    assert.deepEqual(
      readdirSync(own).filter((name) => name.endsWith('.tmp')),
      [],
    );
    const next = await ix.refresh();
    assert.ok(next.stats.files > 2);
    assert.equal(next.stats.filesRead, next.stats.files);
    assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
  });

  test('a file whose cached entry is longer than a read of the cache is joined and read back whole', async () => {
    // A run of its own in a cache folder of its own: this test reads no third-party file, so it
    // runs (and must pass) in a clone without ../shared, where the suite's hooks are not run.
    const root = mkdtempSync(join(tmpdir(), 'swe-workbench-rollouts-long-entry-'));
    const own = mkdtempSync(join(tmpdir(), 'swe-workbench-rollouts-long-cache-'));
    try {
      // One JSONL file of 6,000 trajectories: its entry is one line of about 2 MB.
      writeFileSync(join(root, 'run.jsonl'), Array.from({ length: 6000 }, (_, i) => record(`acme__widgets-${i}`, 2)).join('\n') + '\n');
      writeFileSync(join(root, 'short.jsonl'), record('acme__gears-1', 3) + '\n');
      const cold = await new RolloutIndexer(root, { cacheDir: own }).refresh();
      const longest = Math.max(
        ...readFileSync(cacheFile(own, root), 'utf8')
          .split('\n')
          .map((line) => line.length),
      );
      assert.ok(longest > 1 << 20, `the longest cache line is ${longest} characters`);
      const inMemory = await indexRollouts(root);
      assert.equal(cold.rollouts.length, 6001);
      assert.deepEqual(cold.rollouts, inMemory.rollouts);
      // A change reads the entries back from the cache, the long one whole.
      appendFileSync(join(root, 'short.jsonl'), record('acme__gears-2', 3) + '\n');
      const warm = new RolloutIndexer(root, { cacheDir: own });
      const next = await warm.refresh();
      assert.deepEqual([next.stats.filesCached, next.stats.filesResumed], [1, 1]);
      assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(own, { recursive: true, force: true });
    }
  });

  thirdPartyFiles.test('a cache changed behind the indexer is not trusted: the run is read again', async () => {
    const root = join(folder.root, 'run');
    const { counter, own, indexer: ix } = indexer(root);
    const cold = await ix.refresh();
    assert.equal(cold.stats.filesRead, cold.stats.files);
    // The indexer keeps stat lines once the cache holds the entries, and reads them back on a change.
    editLastEntry(cacheFile(own, root));
    appendFileSync(join(root, 'attempt_4/deepswe.jsonl'), record('acme__widgets-405', 2) + '\n');
    counter.imports = 0;
    const next = await ix.refresh();
    assert.equal(next.stats.cacheDiscarded, 'cache entries do not match their checksum');
    assert.equal(next.stats.filesRead, next.stats.files);
    assert.ok(counter.imports > 1);
    assert.equal(next.rollouts.length, cold.rollouts.length + 1);
    assert.deepEqual(next.rollouts, (await indexRollouts(root)).rollouts);
  });
});
