import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { ROLLOUT_FIELDS } from '../../../extension/core/rollouts/rolloutFields';
import { queryRollouts } from '../../../extension/core/rollouts/rolloutQuery';
import { TOKEN_REPORT_FILE, joinTokenReport, readTokenReport, writeTokenReport, type TokenMismatch } from '../../../extension/core/rollouts/tokenMismatch';

const rollout = (path: string, line?: number): Rollout => ({
  id: line === undefined ? path : `${path}:${line}`,
  path,
  line,
  instance: 'i',
  instanceSource: 'trajectory',
  attempt: 1,
  attemptSource: 'path-order',
  format: 'rllm',
  steps: 2,
  exitStatus: undefined,
  resolved: null,
  reward: undefined,
  failure: 'unknown',
  tags: [],
  evidence: { detail: '' },
  tokens: undefined,
  cost: undefined,
  duration: undefined,
  submitted: null,
  patchDigest: undefined,
  evaluation: undefined,
  prediction: undefined,
  critical: undefined,
});

const line = (name: string, over: Partial<TokenMismatch> = {}): TokenMismatch => ({
  rollout: name,
  steps: 2,
  errors: 0,
  tokens: 10,
  maxAbsDiff: 0.2,
  outside: 0,
  kl: 0.001,
  firstDrift: null,
  driftUnknown: 0,
  bounds: [0.8, 1.25],
  ...over,
});

describe('a run re-scored by tokens DIR --save', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(path.join(tmpdir(), 'swb-token-report-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('joins a file to its rollout and file#N to the Nth record of a JSONL file in line order', async () => {
    await writeTokenReport(dir, [line('a.json', { kl: 0.5, outside: 3 }), line('run.jsonl#1', { firstDrift: { step: 2, position: 7 } })]);
    assert.deepEqual(readdirSync(dir), [TOKEN_REPORT_FILE], 'no temporary file is left');
    const report = await readTokenReport(dir);
    assert.ok(report);
    const joined = joinTokenReport([rollout('run.jsonl', 9), rollout('a.json'), rollout('run.jsonl', 4), rollout('b.json')], report);
    assert.deepEqual(
      joined.map((r) => [r.id, r.mismatch?.kl ?? null, ROLLOUT_FIELDS.drift!.get(r) ?? null]),
      [
        ['run.jsonl:9', 0.001, 3],
        ['a.json', 0.5, null],
        ['run.jsonl:4', null, null],
        ['b.json', null, null],
      ],
    );
    // Filters and sorts on the columns; a rollout not re-scored is unknown, not 0.
    assert.deepEqual(
      queryRollouts(joined, { filter: 'kl>0.01' }).map((r) => r.id),
      ['a.json'],
    );
    assert.deepEqual(
      queryRollouts(joined, { filter: 'kl=unknown' }).map((r) => r.id),
      ['run.jsonl:4', 'b.json'],
    );
    assert.deepEqual(
      queryRollouts(joined, { sort: '-outside' }).map((r) => r.id),
      ['a.json', 'run.jsonl:9', 'run.jsonl:4', 'b.json'],
    );
  });

  test('two saves at once in one process (a worker and its host) both land, and the report is one of them whole', async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'swb-token-report-twice-'));
    try {
      const first = [line('a.json', { kl: 0.5 })];
      const second = [line('a.json', { kl: 0.25 }), line('b.json')];
      await Promise.all([writeTokenReport(own, first), writeTokenReport(own, second)]);
      assert.deepEqual(readdirSync(own), [TOKEN_REPORT_FILE], 'no temporary file is left');
      const report = await readTokenReport(own);
      assert.ok(report);
      assert.ok(
        [first, second].some((saved) => JSON.stringify([...report.values()]) === JSON.stringify(saved)),
        `the report is neither save whole: ${JSON.stringify([...report.values()])}`,
      );
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('a folder never re-scored has no report; a bad line is an error at its line', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'swb-token-report-'));
    try {
      assert.equal(await readTokenReport(empty), undefined);
      writeFileSync(path.join(empty, TOKEN_REPORT_FILE), `${JSON.stringify(line('a.json'))}\n${JSON.stringify({ ...line('b.json'), kl: 'high' })}\n`);
      await assert.rejects(readTokenReport(empty), (e: unknown) => e instanceof InputError && /line 2/.test(e.message) && /kl/.test(e.message));
      writeFileSync(path.join(empty, TOKEN_REPORT_FILE), '{"rollout": \n');
      await assert.rejects(readTokenReport(empty), (e: unknown) => e instanceof InputError && /line 1: not JSON/.test(e.message));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
