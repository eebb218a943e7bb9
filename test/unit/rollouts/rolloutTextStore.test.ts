import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RolloutIndexer, indexRollouts, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import { findRollouts, matchRollouts } from '../../../extension/core/rollouts/rolloutSearch';
import { searchRollouts } from '../../helpers/rolloutSearch';
import { matchInStore, storeAnswers } from '../../../extension/core/rollouts/textStore';
import { miniSweAgentTraj, r2eGymRecord, sweAgentTraj, workSteps, writeJson, writeJsonl, type StepSpec } from '../../fixtures/rollouts/runWriter';

/** Texts that trip a byte-level search: case that changes length, final sigma, emoji, NUL, a lone surrogate, text across steps and fields. */
const TRICKY: StepSpec[] = [
  { thought: 'İstanbul STRASSE Straße', action: 'grep -n "ΟΔΟΣ" src/ΣΟΦΙΑ.py', observation: 'found 🐍 snake\nline two ends here' },
  { thought: 'next step starts here', action: 'echo "\u0000nul\u0000"', observation: 'lone \ud800 surrogate and \ufffd replacement' },
  { thought: 'Thought ends', action: 'action begins', observation: 'ÅNGSTRÖM Ǆ ǅ ǆ ﬁ ligature' },
  // A capital sigma ending a text lower-cases to a final sigma, as at the end of any string.
  { thought: 'ΣΤΟ ΤΕΛΟΣ', action: 'ΣΑΣ', observation: 'ΟΔΟΣ' },
];

/** Queries that must find exactly what the search over the files finds. */
const QUERIES = [
  'straße',
  'STRASSE',
  'i̇stanbul',
  'İstanbul',
  'οδος',
  'ΟΔΟΣ',
  'σοφια',
  '🐍 SNAKE',
  'snake\nline',
  // Spans two steps (an observation's end and the next thought's start): no match.
  'ends here next step',
  'here\nnext',
  // Spans two texts of one step (a thought and its action): no match.
  'thought endsaction',
  'ends action',
  '\u0000nul',
  'nul\u0000"',
  '\ufffd replacement',
  '\ufffd',
  '\ud800',
  'lone \ud800 surrogate',
  'ǆ',
  'Ǆ ǅ',
  'ﬁ',
  'ångström',
  'τελος',
  'τελο\u03c2',
  'ΤΕΛΟΣ',
  'σας',
  '\u03c2 σας',
  'οδος',
  'resize',
  'python reproduce.py',
  'no such text anywhere',
  'e',
];

function writeRun(root: string): void {
  const steps = (i: number) => [...workSteps(2 + (i % 3)), ...(i % 2 === 0 ? TRICKY : TRICKY.slice(1)), ...workSteps(1)];
  for (let i = 0; i < 6; i++) {
    const instance = `acme__widgets-${100 + i}`;
    writeJson(root, `attempt_1/${instance}/${instance}.traj`, sweAgentTraj({ instance, steps: steps(i), exit: 'submitted', patch: '' }));
    writeJson(root, `attempt_2/${instance}/${instance}.traj.json`, miniSweAgentTraj({ instance, steps: steps(i + 1), exit: 'Submitted', patch: '' }));
  }
  writeJsonl(
    root,
    'attempt_3/deepswe.jsonl',
    Array.from({ length: 6 }, (_, i) => r2eGymRecord({ instance: `acme__widgets-${100 + i}`, steps: steps(i + 2), exit: 'agent', patch: '' })),
  );
}

