import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command } from '../../../extension/cli/reward';
import { buildRewardBreakdown } from '../../../extension/vscode/reward/rewardBreakdown';
import { runCli } from '../../helpers/cliRunner';
import { thirdPartyFolder } from '../../helpers/sharedFolder';

const thirdParty = thirdPartyFolder();
const sweSmith = thirdParty.path('swe-smith');
const id = 'pandas-dev__pandas.95280573.pr_53652';
const instance = path.join(sweSmith, `${id}.instance.json`);

/** What both twins must agree on: the reward, its terms with their rules, and the mask. */
async function both(cliArgs: string[], sources: Parameters<typeof buildRewardBreakdown>[0]) {
  const cli = JSON.parse((await runCli(command, [...cliArgs, '--json'])).stdout) as {
    reward: { value: number; terms: unknown[]; masked?: { reason: string } };
  };
  const view = await buildRewardBreakdown(sources);
  return {
    cli: { value: cli.reward.value, terms: cli.reward.terms, masked: cli.reward.masked?.reason ?? null },
    view: { value: view.value, terms: view.terms, masked: view.masked },
  };
}

describe('the CLI and the reward view grade the same inputs alike (one core path)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-reward-twins-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  thirdParty.test('a real evaluation log, the bugged validation output, a report and an infra-failed log', async () => {
    const evaluation = path.join(sweSmith, 'run_evaluation', id, 'test_output.txt');
    const full = await both(['--test-output', evaluation, '--instance', instance], { testOutput: evaluation, instance });
    assert.deepEqual(full.view, full.cli);
    assert.equal(full.cli.value, 1);

    const validation = path.join(sweSmith, 'run_validation/test_output.txt');
    const no = await both(['--test-output', validation, '--instance', instance], { testOutput: validation, instance });
    assert.deepEqual(no.view, no.cli);
    assert.equal(no.cli.value, 0);
    assert.ok(no.cli.terms.length >= 3);

    const report = path.join(sweSmith, 'run_evaluation', id, 'report.json');
    const fromReport = await both(['--report', report], { report });
    assert.deepEqual(fromReport.view, fromReport.cli);

    const timedOut = path.join(dir, 'timed_out.txt');
    writeFileSync(timedOut, '>>>>> Start Test Output\n>>>>> Tests Timed Out\n');
    const infra = await both(['--test-output', timedOut, '--instance', instance], { testOutput: timedOut, instance });
    assert.deepEqual(infra.view, infra.cli);
    assert.equal(infra.cli.masked, 'infrastructure error: Tests Timed Out');
  });

  thirdParty.test('under a recipe both score alike: r2e and swe-master on the evaluation log, deepswe on the infra-failed one', async () => {
    const evaluation = path.join(sweSmith, 'run_evaluation', id, 'test_output.txt');
    for (const recipe of ['r2e', 'swe-master', 'ssr-solver']) {
      const r = await both(['--test-output', evaluation, '--instance', instance, '--recipe', recipe], { testOutput: evaluation, instance, recipe });
      assert.deepEqual(r.view, r.cli, recipe);
      assert.equal(r.cli.value, 1, recipe);
    }
    const timedOut = path.join(dir, 'timed_out.txt');
    const masked = await both(['--test-output', timedOut, '--instance', instance, '--recipe', 'deepswe'], {
      testOutput: timedOut,
      instance,
      recipe: 'deepswe',
    });
    assert.deepEqual(masked.view, masked.cli);
    assert.equal(masked.cli.masked, 'evaluation error: Tests Timed Out');
  });
});
