import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { command as tokens } from '../../../extension/cli/tokens';
import { InputError } from '../../../extension/core/errors';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { S3, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';
import { runCli } from '../../helpers/cliRunner';

/**
 * One name per rollout: a JSONL file's record is `file:LINE` (its 1-based line) in the index,
 * the loader, and `swe-workbench tokens DIR`, whatever the blank or broken lines before it.
 * The demo's run has both: line 3 of rllm/episodes.jsonl is cut off, so line 4 is its third record.
 */
describe('a rollout has one name', () => {
  let root: string;
  let server: PolicyServer | undefined;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-names-'));
    writeTrainingRun(root);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('the loader reads a record by the line the index names it with', async () => {
    const index = await indexRollouts(root);
    const episodes = index.rollouts.filter((r) => r.path === 'rllm/episodes.jsonl').map((r) => r.id);
    assert.deepEqual(episodes, ['rllm/episodes.jsonl:1', 'rllm/episodes.jsonl:2', 'rllm/episodes.jsonl:4']);
    const fourth = await loadTrajectory(join(root, 'rllm/episodes.jsonl'), { line: 4 });
    assert.equal(fourth.trajectory.task.instanceId, S3);
    assert.deepEqual([fourth.line, fourth.record, fourth.records], [4, 3, 4]);
    assert.equal((await loadTrajectory(join(root, 'attempt_4/deepswe.jsonl'), { line: 3 })).record, 2);
    await assert.rejects(loadTrajectory(join(root, 'attempt_4/deepswe.jsonl'), { line: 9 }), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.match(e.message, /line 9: no JSON record on this line: the file holds 3 JSON lines/);
      return true;
    });
  });

  test('tokens DIR names the rollouts as the index does, and counts no report or preds.json as one', async () => {
    server = await startPolicyServer([]);
    const r = await runCli(tokens, [root, '--policy', server.url, '--json', '--no-drift']);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { rollout?: string; error?: string; summary?: { rollouts: number; unreadable: number } });
    const named = new Set(out.flatMap((l) => (l.rollout ? [l.rollout] : [])));
    const index = await indexRollouts(root);
    const expected = new Set([...index.rollouts.map((x) => x.id), ...index.errors.map((e) => e.file + (e.line !== undefined ? `:${e.line}` : ''))]);
    assert.deepEqual([...named].sort(), [...expected].sort());
    assert.ok(named.has('attempt_4/deepswe.jsonl:3'));
    assert.ok(![...named].some((n) => /preds\.json|report\.json|acme-coder-7b\.attempt_\d\.json/.test(n)), [...named].join(', '));
    const { summary } = out.at(-1)!;
    assert.deepEqual([summary!.rollouts, summary!.unreadable], [index.rollouts.length, index.errors.length]);
  });
});