describe('full-text search from the text store', () => {
  let root: string;
  let cacheDir: string;
  let plain: RolloutIndex;
  let stored: RolloutIndex;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-text-store-'));
    cacheDir = mkdtempSync(join(tmpdir(), 'swe-workbench-text-store-cache-'));
    writeRun(root);
    plain = await indexRollouts(root);
    stored = await indexRollouts(root, { cacheDir });
    assert.equal(plain.text, undefined);
    assert.equal(stored.text?.ranges.size, 18);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(cacheDir, { recursive: true, force: true });
  });

  test('finds what reading every file finds: the same hits, steps, fields and excerpts', async () => {
    for (const query of QUERIES) {
      const expected = await searchRollouts(root, plain.rollouts, query);
      assert.deepEqual(await searchRollouts(root, stored.rollouts, query, { text: stored.text! }), expected, JSON.stringify(query));
      const ids = new Set(expected.map((h) => h.rollout));
      assert.deepEqual(await matchRollouts(root, stored.rollouts, query, { text: stored.text! }), ids, JSON.stringify(query));
      // The store alone (no file read, no fallback) for every needle it answers exactly.
      const needle = query.toLowerCase();
      if (storeAnswers(needle)) assert.deepEqual((await matchInStore(stored.text!, stored.rollouts, needle)).matches, ids, JSON.stringify(query));
    }
  });

  test('the tricky queries do what a person expects', async () => {
    const count = async (q: string) => (await matchRollouts(root, stored.rollouts, q, { text: stored.text! })).size;
    assert.equal(await count('ends here next step'), 0);
    assert.equal(await count('thought endsaction'), 0);
    assert.equal(await count('straße'), 9);
    assert.equal(await count('🐍 SNAKE'), 9);
    assert.equal(await count('ﬁ'), 18);
    assert.equal(await count('\ud800'), 18);
  });

  test('a warm index in a fresh indexer answers from the store it finds beside the cache', async () => {
    const warm = await new RolloutIndexer(root, { cacheDir }).refresh();
    assert.equal(warm.stats.filesCached, warm.stats.files);
    const { rows } = await findRollouts(warm, { search: 'STRASSE', sort: 'id' });
    const { rows: expected } = await findRollouts(plain, { search: 'STRASSE', sort: 'id' });
    assert.deepEqual(
      rows.map((r) => r.id),
      expected.map((r) => r.id),
    );
  });

  test('a changed file, a new record and a removed file are searched as they are now', async () => {
    const indexer = new RolloutIndexer(root, { cacheDir });
    await indexer.refresh();
    const instance = 'acme__widgets-100';
    writeJson(
      root,
      `attempt_1/${instance}/${instance}.traj`,
      sweAgentTraj({ instance, steps: [{ thought: 'a brand NEW thought', action: 'ls', observation: '' }], exit: 'submitted', patch: '' }),
    );
    appendFileSync(
      join(root, 'attempt_3/deepswe.jsonl'),
      JSON.stringify(r2eGymRecord({ instance, steps: [{ thought: 'appended zebra', action: 'ls', observation: 'Zebra' }], exit: 'agent', patch: '' })) + '\n',
    );
    rmSync(join(root, `attempt_2/${instance}`), { recursive: true });
    const index = await indexer.refresh();
    const now = await indexRollouts(root);
    for (const query of ['brand new', 'zebra', 'straße', 'İstanbul', 'resize']) {
      const expected = await searchRollouts(root, now.rollouts, query);
      assert.deepEqual(await searchRollouts(root, index.rollouts, query, { text: index.text! }), expected, query);
    }
    assert.deepEqual([...(await matchRollouts(root, index.rollouts, 'zebra', { text: index.text! }))], ['attempt_3/deepswe.jsonl:7']);
    // The store the cache named before is gone: one store per cache.
    assert.equal(readdirSync(cacheDir).filter((f) => f.endsWith('.text')).length, 1);
    // A fresh process finds the same from the new cache.
    const warm = await new RolloutIndexer(root, { cacheDir }).refresh();
    assert.equal(warm.stats.filesCached, warm.stats.files);
    assert.deepEqual(await matchRollouts(root, warm.rollouts, 'brand new', { text: warm.text! }), new Set([`attempt_1/${instance}/${instance}.traj`]));
  });

  test('a file rewritten again and again leaves one copy of its text in the store, as a fresh index writes it', async () => {
    const indexer = new RolloutIndexer(root, { cacheDir });
    await indexer.refresh();
    const instance = 'acme__widgets-101';
    for (let round = 0; round < 3; round++) {
      const steps = [...workSteps(4), { thought: `round ${round}`, action: 'ls', observation: 'x'.repeat(1000 * (round + 1)) }];
      writeJson(root, `attempt_1/${instance}/${instance}.traj`, sweAgentTraj({ instance, steps, exit: 'submitted', patch: '' }));
      await indexer.refresh();
    }
    const storeSize = (dir: string) =>
      statSync(
        join(
          dir,
          readdirSync(dir).find((f) => f.endsWith('.text'))!,
        ),
      ).size;
    const fresh = mkdtempSync(join(tmpdir(), 'swe-workbench-text-store-fresh-'));
    try {
      const index = await indexRollouts(root, { cacheDir: fresh });
      assert.equal(storeSize(cacheDir), storeSize(fresh));
      assert.deepEqual(await matchRollouts(root, index.rollouts, 'round 2', { text: index.text! }), new Set([`attempt_1/${instance}/${instance}.traj`]));
      const again = await new RolloutIndexer(root, { cacheDir }).refresh();
      assert.deepEqual(await matchRollouts(root, again.rollouts, 'round 1', { text: again.text! }), new Set());
      assert.deepEqual(await matchRollouts(root, again.rollouts, 'round 2', { text: again.text! }), new Set([`attempt_1/${instance}/${instance}.traj`]));
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  test('a lone surrogate at the end of one trajectory and the start of the next keeps every later text in place', async () => {
    const run = mkdtempSync(join(tmpdir(), 'swe-workbench-text-store-surrogates-'));
    const cache = mkdtempSync(join(tmpdir(), 'swe-workbench-text-store-surrogates-cache-'));
    try {
      const record = (instance: string, first: string, last: string) =>
        r2eGymRecord({
          instance,
          steps: [
            { thought: first, action: 'ls', observation: 'ok' },
            { thought: 'then', action: 'cat', observation: last },
          ],
          exit: 'agent',
          patch: '',
        });
      writeJsonl(run, 'deepswe.jsonl', [
        record('acme__widgets-1', 'start', 'ends high \ud83d'),
        record('acme__widgets-2', '\ude00 starts low', 'ok'),
        ...Array.from({ length: 5 }, (_, i) => record(`acme__widgets-${3 + i}`, `needle ${i} here`, 'done')),
      ]);
      const index = await indexRollouts(run, { cacheDir: cache });
      const queries = ['needle 3', 'needle', 'ends high', 'starts low', '\ud83d\ude00', 'done'];
      const expected = await Promise.all(queries.map(async (q) => new Set((await searchRollouts(run, index.rollouts, q)).map((h) => h.rollout))));
      // With the file gone only the store can answer: a text out of place would show.
      rmSync(join(run, 'deepswe.jsonl'));
      for (const [i, query] of queries.entries()) assert.deepEqual(await matchRollouts(run, index.rollouts, query, { text: index.text! }), expected[i], query);
      assert.equal(expected[1]!.size, 5);
    } finally {
      rmSync(run, { recursive: true, force: true });
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test('a store gone or changed behind the index is not trusted: the run is read again', async () => {
    const store = () =>
      join(
        cacheDir,
        readdirSync(cacheDir).find((f) => f.endsWith('.text'))!,
      );
    appendFileSync(store(), 'more');
    const grown = await new RolloutIndexer(root, { cacheDir }).refresh();
    assert.match(grown.stats.cacheDiscarded ?? '', /^text store .* changed size$/);
    assert.equal(grown.stats.filesRead, grown.stats.files);
    rmSync(store());
    const missing = await new RolloutIndexer(root, { cacheDir }).refresh();
    assert.match(missing.stats.cacheDiscarded ?? '', /^text store .* is missing$/);
    const expected = await searchRollouts(root, (await indexRollouts(root)).rollouts, 'straße');
    assert.deepEqual(await searchRollouts(root, missing.rollouts, 'straße', { text: missing.text! }), expected);
  });

  test('a search whose store was replaced meanwhile reads the files instead', async () => {
    const index = await new RolloutIndexer(root, { cacheDir }).refresh();
    const gone = { store: join(cacheDir, 'no-such.text'), ranges: index.text!.ranges };
    const expected = await searchRollouts(root, index.rollouts, 'resize');
    assert.deepEqual(await searchRollouts(root, index.rollouts, 'resize', { text: gone }), expected);
    writeFileSync(join(cacheDir, 'short.text'), 'x');
    assert.deepEqual(
      await matchRollouts(root, index.rollouts, 'resize', { text: { store: join(cacheDir, 'short.text'), ranges: index.text!.ranges } }),
      new Set(expected.map((h) => h.rollout)),
    );
  });
});
