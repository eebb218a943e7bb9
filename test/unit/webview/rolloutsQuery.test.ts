import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { rolloutsRows } from '../../../extension/protocol/rollouts';
import { safeParse } from '../../../extension/protocol/ipc';
import { queryRollouts as coreQuery, runStatistics } from '../../../extension/core/rollouts/rolloutQuery';
import { findRollouts } from '../../../extension/core/rollouts/rolloutSearch';
import type { RolloutQuery } from '../../../extension/protocol/rollouts';
import { gradingConflictIndex, gradingConflictsShown, querySpec, toRolloutRow } from '../../../extension/views/rolloutTable';
import { groupRollouts } from '../../../extension/core/rollouts/rolloutGroups';

// The table's path: its query in the core's terms, then the core's pipeline and statistics.
const queryRollouts = (rollouts: readonly Rollout[], query: RolloutQuery) => coreQuery(rollouts, querySpec(query));
const groupStatistics = (rows: readonly Rollout[]) => runStatistics(rows).statistics;
import { G7, S3, W101, W202, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';

const none = { sort: null, filter: '', search: '' };

describe('the rollouts table query over a generated training run', () => {
  let root: string;
  let rollouts: Rollout[];

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-rollouts-table-'));
    writeTrainingRun(root);
    rollouts = (await indexRollouts(root)).rollouts;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test("a grading conflict is the whole run's: a filter showing one side of it keeps it, and each rollout it names carries its line", () => {
    const index = gradingConflictIndex(groupRollouts(rollouts));
    const w101 = `identical patch graded both ways: resolved attempt_1/${W101}/${W101}.traj, attempt_4/deepswe.jsonl:1; not resolved attempt_2/${W101}/${W101}.traj`;
    assert.deepEqual(
      gradingConflictsShown(index, rollouts).map((c) => c.instance),
      [G7, W101],
    );
    // Only W101's unresolved attempt shown: its group's conflict still reads, naming both sides.
    const shown = queryRollouts(rollouts, { ...none, filter: `instance=${W101} and resolved=no` });
    assert.deepEqual(gradingConflictsShown(index, shown), [{ instance: W101, line: w101 }]);
    assert.equal(toRolloutRow(shown[0]!, undefined, index.byRollout.get(shown[0]!.id)).gradingConflict, w101);
    assert.equal(index.byRollout.has(`attempt_3/${W101}/${W101}.traj.json`), false, 'an attempt without the patch is in no conflict');
  });

  test('without a query, every rollout in index order', () => {
    assert.equal(queryRollouts(rollouts, none).length, 15);
  });

  test("the core's filter narrows the rows", () => {
    const rows = queryRollouts(rollouts, { ...none, filter: `instance=${W202} and steps>20` });
    assert.deepEqual(
      rows.map((r) => r.steps).sort((a, b) => a - b),
      [30, 40],
    );
  });

  test("an invalid filter throws the core's message with its column", () => {
    assert.throws(() => queryRollouts(rollouts, { ...none, filter: 'steps>>5' }), /column 7.*steps is a number|expected a value/);
    assert.throws(() => queryRollouts(rollouts, { ...none, filter: 'colour=red' }), /unknown field 'colour'/);
  });

  test('sorts by a column in both directions, missing values last', () => {
    const down = queryRollouts(rollouts, { ...none, sort: { column: 'steps', descending: true } });
    assert.deepEqual(
      down.slice(0, 3).map((r) => r.steps),
      [40, 30, 12],
    );
    const up = queryRollouts(rollouts, { ...none, sort: { column: 'cost', descending: false } });
    const costs = up.map((r) => r.cost);
    const known = costs.filter((c): c is number => c !== undefined);
    assert.deepEqual(
      known,
      [...known].sort((a, b) => a - b),
    );
    assert.ok(known.includes(3) && known.includes(0.42));
    assert.deepEqual(
      costs.slice(known.length),
      costs.slice(known.length).map(() => undefined),
    );
  });

  test('a search reads only the rollouts the filter kept, and keeps only those it found', async () => {
    const searched: string[] = [];
    // Stands in for the full-text search: says what it was given, finds every G7 rollout in it.
    const search = async (given: readonly Rollout[]) => {
      searched.push(...given.map((r) => r.id));
      return given.filter((r) => r.instance === G7).map((r) => ({ rollout: r.id, step: 0, field: 'thought' as const, excerpt: '' }));
    };
    const query = { filter: `instance=${G7} or instance=${S3}`, search: 'x', sort: { column: 'attempt' as const, descending: false } };
    const { rows } = await findRollouts({ root, rollouts }, querySpec(query), { search });
    assert.deepEqual(
      rows.map((r) => r.instance),
      [G7, G7, G7, G7],
    );
    assert.deepEqual(new Set(searched), new Set(rollouts.filter((r) => r.instance === G7 || r.instance === S3).map((r) => r.id)));
  });

  test('a bad filter or sort is refused before the search reads any file', async () => {
    let searches = 0;
    const search = async () => (searches++, []);
    await assert.rejects(findRollouts({ root, rollouts }, { filter: 'steps>>5', search: 'x' }, { search }), /column 7/);
    await assert.rejects(findRollouts({ root, rollouts }, { search: 'x', sort: 'colour' }, { search }), /unknown field 'colour'/);
    assert.equal(searches, 0);
  });

  test('group statistics of the three rLLM episodes: 2 of 3 solved, pass@2 = 1, mixed', () => {
    const s = groupStatistics(queryRollouts(rollouts, { ...none, filter: `instance=${S3}` }));
    assert.equal(s.rollouts, 3);
    assert.equal(s.instances, 1);
    assert.equal(s.resolved, 2);
    assert.equal(s.evaluated, 3);
    assert.equal(s.solveRate, 2 / 3);
    assert.deepEqual(
      s.passAtK.map((p) => [p.k, Math.round(p.value * 1000) / 1000, p.instances]),
      [
        [1, 0.667, 1],
        [2, 1, 1],
        [3, 1, 1],
      ],
    );
    assert.equal(s.mixed, 1);
  });

  test('a row carries the columns and the status icon of its rollout', () => {
    const first = rollouts.find((r) => r.path === `attempt_1/${W101}/${W101}.traj`);
    assert.ok(first);
    const row = toRolloutRow(first);
    assert.equal(row.instance, W101);
    assert.equal(row.steps, 6);
    assert.equal(row.cost, 0.42);
    assert.equal(row.tokens, 53800);
    assert.equal(row.status, 'resolved');
    assert.equal(row.failure, 'resolved');
  });

  test('the protocol refuses a range larger than a page or running backwards', () => {
    assert.equal(safeParse(rolloutsRows.params, { query: none, start: 0, end: 501 }).success, false);
    assert.equal(safeParse(rolloutsRows.params, { query: none, start: 10, end: 5 }).success, false);
    assert.equal(safeParse(rolloutsRows.params, { query: none, start: 0, end: 500 }).success, true);
  });

  test('a rollout nothing graded says "not graded", not failure class "unknown"; a graded one keeps its class', () => {
    const failedUngradedPatch = rollouts.find((r) => r.id === 'rllm/episodes.jsonl:2')!;
    assert.deepEqual([failedUngradedPatch.failure, failedUngradedPatch.resolved], ['unknown', false]);
    assert.equal(toRolloutRow(failedUngradedPatch).failure, 'unknown', 'graded (not resolved) but of no known class');
    assert.equal(toRolloutRow({ ...failedUngradedPatch, resolved: null, reward: undefined }).failure, 'not graded');
  });
});
