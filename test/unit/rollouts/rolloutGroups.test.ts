import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gradingConflictLines, groupRollouts, passAtK, type RolloutGroup } from '../../../extension/core/rollouts/rolloutGroups';
import { patchDigest } from '../../../extension/core/rollouts/patchDigest';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { G7, S3, W101, W202, makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const close = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);

describe('pass@k', () => {
  test('matches 1 - C(n-c, k) / C(n, k) worked by hand', () => {
    // n=4, c=2: pass@1 = 2/4; pass@2 = 1 - C(2,2)/C(4,2) = 1 - 1/6; pass@3 = 1 (only 2 failures to draw).
    close(passAtK(4, 2, 1), 0.5);
    close(passAtK(4, 2, 2), 5 / 6);
    close(passAtK(4, 2, 3), 1);
    // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252 = 11/12.
    close(passAtK(10, 3, 5), 11 / 12);
    close(passAtK(5, 0, 5), 0);
    close(passAtK(5, 5, 1), 1);
  });

  test('stays exact where the binomials overflow a double', () => {
    // n=2000, c=3, k=1000: 1 - (1000*999*998)/(2000*1999*1998); C(2000,1000) is about 1e600.
    close(passAtK(2000, 3, 1000), 1 - (1000 * 999 * 998) / (2000 * 1999 * 1998));
    close(passAtK(2000, 1, 1), 1 / 2000);
  });

  test('rejects k outside 1..n and c outside 0..n', () => {
    assert.throws(() => passAtK(4, 2, 5), /1 <= k <= n \(n=4, c=2, k=5\)/);
    assert.throws(() => passAtK(4, 5, 1), RangeError);
    assert.throws(() => passAtK(4, 1, 0), RangeError);
  });
});

describe('groups of the generated training run', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let groups: Map<string, RolloutGroup>;
  thirdPartyFiles.before(async () => {
    folder = makeRolloutFolder();
    const index = await indexRollouts(`${folder.root}/run`);
    groups = new Map(groupRollouts(index.rollouts).map((g) => [g.instance, g]));
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test('one group per instance, in instance order', () => {
    assert.deepEqual([...groups.keys()], [G7, S3, W101, W202]);
  });

  thirdPartyFiles.test('W101: 2 of 4 resolved, mixed, pass@k = 1/2, 5/6, 1, 1', () => {
    const g = groups.get(W101)!;
    assert.deepEqual([g.rollouts, g.evaluated, g.resolved, g.mixed], [4, 4, 2, true]);
    close(g.solveRate!, 0.5);
    assert.equal(g.passAtK.length, 4);
    [0.5, 5 / 6, 1, 1].forEach((p, i) => close(g.passAtK[i], p));
    assert.deepEqual(g.failures, { resolved: 2, 'submitted-wrong': 1, 'budget-exceeded': 1 });
  });

  thirdPartyFiles.test('G7: the infra error has no verdict, so n = 3 and c = 1: pass@k = 1/3, 2/3, 1', () => {
    const g = groups.get(G7)!;
    assert.deepEqual([g.rollouts, g.evaluated, g.resolved, g.mixed], [4, 3, 1, true]);
    // pass@2 = 1 - C(2,2)/C(3,2) = 1 - 1/3.
    [1 / 3, 2 / 3, 1].forEach((p, i) => close(g.passAtK[i], p));
  });

  thirdPartyFiles.test('W202: nothing resolved, not mixed, pass@k all 0', () => {
    const g = groups.get(W202)!;
    assert.deepEqual([g.evaluated, g.resolved, g.mixed, g.solveRate], [4, 0, false, 0]);
    assert.deepEqual(g.passAtK, [0, 0, 0, 0]);
    assert.deepEqual(g.failures, { 'context-exceeded': 1, 'stuck-loop': 1, 'format-error': 1, 'max-steps': 1 });
  });

  thirdPartyFiles.test('S3 (rLLM is_correct): 2 of 3, pass@2 = 1 - C(1,2)/C(3,2) = 1', () => {
    const g = groups.get(S3)!;
    assert.deepEqual([g.evaluated, g.resolved, g.mixed], [3, 2, true]);
    [2 / 3, 1, 1].forEach((p, i) => close(g.passAtK[i], p));
  });
});

describe('the same patch graded both ways', () => {
  const rollout = (id: string, patch: string | undefined, resolved: boolean | null) =>
    ({ id, instance: 'i', resolved, failure: resolved ? 'resolved' : 'submitted-wrong', patchDigest: patchDigest(patch) }) as Rollout;
  const fix = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n';

  test('is named with the rollouts on each side; a patch graded one way, or not graded, is no conflict', () => {
    const [g] = groupRollouts([
      rollout('a', fix, true),
      // The same text as a JSON writer on Windows leaves it, with a trailing newline more.
      rollout('b', fix.replace(/\n/g, '\r\n') + '\n', false),
      rollout('c', fix, true),
      rollout('d', fix, null),
      rollout('e', fix.replace('x = 2', 'x  = 2'), false),
      rollout('f', undefined, false),
    ]);
    assert.deepEqual(g!.gradingConflicts, [{ patchDigest: patchDigest(fix), resolved: ['a', 'c'], unresolved: ['b'] }]);
    assert.deepEqual(gradingConflictLines(g!), ['identical patch graded both ways: resolved a, c; not resolved b']);
    const [agreed] = groupRollouts([rollout('a', fix, false), rollout('e', fix.replace('x = 2', 'x  = 2'), true)]);
    assert.deepEqual(agreed!.gradingConflicts, []);
  });
});
