import '../../helpers/families';
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
    const { code, stdout } = await reward(
      '--test-output',
      path.join(sweSmith, 'run_evaluation', id, 'test_output.txt'),
      '--instance',
      path.join(sweSmith, `${id}.instance.json`),
      '--json',
    );
    assert.equal(code, 0);
    const view = JSON.parse(stdout);
    assert.equal(view.resolution, 'FULL');
    assert.equal(view.reward.value, 1);
    assert.equal(view.tests_status.PASS_TO_PASS.success.length, 9);
  });

  thirdPartyFiles.test('the bugged validation output graded against the instance lists its two failing tests', async () => {
    const { stdout } = await reward(
      '--test-output',
      path.join(sweSmith, 'run_validation/test_output.txt'),
      '--instance',
      path.join(sweSmith, `${id}.instance.json`),
    );
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

describe('swe-workbench reward --recipe', () => {
  const log = path.join(sweSmith, 'run_evaluation', id, 'test_output.txt');
  const inst = path.join(sweSmith, `${id}.instance.json`);

  thirdPartyFiles.test('swe-master on a truncated run whose last patch passes: alpha = 0.5, the rule shown', async () => {
    const { stdout } = await reward('--test-output', log, '--instance', inst, '--recipe', 'swe-master', '--truncated');
    assert.match(stdout, /^recipe: swe-master v1 \(SWE-Master \(2025\)\)$/m);
    assert.match(stdout, /^reward: 0\.5$/m);
    assert.match(stdout, /forced-submission discount = 0\.5 {4}SWE-Master: alpha = 0\.5/);
  });

  thirdPartyFiles.test('skyrl masks a context overflow: the reason stands where the reward would, in text and JSON', async () => {
    const view = JSON.parse(
      (await reward('--test-output', log, '--instance', inst, '--recipe', 'skyrl', '--finish-reason', 'context_exceeded', '--json')).stdout,
    );
    assert.equal(view.reward.outcome, 'masked');
    assert.deepEqual(view.reward.masked, { reason: 'context window exceeded', code: 'context_exceeded' });
    assert.equal(view.reward.value, null);
    const text = (await reward('--test-output', log, '--instance', inst, '--recipe', 'skyrl', '--finish-reason', 'context_exceeded')).stdout;
    assert.match(text, /^reward: masked: context window exceeded \(no gradient\)$/m);
  });

  thirdPartyFiles.test('swe-rl compares a patch with the instance gold patch: the gold patch itself is 1, prose is -1', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-swe-rl-'));
    const gold = (JSON.parse(readFileSync(inst, 'utf8')) as { patch: string }).patch;
    writeFileSync(path.join(dir, 'gold.diff'), gold);
    writeFileSync(path.join(dir, 'prose.diff'), 'I fixed the bug by changing the index.');
    const same = JSON.parse((await reward('--recipe', 'swe-rl', '--patch', path.join(dir, 'gold.diff'), '--instance', inst, '--json')).stdout);
    assert.equal(same.reward.value, 1);
    const prose = JSON.parse((await reward('--recipe', 'swe-rl', '--patch', path.join(dir, 'prose.diff'), '--instance', inst, '--json')).stdout);
    assert.equal(prose.reward.value, -1);
  });

  thirdPartyFiles.test('ssr-injector with --bug-checks: a bug failing a check gets -1 whatever the attempt did, the failed check named', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-bug-checks-'));
    const failing = path.join(dir, 'failing.json');
    writeFileSync(
      failing,
      JSON.stringify([
        { name: 'bug-validity', passed: true, detail: '2 tests broken', durationMs: 5 },
        { name: 'weakening-validity', passed: false, detail: 'the weakening hides nothing', durationMs: 7 },
      ]),
    );
    // The log passes (FULL): the solver attempt solved it, yet the inconsistent bug scores -1.
    const bad = (await reward('--test-output', log, '--instance', inst, '--recipe', 'ssr-injector', '--bug-checks', failing)).stdout;
    assert.match(bad, /^reward: -1$/m);
    assert.match(bad, /^ {2}consistency = 0 {4}SSR: all seven consistency checks pass; failed: weakening-validity$/m);
    const passing = path.join(dir, 'passing.json');
    writeFileSync(passing, 'true');
    const good = JSON.parse((await reward('--test-output', log, '--instance', inst, '--recipe', 'ssr-injector', '--bug-checks', passing, '--json')).stdout);
    assert.equal(good.reward.value, 1);
    assert.deepEqual(
      good.reward.terms.map((t: { name: string; value: number }) => [t.name, t.value]),
      [
        ['consistency', 1],
        ['solver attempt solved', 1],
      ],
    );
    await assert.rejects(
      reward('--test-output', log, '--instance', inst, '--recipe', 'skyrl', '--bug-checks', passing),
      /--bug-checks goes with an ssr-injector recipe/,
    );
  });

  test('an unknown recipe or finish reason is a clear error', async () => {
    await assert.rejects(reward('--report', 'r.json', '--recipe', 'ppo'), /unknown recipe 'ppo': one of swe-bench/);
    await assert.rejects(
      reward('--test-output', log, '--instance', inst, '--recipe', 'skyrl', '--finish-reason', 'tired'),
      /--finish-reason expects one of submitted/,
    );
  });
});
