import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { command } from '../../../extension/cli/reward';
import { CliError } from '../../../extension/cli/command';
import { runCli } from '../../helpers/cliRunner';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const sweSmith = thirdPartyFiles.path('swe-smith');
const id = 'pandas-dev__pandas.95280573.pr_53652';

const reward = (...argv: string[]) => runCli(command, argv);

describe('swe-workbench reward', () => {
  thirdPartyFiles.test('grades a real evaluation log against its instance as FULL with reward 1', async () => {
    const { code, stdout } = await reward('--test-output', path.join(sweSmith, 'run_evaluation', id, 'test_output.txt'), '--instance', path.join(sweSmith, `${id}.instance.json`), '--json');
    assert.equal(code, 0);
    const view = JSON.parse(stdout);
    assert.equal(view.resolution, 'FULL');
    assert.equal(view.reward.value, 1);
    assert.equal(view.tests_status.PASS_TO_PASS.success.length, 9);
  });

  thirdPartyFiles.test('the bugged validation output graded against the instance lists its two failing tests', async () => {
    const { stdout } = await reward('--test-output', path.join(sweSmith, 'run_validation/test_output.txt'), '--instance', path.join(sweSmith, `${id}.instance.json`));
    assert.match(stdout, /^resolution: NO$/m);
    assert.match(stdout, /^FAIL_TO_PASS: 0 pass, 2 fail$/m);
    assert.match(stdout, /^ {2}FAIL pandas\/tests\/indexing\/test_datetime\.py::TestDatetimeIndex::test_getitem_pyarrow_index\[Series\]$/m);
  });

  thirdPartyFiles.test('reads a per-instance report and shows the reward terms', async () => {
    const { stdout } = await reward('--report', path.join(sweSmith, 'run_evaluation', id, 'report.json'));
    assert.match(stdout, /^shape: swe-smith$/m);
    assert.match(stdout, /^reward: 1$/m);
    assert.match(stdout, /resolution FULL = 1/);
  });

  thirdPartyFiles.test('reads a run report as a resolve rate', async () => {
    const view = JSON.parse((await reward('--report', path.join(sweSmith, 'run_evaluation/report.json'), '--json')).stdout);
    assert.equal(view.total, 53);
    assert.equal(view.reward.terms[0].rule, '3 of 53 instances resolved');
  });

  test('mixing --report with --test-output is a usage error', async () => {
    await assert.rejects(reward('--report', 'a.json', '--test-output', 'b.txt'), CliError);
  });
});
