import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import { gradeTestOutput } from '../../../extension/core/reward/grading';
import { gradeStatuses } from '../../../extension/core/reward/resolution';
import { readTaskInstances, readTaskInstance } from '../../../extension/core/reward/rewardFiles';
import { parseReport } from '../../../extension/core/reward/reports';
import { readReport } from '../../../extension/core/reward/rewardFiles';
import { parseTestOutput } from '../../../extension/core/reward/testOutput';
import type { TestStatus } from '../../../extension/core/reward/testStatus';
import { isValidBug, validationLists } from '../../../extension/core/reward/validationLists';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const thirdParty = thirdPartyFiles.dir;
const sweSmith = path.join(thirdParty, 'swe-smith');
const instanceId = 'pandas-dev__pandas.95280573.pr_53652';

describe('grading a real SWE-smith evaluation', () => {
  thirdPartyFiles.test('agrees with the folder report.json exactly', async () => {
    const instance = await readTaskInstance(path.join(sweSmith, `${instanceId}.instance.json`));
    const log = readFileSync(path.join(sweSmith, 'run_evaluation', instanceId, 'test_output.txt'), 'utf8');
    const graded = gradeTestOutput(instance, log);
    const report = await readReport(path.join(sweSmith, 'run_evaluation', instanceId, 'report.json'));
    assert.equal(report.kind, 'instance');
    assert.equal(graded.kind, 'graded');
    if (graded.kind !== 'graded' || report.kind !== 'instance') return;
    assert.deepEqual(graded.tests, report.report.tests_status);
    assert.equal(graded.resolved, report.report.resolved);
    assert.equal(graded.resolution, 'FULL');
  });

  thirdPartyFiles.test('the validation outputs give the lists of run_validation/report.json', async () => {
    const reference = parseTestOutput(readFileSync(path.join(sweSmith, 'run_validation/test_output_pre_gold.txt'), 'utf8'));
    const bugged = parseTestOutput(readFileSync(path.join(sweSmith, 'run_validation/test_output.txt'), 'utf8'));
    const lists = validationLists(reference, bugged);
    const report = await readReport(path.join(sweSmith, 'run_validation/report.json'));
    assert.equal(report.kind, 'validation');
    if (report.kind === 'validation') assert.deepEqual(lists, report.lists);
    assert.equal(isValidBug(lists), true);
    assert.equal(lists.FAIL_TO_PASS.length, 2);
  });

  thirdPartyFiles.test('the run report of SWE-smith is read into the common summary', async () => {
    const report = await readReport(path.join(sweSmith, 'run_evaluation/report.json'));
    assert.equal(report.kind, 'run');
    if (report.kind !== 'run') return;
    assert.equal(report.summary.total, 53);
    assert.equal(report.summary.resolvedIds.length, 3);
    assert.ok(report.summary.resolvedIds.includes(instanceId));
  });
});

describe('grading rules', () => {
  const expected = { FAIL_TO_PASS: ['f1', 'f2'], PASS_TO_PASS: ['p1', 'p2'] };
  const grade = (entries: Record<string, TestStatus>) => gradeStatuses(expected, new Map(Object.entries(entries)));

  test('XFAIL passes both lists', () => {
    assert.equal(grade({ f1: 'XFAIL', f2: 'PASSED', p1: 'XFAIL', p2: 'PASSED' }).resolution, 'FULL');
  });

  test('SKIPPED fails FAIL_TO_PASS but keeps PASS_TO_PASS', () => {
    const g = grade({ f1: 'SKIPPED', f2: 'PASSED', p1: 'SKIPPED', p2: 'PASSED' });
    assert.deepEqual(g.tests.FAIL_TO_PASS.failure, ['f1']);
    assert.deepEqual(g.tests.PASS_TO_PASS.success, ['p1', 'p2']);
    assert.equal(g.resolution, 'PARTIAL');
  });

  test('a missing or erroring PASS_TO_PASS test makes it NO', () => {
    const g = grade({ f1: 'PASSED', f2: 'PASSED', p1: 'ERROR' });
    assert.deepEqual(g.tests.PASS_TO_PASS.failure, ['p1', 'p2']);
    assert.equal(g.resolution, 'NO');
    assert.equal(g.resolved, false);
  });

  test('no FAIL_TO_PASS passing is NO, not PARTIAL', () => {
    assert.equal(grade({ f1: 'FAILED', f2: 'FAILED', p1: 'PASSED', p2: 'PASSED' }).resolution, 'NO');
  });

  test('an infra failure is reported apart from a model failure', () => {
    const g = gradeTestOutput(expected, '>>>>> Start Test Output\n>>>>> Tests Timed Out\n');
    assert.deepEqual(g, { kind: 'infra-failure', reason: 'Tests Timed Out' });
  });

  test('a harness log that stopped before its tests (the patch did not apply) says so, not that no test was recognised', () => {
    const log = '+ git apply -v -\nerror: patch failed: src/ledger.py:12\n>>>>> Patch Apply Failed\n';
    assert.deepEqual(gradeTestOutput(expected, log), { kind: 'infra-failure', reason: 'Patch Apply Failed' });
  });
});

describe('instances and reports at the edge', () => {
  thirdPartyFiles.test('SWE-bench Lite instances with plain lists are read', async () => {
    const all = await readTaskInstances(path.join(thirdParty, 'swe-bench/swe-bench-lite-test.instances.json'));
    assert.equal(all.length, 5);
    assert.deepEqual(all[0]?.FAIL_TO_PASS, ['test_callable_sitemod_no_items (sitemaps_tests.test_http.HTTPSitemapTests)']);
  });

  test('a SWE-bench report wrapped by instance id is read, with infra fields', () => {
    const r = parseReport({
      'x__y-1': {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: false,
        infra_failure: true,
        infra_failure_reason: 'Tests Timed Out',
      },
    });
    assert.equal(r.kind === 'instance' && r.instanceId, 'x__y-1');
    assert.equal(r.kind === 'instance' && r.report.infra_failure, true);
  });

  test('a wrapped report with a wrong field says where', () => {
    assert.throws(
      () => parseReport({ 'x__y-1': { resolved: 'yes' } }, 'report.json'),
      (err: unknown) => err instanceof InputError && err.file === 'report.json' && err.where === '$["x__y-1"].resolved',
    );
  });
});

describe('run reports of SWE-bench', () => {
  test('the SWE-bench run report shape is read into the common summary', () => {
    const r = parseReport({
      total_instances: 4,
      submitted_instances: 3,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 1,
      completed_ids: ['a', 'b'],
      incomplete_ids: ['d'],
      empty_patch_ids: ['c'],
      submitted_ids: ['a', 'b', 'c'],
      resolved_ids: ['a'],
      unresolved_ids: ['b'],
      error_ids: ['c'],
      schema_version: 2,
    });
    assert.deepEqual(r, {
      kind: 'run',
      shape: 'swe-bench',
      summary: { total: 4, resolvedIds: ['a'], unresolvedIds: ['b'], errorIds: ['c'], emptyPatchIds: ['c'] },
    });
  });

  test('an object of no known shape is refused', () => {
    assert.throws(
      () => parseReport({ a: 1, b: 2 }, 'x.json'),
      (err: unknown) => err instanceof InputError && /not a SWE-bench or SWE-smith report/.test(err.problem),
    );
  });
});
