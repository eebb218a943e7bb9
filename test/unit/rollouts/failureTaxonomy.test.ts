import '../../helpers/families';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { classifyRollout } from '../../../extension/core/rollouts/failureTaxonomy';
import type { Evaluation, Prediction } from '../../../extension/core/rollouts/record';
import { trajectoryFacts } from '../../../extension/core/rollouts/trajectoryFacts';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { aBashAction, aStep, aTrajectory, anOutcome } from '../../builders/trajectory';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const evaluation = (overrides: Partial<Evaluation>): Evaluation => ({
  instanceId: 'x',
  file: 'logs/report.json',
  source: 'instance-report',
  failingTests: [],
  ...overrides,
});
const classify = (t: Trajectory, ev?: Evaluation, pred?: Prediction) => classifyRollout(trajectoryFacts(t), ev, pred);

describe('failure taxonomy rules', () => {
  test('SkyRL finish reasons map to their classes', () => {
    const skyrl = (finish: string) => classify(aTrajectory({ format: 'skyrl', outcome: { exitStatus: finish, reward: 0 } })).failure;
    assert.equal(skyrl('CONTEXT_WINDOW_EXCEEDED'), 'context-exceeded');
    assert.equal(skyrl('max_iterations_reached'), 'max-steps');
    assert.equal(skyrl('cmd_timeout'), 'command-timeout');
    assert.equal(skyrl('BAD_LLM_RESPONSE'), 'format-error');
    assert.equal(skyrl('stuck_in_a_loop'), 'stuck-loop');
    assert.equal(skyrl('error_runtime'), 'infra-error');
    assert.equal(skyrl('error_evaluation'), 'eval-error');
  });

  test('SWE-agent autosubmission after an error keeps the error as the class and the failing tests as evidence', () => {
    const t = aTrajectory({ format: 'swe-agent', outcome: anOutcome({ exitStatus: 'submitted (exit_command_timeout)' }) });
    const c = classify(t, evaluation({ resolved: false, patchExists: true, failingTests: ['tests/test_a.py::test_b'] }));
    assert.equal(c.failure, 'command-timeout');
    assert.deepEqual(c.tags, ['command-timeout', 'submitted-wrong']);
    assert.deepEqual(c.evidence.tests, ['tests/test_a.py::test_b']);
  });

  test('a resolved report wins over any exit status', () => {
    const t = aTrajectory({ format: 'swe-agent', outcome: anOutcome({ exitStatus: 'submitted (exit_cost)' }) });
    const c = classify(t, evaluation({ resolved: true, patchExists: true }));
    assert.deepEqual([c.failure, c.resolved, c.tags], ['resolved', true, ['resolved', 'budget-exceeded']]);
  });

  test('an infrastructure failure in the report gives no verdict', () => {
    const c = classify(aTrajectory({ format: 'swe-agent' }), evaluation({ infra: true, error: 'container OOM-killed' }));
    assert.deepEqual([c.failure, c.resolved, c.evidence.detail], ['infra-error', null, 'logs/report.json: container OOM-killed']);
  });

  test('a run report error id is an evaluation error', () => {
    const c = classify(aTrajectory({ format: 'swe-agent' }), evaluation({ source: 'run-report', error: 'listed in error_ids' }));
    assert.deepEqual([c.failure, c.resolved], ['eval-error', null]);
  });

  test('timed-out commands without a submission: the first one is the evidence', () => {
    const steps = [aStep(), aStep({ flags: ['timeout'] }), aStep({ action: aBashAction('pytest'), flags: ['timeout'] })];
    const c = classify(aTrajectory({ format: 'swe-agent', steps, outcome: { exitStatus: 'exit_forfeit' } }));
    assert.deepEqual([c.failure, c.evidence.step, c.evidence.detail], ['command-timeout', 1, '2 timed-out commands, first at step 2']);
  });

  test('three identical actions are not yet a loop; four are', () => {
    const loop = (n: number) =>
      aTrajectory({
        format: 'swe-agent',
        steps: [aStep({ action: aBashAction('cat a.py') }), ...Array.from({ length: n }, () => aStep({ action: aBashAction('python t.py') }))],
        outcome: { exitStatus: 'exit_forfeit' },
      });
    assert.equal(classify(loop(3)).failure, 'no-submission');
    const c = classify(loop(4));
    assert.deepEqual([c.failure, c.evidence.step], ['stuck-loop', 1]);
  });

  test('an empty model_patch in preds means no submission, whatever the trajectory says', () => {
    const c = classify(aTrajectory({ format: 'swe-agent', outcome: anOutcome({ exitStatus: 'submitted' }) }), undefined, {
      instanceId: 'x',
      file: 'preds.json',
      patchChars: 0,
    });
    assert.deepEqual([c.failure, c.submitted, c.evidence.detail], ['no-submission', false, 'preds.json: empty model_patch']);
  });

  thirdPartyFiles.test("OpenHands' normal end, with nothing to grade it, reads as finished and not evaluated", async () => {
    const { trajectory } = await loadTrajectory(thirdPartyFiles.path('openhands/basic.json'));
    const c = classify(trajectory);
    assert.deepEqual([c.failure, c.evidence.detail], ['unknown', "the agent finished (exit status 'finished'), and nothing evaluated it"]);
  });

  test('evidence quotes the exit status as the file writes it', () => {
    const c = classify(aTrajectory({ format: 'mini-swe-agent', outcome: { exitStatus: 'FormatError' } }));
    assert.deepEqual([c.failure, c.evidence.detail], ['format-error', "exit status 'FormatError'"]);
  });

  test('an exit status nobody documents stays unknown', () => {
    const c = classify(aTrajectory({ format: 'openai-messages', outcome: { exitStatus: 'paused' } }));
    assert.deepEqual([c.failure, c.evidence.detail], ['unknown', "exit status 'paused' not recognised"]);
  });
});
