import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { entryStep } from '../../../extension/views/entryStep';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { aBashAction, aFormatErrorStep, anAction, aStep, aTrajectory } from '../../builders/trajectory';

const look = (flags?: string[]) => aStep({ action: aBashAction('ls'), observation: 'src tests', flags });
const submit = () => aStep({ action: anAction({ tool: 'submit', raw: 'submit', args: {} }) });
/** A run whose outcome holds no patch, so only its steps say where it submitted. */
const run = (steps: Step[], overrides: Partial<Omit<Trajectory, 'steps'>> = {}) => aTrajectory({ outcome: { exitStatus: 'submitted' }, ...overrides, steps });

describe('the step a rollout opens on', () => {
  test('the first format error, before a later submission', () => {
    const t = run([look(), look(), aFormatErrorStep('no command found'), submit()]);
    assert.deepEqual(entryStep(t), { index: 2, reason: 'error' });
  });

  test('the first command that failed or was lint-rejected', () => {
    const t = run([
      look(),
      aStep({ action: aBashAction('python reproduce.py'), observation: 'Traceback', exitCode: 1 }),
      aStep({ action: anAction({ tool: 'edit', raw: 'edit 1:1', args: {} }), flags: ['lint-rejected'] }),
    ]);
    assert.deepEqual(entryStep(t), { index: 1, reason: 'error' });
  });

  test('a divergence from the recording when no error came first', () => {
    const t = run([look(), look(['diverged']), aStep({ action: aBashAction('false'), observation: '', exitCode: 1 })]);
    assert.deepEqual(entryStep(t), { index: 1, reason: 'divergence' });
  });

  test('the submission of a clean run', () => {
    const t = run([look(), look(), submit(), look()]);
    assert.deepEqual(entryStep(t), { index: 2, reason: 'submission' });
  });

  test("mini-swe-agent's echoed submit marker", () => {
    const t = run([look(), aStep({ action: aBashAction('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached') })], {
      format: 'mini-swe-agent',
    });
    assert.deepEqual(entryStep(t), { index: 1, reason: 'submission' });
  });

  test('the last step when the outcome holds a patch but no step is a submit', () => {
    const t = run([look(), look()], { outcome: { exitStatus: 'agent', submission: 'diff --git a/x b/x' } });
    assert.deepEqual(entryStep(t), { index: 1, reason: 'submission' });
  });

  test("the failure class's evidence step, else the last step, where a limit stopped it", () => {
    const t = run([look(), look(), look()], { outcome: { exitStatus: 'exit_forfeit' } });
    assert.deepEqual(entryStep(t, 1), { index: 1, reason: 'evidence' });
    assert.deepEqual(entryStep(t, 7), { index: 2, reason: 'end' });
    assert.deepEqual(entryStep(t), { index: 2, reason: 'end' });
    assert.deepEqual(entryStep(run([])), { index: 0, reason: 'end' });
  });
});
