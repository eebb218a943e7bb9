import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { searchSteps, toStepDetail, toStepSummary, toTrajectoryHeader } from '../../../extension/vscode/trajectory/stepView';
import { aStep, aTrajectory } from '../../builders/trajectoryBuilder';

const steps = [
  aStep(0).thinking('Look at the schema first.').runs('open', 'open src/marshmallow/fields.py 1474', { path: 'src/marshmallow/fields.py', line_number: 1474 }).sees('[File: fields.py (1997 lines total)]').build(),
  aStep(1).runs('edit', 'edit 1475:1475\n        return int(round(value.total_seconds() / base_unit.total_seconds()))\nend_of_edit').sees('Your proposed edit has introduced new syntax error(s).').flagged('lint-rejected').build(),
  aStep(2).runs('bash', 'python reproduce.py').sees('Traceback (most recent call last):', 1).build(),
  aStep(3).failsToParse('no command found').sees('Your output was not formatted correctly.').build(),
  aStep(4).runs('submit', 'submit').sees('diff --git a/src/marshmallow/fields.py').flagged('diverged').build(),
];

describe('step views sent to the stepper', () => {
  test('a summary carries the tool, the first action line and the marks', () => {
    assert.deepEqual(toStepSummary(steps[1]!), { index: 1, tool: 'edit', label: 'edit 1475:1475', error: true, diverged: false, flags: ['lint-rejected'] });
    assert.equal(toStepSummary(steps[2]!).error, true, 'a non-zero exit code is an error');
    assert.equal(toStepSummary(steps[3]!).error, true, 'a format error is an error');
    assert.equal(toStepSummary(steps[0]!).error, false);
    assert.equal(toStepSummary(steps[4]!).diverged, true);
  });

  test('long first lines are shortened for the timeline', () => {
    const label = toStepSummary(aStep(0).runs('bash', `echo ${'x'.repeat(200)}`).build()).label;
    assert.equal(label.length, 80);
    assert.ok(label.endsWith('…'));
  });

  test('a detail keeps the thought, the arguments and the observation verbatim', () => {
    const detail = toStepDetail(steps[0]!);
    assert.equal(detail.thought, 'Look at the schema first.');
    assert.deepEqual(detail.action.args, { path: 'src/marshmallow/fields.py', line_number: 1474 });
    assert.equal(detail.observation, '[File: fields.py (1997 lines total)]');
    assert.equal(detail.hasSource, true);
  });

  test('search looks through thoughts, actions and observations without case', () => {
    assert.deepEqual(searchSteps(steps, 'TRACEBACK', false), [2]);
    assert.deepEqual(searchSteps(steps, 'TRACEBACK', true), []);
    assert.deepEqual(searchSteps(steps, 'fields.py', false), [0, 4]);
  });

  test('the header lists each tool once, sorted', () => {
    const header = toTrajectoryHeader(aTrajectory(steps), 'marshmallow-1867.traj');
    assert.deepEqual(header.tools, ['bash', 'edit', 'open', 'submit']);
    assert.equal(header.stepCount, 5);
    assert.equal(header.exitStatus, 'submitted');
  });
});
