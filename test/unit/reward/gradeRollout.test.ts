import '../../helpers/families';
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import { gradeRollout } from '../../../extension/core/reward/evaluate';
import { builtInRecipe } from '../../../extension/core/reward/recipes';
import type { Report } from '../../../extension/core/reward/reports';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { repoRoot } from '../../helpers/trajectoryFiles';

const demo = path.join(repoRoot, 'demo/trajectories/ledger-allocate.canonical.json');
const runReport = (listed: Partial<Record<'resolvedIds' | 'errorIds' | 'unresolvedIds', string[]>>): Report => ({
  kind: 'run',
  shape: 'swe-bench',
  summary: { total: 1, resolvedIds: [], unresolvedIds: [], errorIds: [], emptyPatchIds: [], ...listed },
});

describe('one grading path for a rollout (gradeRollout)', () => {
  test('a trajectory that records no reward and no report: the reward is unknown, not 0', async () => {
    const { trajectory } = await loadTrajectory(demo);
    const grading = gradeRollout({ trajectory: { trajectory, file: demo } });
    assert.equal(grading.kind, 'rollout');
    assert.equal(grading.reward.value, null);
    assert.ok(grading.kind === 'rollout' && grading.recordsNothing);
  });

  test("a run report's error_ids line masks the rollout, with and without a recipe; its resolved line is the reward", async () => {
    const { trajectory } = await loadTrajectory(demo);
    const id = trajectory.task.instanceId!;
    for (const recipe of [undefined, builtInRecipe('swe-bench')]) {
      const masked = gradeRollout({ trajectory: { trajectory, file: demo }, report: runReport({ errorIds: [id] }), reportFile: 'run.json', recipe });
      assert.equal(masked.reward.value, null);
      assert.match(masked.reward.mask?.reason ?? '', /run report run.json: listed in error_ids/);
    }
    const resolved = gradeRollout({ trajectory: { trajectory, file: demo }, report: runReport({ resolvedIds: [id] }), reportFile: 'run.json' });
    assert.deepEqual(resolved.reward.terms, [{ name: 'resolved', value: 1, rule: 'run report run.json: listed as resolved' }]);
    assert.equal(resolved.reward.value, 1);
  });

  test('a test output graded against the lists an instance report names, and an infra marker masks it', () => {
    const report: Report = {
      kind: 'instance',
      shape: 'swe-bench',
      instanceId: 'x',
      report: {
        resolved: true,
        tests_status: {
          FAIL_TO_PASS: { success: ['t.py::a'], failure: [] },
          PASS_TO_PASS: { success: ['t.py::b'], failure: [] },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    };
    const output = (text: string) => ({ text, file: 'out.txt', where: 'out.txt' });
    const graded = gradeRollout({ report, output: output('PASSED t.py::a\nFAILED t.py::b\n=== 1 failed, 1 passed in 0.10s ===\n') });
    assert.ok(graded.kind === 'tests' && graded.outcome.kind === 'graded');
    assert.equal(graded.reward.value, 0, 'PASS_TO_PASS broke: resolved 0');
    const voided = gradeRollout({ report, output: output('>>>>> Start Test Output\n>>>>> Tests Timed Out\n') });
    assert.equal(voided.reward.value, null);
    assert.equal(voided.reward.mask?.reason, 'infrastructure error: Tests Timed Out');
  });

  test('a test output file with no lists to grade it against is refused, naming the file', () => {
    assert.throws(
      () => gradeRollout({ output: { text: 'PASSED t.py::a\n', file: 'out.txt', where: 'out.txt' } }),
      (e: unknown) => e instanceof InputError && e.file === 'out.txt' && /no FAIL_TO_PASS \/ PASS_TO_PASS lists/.test(e.message),
    );
  });
});
