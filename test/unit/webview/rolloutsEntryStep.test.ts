import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entryStep } from '../../../extension/vscode/rollouts/entryStep';
import { aStep, aTrajectory } from '../../builders/trajectoryBuilder';

const look = (i: number) => aStep(i).runs('bash', 'ls', { command: 'ls' }).sees('src tests');

describe('the step a rollout opens on', () => {
  test('the first format error, before a later submission', () => {
    const t = aTrajectory([look(0).build(), look(1).build(), aStep(2).failsToParse('no command found').build(), aStep(3).runs('submit', 'submit').build()]);
    assert.deepEqual(entryStep(t), { index: 2, reason: 'error' });
  });

  test('the first command that failed or was lint-rejected', () => {
    const t = aTrajectory([look(0).build(), aStep(1).runs('bash', 'python reproduce.py').sees('Traceback', 1).build(), aStep(2).runs('edit', 'edit 1:1').flagged('lint-rejected').build()]);
    assert.deepEqual(entryStep(t), { index: 1, reason: 'error' });
  });

  test('a divergence from the recording when no error came first', () => {
    const t = aTrajectory([look(0).build(), look(1).flagged('diverged').build(), aStep(2).runs('bash', 'false').sees('', 1).build()]);
    assert.deepEqual(entryStep(t), { index: 1, reason: 'divergence' });
  });

  test('the submission of a clean run', () => {
    const t = aTrajectory([look(0).build(), look(1).build(), aStep(2).runs('submit', 'submit').build(), look(3).build()]);
    assert.deepEqual(entryStep(t), { index: 2, reason: 'submission' });
  });

  test("mini-swe-agent's echoed submit marker", () => {
    const t = aTrajectory([look(0).build(), aStep(1).runs('bash', 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached').build()], { format: 'mini-swe-agent' });
    assert.deepEqual(entryStep(t), { index: 1, reason: 'submission' });
  });

  test('the last step when the outcome holds a patch but no step is a submit', () => {
    const t = aTrajectory([look(0).build(), look(1).build()], { outcome: { exitStatus: 'agent', submission: 'diff --git a/x b/x' } });
    assert.deepEqual(entryStep(t), { index: 1, reason: 'submission' });
  });

  test("the failure class's evidence step, else the last step, where a limit stopped it", () => {
    const t = aTrajectory([look(0).build(), look(1).build(), look(2).build()], { outcome: { exitStatus: 'exit_forfeit' } });
    assert.deepEqual(entryStep(t, 1), { index: 1, reason: 'evidence' });
    assert.deepEqual(entryStep(t, 7), { index: 2, reason: 'end' });
    assert.deepEqual(entryStep(t), { index: 2, reason: 'end' });
    assert.deepEqual(entryStep(aTrajectory([])), { index: 0, reason: 'end' });
  });
});
