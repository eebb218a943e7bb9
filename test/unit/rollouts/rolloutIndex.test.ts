import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CancelledError } from '../../../extension/core/errors';
import { indexRollouts, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { FAILING_TEST, G7, S3, W101, W202, makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

describe('rollout index over the third-party fixtures and a generated training run', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let index: RolloutIndex;
  const byId = (id: string): Rollout => {
    const r = index.rollouts.find((x) => x.id === id);
    assert.ok(r, `no rollout ${id}; have ${index.rollouts.map((x) => x.id).join(', ')}`);
    return r;
  };

  thirdPartyFiles.before(async () => {
    folder = makeRolloutFolder();
    index = await indexRollouts(folder.root);
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test('finds every trajectory: 15 generated, 10 third-party; reports, preds and instances are not rollouts', () => {
    assert.equal(index.rollouts.filter((r) => r.path.startsWith('run/')).length, 15);
    // 4 SWE-agent, 1 SWE-smith (SWE-agent 1.0.1), 2 mini-swe-agent, 3 OpenHands.
    assert.deepEqual(
      index.rollouts.filter((r) => r.path.startsWith('third-party/')).map((r) => r.path),
      [
        'third-party/mini-swe-agent/github_issue.traj.json',
        'third-party/mini-swe-agent/local.traj.json',
        'third-party/openhands/basic.json',
        'third-party/openhands/basic_interactions.json',
        'third-party/openhands/wrong_initial_state.json',
        'third-party/swe-agent/function_calling_simple.traj',
        'third-party/swe-agent/marshmallow-1867.function_calling.traj',
        'third-party/swe-agent/marshmallow-1867.windowed.traj',
        'third-party/swe-agent/sweagenttestrepo-1c2844.traj',
        'third-party/swe-smith/pandas-dev__pandas.95280573.pr_53856.traj',
      ],
    );
  });

  thirdPartyFiles.test('a truncated file and a half-written JSONL record become located errors; the good line after it is kept', () => {
    assert.equal(index.errors.length, 2);
    const [broken, line] = index.errors;
    assert.equal(broken?.file, 'run/attempt_2/broken.traj');
    assert.match(broken?.where ?? '', /^line \d+, column \d+$/);
    assert.match(broken?.message ?? '', /invalid JSON|truncated/);
    assert.equal(line?.file, 'run/rllm/episodes.jsonl');
    assert.equal(line?.line, 3);
    assert.equal(byId('run/rllm/episodes.jsonl:4').attempt, 3);
  });

  thirdPartyFiles.test('classifies each generated rollout as the files say', () => {
    const expected: Record<string, [string, string, boolean | null]> = {
      [`run/attempt_1/${W101}/${W101}.traj`]: [W101, 'resolved', true],
      [`run/attempt_1/${W202}/${W202}.traj`]: [W202, 'context-exceeded', false],
      [`run/attempt_1/${G7}/${G7}.traj`]: [G7, 'resolved', true],
      [`run/attempt_2/${W101}/${W101}.traj`]: [W101, 'submitted-wrong', false],
      [`run/attempt_2/${W202}/${W202}.traj`]: [W202, 'stuck-loop', false],
      [`run/attempt_2/${G7}/${G7}.traj`]: [G7, 'lint-loop', false],
      [`run/attempt_3/${W101}/${W101}.traj.json`]: [W101, 'budget-exceeded', false],
      [`run/attempt_3/${W202}/${W202}.traj.json`]: [W202, 'format-error', false],
      [`run/attempt_3/${G7}/${G7}.traj.json`]: [G7, 'infra-error', null],
      'run/attempt_4/deepswe.jsonl:1': [W101, 'resolved', true],
      'run/attempt_4/deepswe.jsonl:2': [W202, 'max-steps', false],
      'run/attempt_4/deepswe.jsonl:3': [G7, 'submitted-wrong', false],
      'run/rllm/episodes.jsonl:1': [S3, 'resolved', true],
      // rLLM records no patch: a failed episode is not called submitted-wrong or no-submission.
      'run/rllm/episodes.jsonl:2': [S3, 'unknown', false],
      'run/rllm/episodes.jsonl:4': [S3, 'resolved', true],
    };
    for (const [id, [instance, failure, resolved]] of Object.entries(expected)) {
      const r = byId(id);
      assert.deepEqual([r.instance, r.failure, r.resolved], [instance, failure, resolved], id);
    }
  });

  thirdPartyFiles.test('evidence names the step, the count and the failing tests', () => {
    const loop = byId(`run/attempt_2/${W202}/${W202}.traj`);
    // Work steps `open ...`, `python reproduce.py`, then `python reproduce.py` five more times: indexes 1..6,
    // which a person reads as steps 2..7 (the evidence's `step` stays the 0-based index).
    assert.equal(loop.evidence.step, 1);
    assert.equal(loop.evidence.detail, '6 identical actions in a row from step 2: python reproduce.py');
    const lint = byId(`run/attempt_2/${G7}/${G7}.traj`);
    assert.equal(lint.evidence.step, 1);
    assert.match(lint.evidence.detail, /^3 lint-rejected edits/);
    const wrong = byId(`run/attempt_2/${W101}/${W101}.traj`);
    assert.deepEqual(wrong.evidence.tests, [FAILING_TEST]);
    assert.equal(wrong.evaluation?.file, `run/attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b/${W101}/report.json`);
    const format = byId(`run/attempt_3/${W202}/${W202}.traj.json`);
    assert.equal(format.evidence.detail, "exit status 'FormatError'");
    assert.ok(format.tags.includes('format-error'));
    const context = byId(`run/attempt_1/${W202}/${W202}.traj`);
    assert.equal(context.evidence.detail, "exit status 'exit_context'");
    assert.ok(context.tags.includes('no-submission'), context.tags.join());
  });

  thirdPartyFiles.test('a report or preds file applies only to rollouts under its own run folder', () => {
    // attempt_3 has no per-instance reports; attempt_1's report for W101 must not leak into it.
    const mini = byId(`run/attempt_3/${W101}/${W101}.traj.json`);
    assert.equal(mini.evaluation?.file, 'run/attempt_3/acme-coder-7b.attempt_3.json');
    assert.equal(mini.evaluation?.source, 'run-report');
    assert.equal(mini.prediction?.file, 'run/attempt_3/preds.json');
    const r2e = byId('run/attempt_4/deepswe.jsonl:3');
    assert.deepEqual([r2e.prediction?.file, r2e.prediction?.line, r2e.prediction?.model], ['run/attempt_4/all_preds.jsonl', 3, 'deepswe-acme']);
    assert.equal(byId(`run/attempt_3/${G7}/${G7}.traj.json`).evaluation, undefined);
    // Per-instance report beats the run report of the same folder.
    assert.equal(byId(`run/attempt_1/${W101}/${W101}.traj`).evaluation?.source, 'instance-report');
  });

  thirdPartyFiles.test('attempt numbers come from folders, rLLM episode ids, else path order, and count from 1 in every format', () => {
    for (const n of [1, 2, 3]) assert.equal(byId(`run/attempt_${n}/${W101}/${W101}.traj${n === 3 ? '.json' : ''}`).attempt, n);
    assert.deepEqual([byId('run/attempt_4/deepswe.jsonl:2').attempt, byId('run/attempt_4/deepswe.jsonl:2').attemptSource], [4, 'folder']);
    const episodes = index.rollouts.filter((r) => r.instance === S3);
    assert.deepEqual(
      episodes.map((r) => [r.attempt, r.attemptSource, r.instanceSource]),
      [
        [1, 'trajectory-id', 'trajectory'],
        [2, 'trajectory-id', 'trajectory'],
        [3, 'trajectory-id', 'trajectory'],
      ],
    );
    const marshmallow = index.rollouts.filter((r) => r.instance === 'marshmallow-code__marshmallow-1867');
    assert.deepEqual(
      marshmallow.map((r) => [r.path, r.attempt, r.attemptSource]),
      [
        ['third-party/swe-agent/marshmallow-1867.function_calling.traj', 1, 'path-order'],
        ['third-party/swe-agent/marshmallow-1867.windowed.traj', 2, 'path-order'],
      ],
    );
  });

  thirdPartyFiles.test('third-party runs: the SWE-smith trajectory joins its run report; stats come from info.model_stats', () => {
    const pandas = byId('third-party/swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
    // ids_unresolved of swe-smith/run_evaluation/report.json lists pr_53856.
    assert.deepEqual([pandas.failure, pandas.resolved, pandas.steps], ['submitted-wrong', false, 17]);
    assert.equal(pandas.evaluation?.file, 'third-party/swe-smith/run_evaluation/report.json');
    // info.model_stats: tokens_sent 157229 + tokens_received 797, instance_cost 0.24830985.
    assert.equal(pandas.tokens, 158026);
    assert.equal(pandas.cost, 0.24830985);
    const testRepo = byId('third-party/swe-agent/sweagenttestrepo-1c2844.traj');
    assert.deepEqual([testRepo.instance, testRepo.steps, testRepo.exitStatus, testRepo.tokens], ['SWE-agent__test-repo-i1', 5, 'submitted', 7141 + 243]);
    // Submitted but never evaluated: nothing says whether it passed.
    assert.deepEqual([testRepo.failure, testRepo.resolved, testRepo.evidence.detail], ['unknown', null, 'submitted, not evaluated']);
  });

  thirdPartyFiles.test('tokens, cost and duration per format', () => {
    const r2e = byId('run/attempt_4/deepswe.jsonl:1');
    // 9 steps, token_usage_total 1280 + 300 i for i = 0..8: 9 * 1280 + 300 * 36 = 22320; env_exec_time 0.5 each.
    assert.deepEqual([r2e.steps, r2e.tokens, r2e.duration], [9, 22320, 4.5]);
    const swe = byId(`run/attempt_1/${W101}/${W101}.traj`);
    // 52000 sent + 1800 received; 6 steps of 0.25 s.
    assert.deepEqual([swe.tokens, swe.cost, swe.duration], [53800, 0.42, 1.5]);
  });

  thirdPartyFiles.test('reports progress per file and stops when aborted', async () => {
    const seen: number[] = [];
    const again = await indexRollouts(folder.root, { onProgress: (p) => seen.push(p.done) });
    assert.deepEqual(
      seen,
      Array.from({ length: again.stats.files }, (_, i) => i + 1),
    );
    const controller = new AbortController();
    const aborted = indexRollouts(folder.root, { signal: controller.signal, onProgress: (p) => p.done === 3 && controller.abort('stop') });
    await assert.rejects(aborted, (err: unknown) => err instanceof CancelledError && err.message === 'stop');
  });

  thirdPartyFiles.test('a folder that does not exist is a clear error', async () => {
    await assert.rejects(indexRollouts(`${folder.root}/nope`), /nope: no such folder/);
  });
});

describe("rollout index over Harbor's files", () => {
  thirdPartyFiles.test('every ATIF file is a rollout; its training exports and a Gemini CLI session are located errors', async () => {
    const index = await indexRollouts(thirdPartyFiles.path('harbor'));
    assert.deepEqual(
      index.rollouts.map((r) => r.path),
      [
        'docs/rfcs/0001-trajectory-format/mini-swe-agent-trajectory.json',
        'docs/rfcs/0001-trajectory-format/openhands_trajectory.json',
        'golden/openhands/hello-world.trajectory.json',
        'golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.cont-1.json',
        'golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.json',
        'golden/terminus_2/hello-world-context-summarization.trajectory.json',
        'golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-answers.json',
        'golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-questions.json',
        'golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-summary.json',
      ],
    );
    // The RFC's examples are the source formats it maps from; Harbor's golden recordings are ATIF.
    assert.deepEqual(
      index.rollouts.map((r) => r.format),
      ['mini-swe-agent', 'openhands', ...Array<string>(7).fill('atif')],
    );
    // Harbor's exports for training (`*.traces.json`) open in the stepper but export a trial another file records, so
    // they are not counted again; Gemini CLI's own session is no trajectory we read.
    assert.deepEqual(
      index.errors.filter((e) => e.file.endsWith('.traces.json')).map((e) => /not a rollout: Harbor's traces export/.test(e.message)),
      Array<boolean>(6).fill(true),
    );
    assert.deepEqual(
      index.errors.map((e) => e.file.split('/').pop()),
      [
        'gemini-cli-trajectory.json',
        'hello-world-no_function_calling.traces.json',
        'hello-world.traces.json',
        'hello-world-context-summarization.summarization-1-answers.traces.json',
        'hello-world-context-summarization.summarization-1-questions.traces.json',
        'hello-world-context-summarization.summarization-1-summary.traces.json',
        'hello-world-context-summarization.traces.json',
      ],
    );
  });
});
