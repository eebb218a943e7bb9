import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gradeTestOutput } from '../../../extension/core/reward/grading';
import { gradeStatuses } from '../../../extension/core/reward/resolution';
import { patchSimilarityReward } from '../../../extension/core/reward/patchSimilarity';
import {
  exactMapReward,
  forcedSubmissionReward,
  injectorReward,
  maskedFinishReward,
  overlongStepsReward,
  resolveReward,
  solverReward,
} from '../../../extension/core/reward/shapes';
import type { TestStatus } from '../../../extension/core/reward/testStatus';

const map = (o: Record<string, TestStatus>) => new Map(Object.entries(o));
const termOf = (r: { terms: { name: string; value: number | null }[] }, name: string) => r.terms.find((t) => t.name === name)?.value;

describe('binary resolve', () => {
  test('FULL is 1 and the terms show both lists', () => {
    const r = resolveReward(gradeStatuses({ FAIL_TO_PASS: ['f'], PASS_TO_PASS: ['p', 'q'] }, map({ f: 'PASSED', p: 'PASSED', q: 'SKIPPED' })));
    assert.equal(r.value, 1);
    assert.equal(termOf(r, 'FAIL_TO_PASS passing'), 1);
    assert.equal(termOf(r, 'resolution FULL'), 1);
  });
  test('PARTIAL is 0', () => {
    const r = resolveReward(gradeStatuses({ FAIL_TO_PASS: ['f', 'g'], PASS_TO_PASS: [] }, map({ f: 'PASSED', g: 'FAILED' })));
    assert.equal(r.value, 0);
    assert.equal(termOf(r, 'FAIL_TO_PASS passing'), 0.5);
    assert.equal(termOf(r, 'resolution PARTIAL'), 0);
  });
  test('an infra failure is masked, not counted as a failure', () => {
    const r = resolveReward(gradeTestOutput({ FAIL_TO_PASS: [], PASS_TO_PASS: [] }, '>>>>> Start Test Output\n>>>>> Tests Timed Out\n'));
    assert.deepEqual(r.masked, { reason: 'infrastructure error: Tests Timed Out', code: 'evaluation_error' });
  });
});

describe('R2E exact map', () => {
  test('equal maps give 1; one differing status gives 0 with the count', () => {
    assert.equal(exactMapReward(map({ a: 'PASSED', b: 'FAILED' }), map({ b: 'FAILED', a: 'PASSED' })).value, 1);
    const r = exactMapReward(map({ a: 'PASSED', b: 'FAILED' }), map({ a: 'PASSED', b: 'PASSED', c: 'PASSED' }));
    assert.equal(r.value, 0);
    assert.equal(termOf(r, 'statuses differing'), 1);
    assert.equal(termOf(r, 'tests not expected'), 1);
  });
});

describe('SWE-RL patch similarity', () => {
  const gold = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x\n+    return x + 1\n';
  test('the gold patch itself scores 1', () => {
    assert.equal(patchSimilarityReward(gold, gold).value, 1);
  });
  test('a malformed or empty prediction scores -1', () => {
    assert.equal(patchSimilarityReward(gold, 'I fixed it!').value, -1);
    assert.equal(patchSimilarityReward(gold, '').value, -1);
    assert.equal(patchSimilarityReward(gold, undefined).value, -1);
  });
  test('a file the gold does not touch scores 0 and halves the mean', () => {
    const other = gold.replaceAll('m.py', 'n.py');
    const r = patchSimilarityReward(gold, gold + other);
    assert.equal(termOf(r, 'similarity m.py'), 1);
    assert.equal(termOf(r, 'similarity n.py'), 0);
    assert.equal(r.value, 0.5);
  });
  test('a close prediction scores between 0 and 1', () => {
    const v = patchSimilarityReward(gold, gold.replace('x + 1', 'x - 1')).value;
    assert.ok(v > 0.9 && v < 1, String(v));
  });
});

describe('SSR injector and solver', () => {
  test('inconsistent < trivial/impossible < edge of ability', () => {
    const inconsistent = injectorReward(false, 0, 0).value;
    const impossible = injectorReward(true, 0, 8).value;
    const trivial = injectorReward(true, 8, 8).value;
    const edge = injectorReward(true, 3, 8).value;
    assert.equal(inconsistent, -1);
    assert.equal(impossible, -0.8);
    assert.equal(trivial, -0.8);
    assert.equal(edge, 1 - 1.8 * (3 / 8));
    assert.ok(inconsistent < impossible && impossible < edge);
  });
  test('alpha and shape are settings and show in the terms', () => {
    const r = injectorReward(true, 4, 8, { alpha: 0.5, shape: 'peaked' });
    assert.equal(r.value, 1);
    assert.equal(termOf(r, 'solve rate'), 0.5);
    assert.equal(injectorReward(true, 0, 4, { alpha: 0.3 }).value, -0.3);
  });
  test('solver: 1 only when no test fails', () => {
    assert.equal(solverReward(map({ a: 'PASSED', b: 'SKIPPED' })).value, 1);
    const r = solverReward(map({ a: 'PASSED', b: 'ERROR' }));
    assert.equal(r.value, 0);
    assert.equal(termOf(r, 'tests failing'), 1);
    assert.equal(solverReward(map({})).value, 0);
  });
});

describe('SWE-Master, Nebius, SkyRL, DeepSWE', () => {
  test('a correct patch forced out by the turn limit earns alpha = 0.5', () => {
    assert.equal(forcedSubmissionReward({ resolved: true, truncated: true }).value, 0.5);
    assert.equal(forcedSubmissionReward({ resolved: true, truncated: false }).value, 1);
    assert.equal(forcedSubmissionReward({ resolved: false, truncated: true }).value, 0);
    assert.equal(forcedSubmissionReward({ resolved: false, truncated: false, infraError: 'container died' }).masked?.reason, 'container error: container died');
  });
  test('the overlong penalty starts at the threshold and reaches the maximum', () => {
    const opts = { threshold: 40, maxSteps: 60, maxPenalty: 0.5 };
    assert.equal(overlongStepsReward({ resolved: true, steps: 40 }, opts).value, 1);
    assert.equal(overlongStepsReward({ resolved: true, steps: 50 }, opts).value, 0.75);
    assert.equal(overlongStepsReward({ resolved: true, steps: 90 }, opts).value, 0.5);
    assert.equal(termOf(overlongStepsReward({ resolved: false, steps: 60 }, opts), 'overlong steps'), -0.5);
  });
  test('SkyRL masks its finish reasons and keeps the rest', () => {
    assert.equal(maskedFinishReward({ resolved: false, finishReason: 'context_exceeded' }).masked?.reason, 'context window exceeded');
    assert.equal(maskedFinishReward({ resolved: false, finishReason: 'submitted' }).masked, undefined);
    assert.equal(maskedFinishReward({ resolved: false, finishReason: 'stuck_in_loop' }, ['max_steps']).masked, undefined);
  });
});
