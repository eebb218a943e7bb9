import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { summarize } from '../../../extension/cli/inspect';
import { exportTrajectory } from '../../../extension/core/trajectory/exporters';
import { openSteps } from '../../../extension/core/trajectory/stepSource';
import { stepErrorMarks } from '../../../extension/core/trajectory/stepErrors';
import { STEP_LABEL_WIDTH, stepLabel } from '../../../extension/core/trajectory/stepLabels';
import { toStepSummary } from '../../../extension/views/stepView';
import { aBashAction, anAction, aStep, aTrajectory } from '../../builders/trajectory';

const traceback = 'Traceback (most recent call last):\n  File "reproduce.py", line 3, in <module>\nZeroDivisionError: division by zero';

describe('step labels and error rules, once for the CLI and the stepper', () => {
  test('a command shows its first line; a structured call its command or its arguments', () => {
    assert.equal(stepLabel(aStep({ action: aBashAction('\ncd /repo && python -m pytest -x\necho done') })), 'cd /repo && python -m pytest -x');
    assert.equal(
      stepLabel(aStep({ action: anAction({ tool: 'bash', raw: '{"name": "bash", "arguments": {"command": "ls -la"}}', args: { command: 'ls -la' } }) })),
      'ls -la',
    );
    assert.equal(
      stepLabel(
        aStep({
          action: anAction({
            tool: 'str_replace_editor',
            raw: '<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/repo/a.py</parameter>\n</function>',
            args: { command: 'view', path: '/repo/a.py' },
          }),
        }),
      ),
      'command=view path=/repo/a.py',
    );
    assert.equal(stepLabel(aStep({ action: anAction({ tool: 'submit', raw: '', args: {} }) })), 'submit');
    const long = stepLabel(aStep({ action: aBashAction(`echo ${'x'.repeat(200)}`) }));
    assert.equal(long.length, STEP_LABEL_WIDTH);
    assert.ok(long.endsWith('…'));
  });

  test('an error is known from the exit code, a flag, a format error, or the output when no exit code was kept', () => {
    assert.deepEqual(stepErrorMarks(aStep({ exitCode: 2, observation: '' })), ['exit 2']);
    assert.deepEqual(stepErrorMarks(aStep({ observation: traceback })), ['traceback']);
    assert.deepEqual(stepErrorMarks(aStep({ observation: 'bash: pytets: command not found' })), ['command-not-found']);
    assert.deepEqual(stepErrorMarks(aStep({ observation: '/bin/sh: 1: pytets: not found' })), ['command-not-found']);
    assert.deepEqual(
      stepErrorMarks(aStep({ flags: ['lint-rejected', 'temperature-0.7'], observation: 'Your proposed edit has introduced new syntax error(s).' })),
      ['lint-rejected'],
    );
    assert.deepEqual(
      stepErrorMarks(aStep({ observation: 'grep found no "command not found" here; print("Traceback (most recent call last):")' })),
      [],
      'the words inside a line are not an error',
    );
    assert.deepEqual(stepErrorMarks(aStep({ exitCode: 0, observation: 'ok' })), []);
  });

  test('the inspect table and the stepper timeline mark the same steps and print the same labels', async () => {
    const steps = [
      aStep({ index: 0, action: aBashAction('python reproduce.py'), observation: traceback }),
      aStep({ index: 1, action: aBashAction('ls'), observation: 'a.py', exitCode: 0 }),
      aStep({ index: 2, action: aBashAction('pytets'), observation: 'bash: pytets: command not found' }),
    ];
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-labels-'));
    const file = path.join(dir, 't.json');
    writeFileSync(file, exportTrajectory(aTrajectory({ steps }), 'canonical'));
    const text = await summarize(await openSteps(file)).finally(() => rmSync(dir, { recursive: true, force: true }));
    const rows = text.split('\n').filter((l) => /^ {3}\d /.test(l));
    for (const [i, step] of steps.entries()) {
      const summary = toStepSummary(step);
      assert.ok(rows[i]!.includes(summary.label), `row ${i} shows the stepper's label`);
      assert.equal(/(traceback|command-not-found|exit \d)/.test(rows[i]!), summary.error, `row ${i} and the timeline agree on the error`);
    }
    assert.deepEqual(
      steps.map((s) => toStepSummary(s).error),
      [true, false, true],
    );
  });
});
