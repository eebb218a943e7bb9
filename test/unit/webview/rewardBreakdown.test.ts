import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildRewardBreakdown } from '../../../extension/vscode/reward/rewardBreakdown';
import { chartScale } from '../../../webview/reward/chartScale';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const instanceDir = thirdPartyFiles.path('swe-smith/run_evaluation/pandas-dev__pandas.95280573.pr_53652');
const testOutput = path.join(instanceDir, 'test_output.txt');
const report = path.join(instanceDir, 'report.json');
const PYARROW_DF = 'pandas/tests/indexing/test_datetime.py::TestDatetimeIndex::test_getitem_pyarrow_index[DataFrame]';

describe('the reward breakdown', () => {
  thirdPartyFiles.test("SWE-smith's pandas evaluation graded from its test output agrees with its report.json", async () => {
    const b = await buildRewardBreakdown({ testOutput, report });
    assert.equal(b.resolution, 'FULL');
    assert.equal(b.value, 1);
    assert.deepEqual(b.report && { agrees: b.report.agrees, resolved: b.report.resolved }, { agrees: true, resolved: true });
    assert.deepEqual(
      b.terms.map((t) => [t.name, t.value]),
      [
        ['FAIL_TO_PASS passing', 1],
        ['PASS_TO_PASS passing', 1],
        ['resolution FULL', 1],
      ],
    );
    const f2p = b.lists.find((l) => l.name === 'FAIL_TO_PASS');
    assert.deepEqual(
      f2p?.tests.find((t) => t.id === PYARROW_DF),
      { id: PYARROW_DF, passed: true, line: 153 },
      'line 153 of test_output.txt reports it PASSED',
    );
    assert.equal(b.title, 'Reward: pandas-dev__pandas.95280573.pr_53652');
  });

  thirdPartyFiles.test('a report alone shows its own lists, with no output lines to open', async () => {
    const b = await buildRewardBreakdown({ report });
    assert.equal(b.resolution, 'FULL');
    assert.equal(b.hasOutput, false);
    assert.equal(b.lists.find((l) => l.name === 'FAIL_TO_PASS')?.tests.length, 2);
    assert.ok(b.lists.every((l) => l.tests.every((t) => t.line === null)));
  });

  test('an instance whose FAIL_TO_PASS test fails in the output grades NO, the failing test first', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'reward-'));
    const instance = path.join(dir, 'instance.json');
    await writeFile(
      instance,
      JSON.stringify({
        instance_id: 'ledger-1',
        FAIL_TO_PASS: ['tests/test_money.py::test_allocate_remainder'],
        PASS_TO_PASS: ['tests/test_money.py::test_add'],
      }),
    );
    const output = path.join(dir, 'out.txt');
    await writeFile(
      output,
      'collected 2 items\n\nPASSED tests/test_money.py::test_add\nFAILED tests/test_money.py::test_allocate_remainder - assert 33 == 34\n=========================== 1 failed, 1 passed in 0.05s ============================\n',
    );
    const b = await buildRewardBreakdown({ testOutput: output, instance });
    assert.equal(b.resolution, 'NO');
    assert.equal(b.value, 0);
    assert.deepEqual(b.lists[0], { name: 'FAIL_TO_PASS', tests: [{ id: 'tests/test_money.py::test_allocate_remainder', passed: false, line: 4 }] });
    assert.equal(b.report, null);
  });

  thirdPartyFiles.test('a run report, or an output with nothing to grade against, is refused with the file named', async () => {
    await assert.rejects(
      buildRewardBreakdown({ report: path.resolve(instanceDir, '../report.json') }),
      /run_evaluation\/report\.json: \$: a run report holds no per-test grading/,
    );
    await assert.rejects(buildRewardBreakdown({ testOutput }), /test_output\.txt: no FAIL_TO_PASS \/ PASS_TO_PASS lists/);
  });

  test('the chart spans [0, 1] unless a term falls outside it', () => {
    assert.deepEqual(chartScale([0.5, 1]), { min: 0, max: 1 });
    assert.deepEqual(chartScale([-1, 0.2]), { min: -1, max: 1 });
  });
});
