import '../../helpers/families';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { buildRewardBreakdown } from '../../../extension/vscode/reward/rewardBreakdown';
import { InstanceCatalog, patchSourceOf, rewardSourcesOf } from '../../../extension/vscode/rollouts/rolloutEvidence';
import { FAILING_TEST, G7, S3, W101, W202, makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { patchFor, r2eGymRecord, workSteps } from '../../fixtures/rollouts/runWriter';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const PANDAS = 'pandas-dev__pandas.95280573.pr_53856';

describe("a rollout's reward and patch, from what the index knows", () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let rollouts: Rollout[];
  const byId = (id: string): Rollout => {
    const found = rollouts.find((r) => r.id === id);
    assert.ok(found, `${id} is indexed`);
    return found;
  };
  const at = (...parts: string[]) => path.join(folder.root, ...parts);

  thirdPartyFiles.before(async () => {
    folder = makeRolloutFolder();
    rollouts = (await indexRollouts(folder.root)).rollouts;
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test("grades a rollout by its instance's report.json, naming the test output it lacks", async () => {
    const rollout = byId(`run/attempt_2/${W101}/${W101}.traj`);
    const sources = await rewardSourcesOf(folder.root, rollout, undefined);
    const report = at('run/attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b', W101, 'report.json');
    assert.deepEqual(sources, {
      trajectory: at('run/attempt_2', W101, `${W101}.traj`),
      instanceId: W101,
      title: `Reward: ${W101} #2`,
      // How the run ended, as the table knows it: the view masks or grades by the same facts.
      run: { finishReason: 'submitted', steps: 8, truncated: false },
      report,
    });
    const b = await buildRewardBreakdown(sources);
    assert.equal(b.title, `Reward: ${W101} #2`);
    assert.equal(b.resolution, 'NO');
    assert.equal(b.value, 0);
    assert.deepEqual(b.lists.find((l) => l.name === 'FAIL_TO_PASS')?.tests, [{ id: FAILING_TEST, passed: false, line: null }]);
    assert.deepEqual(b.missing, [`No test output beside ${report} (test_output.txt): the grading is the report's own, and no test links to an output line.`]);
  });

  thirdPartyFiles.test('takes the test_output.txt beside the report and links each test to its line', async () => {
    const reportDir = at('run/attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b', W101);
    writeFileSync(
      path.join(reportDir, 'test_output.txt'),
      `collected 3 items\n\n${FAILING_TEST} FAILED\ntests/test_widgets.py::test_create PASSED\n===== 1 failed, 1 passed in 0.12s =====\n`,
    );
    const sources = await rewardSourcesOf(folder.root, byId(`run/attempt_2/${W101}/${W101}.traj`), undefined);
    assert.equal(sources.testOutput, path.join(reportDir, 'test_output.txt'));
    const b = await buildRewardBreakdown(sources);
    assert.deepEqual(b.lists.find((l) => l.name === 'FAIL_TO_PASS')?.tests, [{ id: FAILING_TEST, passed: false, line: 3 }]);
    assert.equal(b.report?.agrees, true, b.report?.detail);
    assert.deepEqual(b.missing, []);
  });

  thirdPartyFiles.test("a rollout a run report names is graded by that report's line alone, and says so", async () => {
    const rollout = byId(`third-party/swe-smith/${PANDAS}.traj`);
    const b = await buildRewardBreakdown(await rewardSourcesOf(folder.root, rollout, undefined));
    const runReport = at('third-party/swe-smith/run_evaluation/report.json');
    assert.deepEqual(b.terms, [{ name: 'resolved', value: 0, rule: `run report ${runReport}: listed as unresolved` }]);
    assert.equal(b.value, 0);
    assert.equal(b.resolution, null);
    assert.deepEqual(b.missing, [
      `No report.json of ${PANDAS}: the run report records its resolution only, so FAIL_TO_PASS and PASS_TO_PASS are not graded test by test.`,
    ]);
  });

  thirdPartyFiles.test('an R2E-Gym record without a report shows the reward it recorded, read from its own line', async () => {
    const rollout = byId('run/attempt_4/deepswe.jsonl:2');
    const sources = await rewardSourcesOf(folder.root, rollout, undefined);
    assert.equal(sources.record, 1);
    const b = await buildRewardBreakdown(sources);
    assert.equal(b.title, `Reward: ${W202} #4`);
    assert.deepEqual(
      b.terms.map((t) => [t.name, t.value]),
      [['recorded reward', 0]],
    );
    assert.match(b.terms[0]!.rule, /deepswe\.jsonl: the reward the r2e-gym run recorded/);
    assert.deepEqual(b.missing, [`No evaluation report of ${W202} was found (report.json or a run report): FAIL_TO_PASS and PASS_TO_PASS are not graded.`]);
  });

  thirdPartyFiles.test('a trajectory that records no reward and has no evaluation says the reward is unknown, and why', async () => {
    const b = await buildRewardBreakdown(await rewardSourcesOf(folder.root, byId('third-party/openhands/basic.json'), undefined));
    assert.equal(b.value, null);
    assert.deepEqual(b.terms, []);
    assert.equal(b.missing.at(-1), 'Nothing records a reward for it: the trajectory holds no reward or resolution of its own.');
  });

  thirdPartyFiles.test('an rLLM episode shows its reward and its is_correct, term by term', async () => {
    const b = await buildRewardBreakdown(await rewardSourcesOf(folder.root, byId('run/rllm/episodes.jsonl:2'), undefined));
    assert.equal(b.title, `Reward: ${S3} #2`);
    assert.deepEqual(b.terms, [
      { name: 'recorded reward', value: 0, rule: 'episodes.jsonl: the reward the rllm run recorded' },
      { name: 'recorded resolution', value: 0, rule: 'episodes.jsonl: the run recorded the task as not solved' },
    ]);
  });

  thirdPartyFiles.test("grades the test output an R2E-Gym record holds against the configured instance's lists", async () => {
    const record = {
      ...(r2eGymRecord({ instance: G7, steps: workSteps(2), exit: 'agent', patch: '', reward: 0 }) as object),
      test_output: `${FAILING_TEST} PASSED\ntests/test_widgets.py::test_create FAILED\n===== 1 failed, 1 passed in 0.12s =====\n`,
    };
    writeFileSync(at('r2e.jsonl'), `${JSON.stringify(record)}\n`);
    writeFileSync(
      at('g7.instance.json'),
      JSON.stringify({ instance_id: G7, FAIL_TO_PASS: [FAILING_TEST], PASS_TO_PASS: ['tests/test_widgets.py::test_create'] }),
    );
    const b = await buildRewardBreakdown({ trajectory: at('r2e.jsonl'), record: 0, instance: at('g7.instance.json') });
    assert.equal(b.resolution, 'NO', 'a PASS_TO_PASS test broke');
    assert.equal(b.value, 0);
    assert.deepEqual(
      b.lists.map((l) => [l.name, l.tests.map((t) => [t.id, t.passed, t.line])]),
      [
        ['FAIL_TO_PASS', [[FAILING_TEST, true, null]]],
        ['PASS_TO_PASS', [['tests/test_widgets.py::test_create', false, null]]],
      ],
    );
    assert.equal(b.hasOutput, false, 'the output is inside the trajectory: there is no file to open at a line');
    assert.equal(b.origin, `${at('r2e.jsonl')}: test_output + ${at('g7.instance.json')}`);
  });

  thirdPartyFiles.test("shows a rollout's submission, beside the gold patch when the instances hold it", async () => {
    const rollout = byId(`run/attempt_1/${G7}/${G7}.traj`);
    assert.deepEqual(await patchSourceOf(folder.root, rollout, undefined), { diff: patchFor('src/widgets/resize.py'), title: `Submission of ${rollout.id}` });
    const dataset = at('instances.jsonl');
    const instance = (id: string, extra: object) =>
      JSON.stringify({ instance_id: id, patch: patchFor('src/widgets/resize.py'), FAIL_TO_PASS: [], PASS_TO_PASS: [], ...extra });
    writeFileSync(dataset, `${instance(G7, { test_patch: '' })}\n${instance(W101, { image_name: 'swesmith/acme' })}\n`);
    const catalog = new InstanceCatalog(dataset);
    assert.deepEqual(await patchSourceOf(folder.root, rollout, catalog), {
      trajectory: at('run/attempt_1', G7, `${G7}.traj`),
      instance: dataset,
      instanceId: G7,
      gold: 'patch',
    });
    const sweSmith = await patchSourceOf(folder.root, byId(`run/attempt_1/${W101}/${W101}.traj`), catalog);
    assert.equal('gold' in sweSmith && sweSmith.gold, 'reverse-patch', 'a SWE-smith instance holds the bug');
    const jsonl = await patchSourceOf(folder.root, byId('run/attempt_4/deepswe.jsonl:1'), catalog);
    assert.deepEqual(
      'record' in jsonl && [jsonl.trajectory, jsonl.record],
      [at('run/attempt_4/deepswe.jsonl'), 0],
      'a JSONL rollout (line 1: record 0) is its own record beside the gold patch',
    );
    const ptyDiff = await patchSourceOf(folder.root, byId('third-party/swe-agent/marshmallow-1867.function_calling.traj'), undefined);
    assert.ok(
      'diff' in ptyDiff && ptyDiff.diff.startsWith('\ndiff --git a/src/marshmallow/fields.py b/src/marshmallow/fields.py\nindex ad388c7..168a845 100644\n'),
      'the CRLF a pseudo-terminal wrote is read as plain lines',
    );
    assert.ok(!ptyDiff.diff.includes('\r'));
    const missing = new InstanceCatalog(at('nowhere.jsonl'));
    await assert.rejects(missing.find(G7), /nowhere\.jsonl: the task instances named by sweWorkbench\.rollouts\.instances: file not found/);
  });
});
