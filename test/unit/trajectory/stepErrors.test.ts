import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { actionKind } from '../../../extension/core/trajectory/actionKind';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { stepErrors, stepHasError } from '../../../extension/core/trajectory/stepErrors';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** The errors of a bash step that printed `output` (and said nothing else: no exit code, no flag). */
const outputErrors = (output: string) => stepErrors({ action: { tool: 'bash', args: { command: 'python run.py' } }, observation: output });

const PANDAS = 'swe-smith/pandas-dev__pandas.95280573.pr_53856.traj';

describe('errors read from a step', () => {
  thirdPartyFiles.test('the SWE-smith pandas run (SWE-agent 1.0, no exit codes): step 8 fails with its traceback, and only it', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty(PANDAS));
    assert.ok(
      t.steps.every((s) => s.exitCode === undefined),
      'the file records no exit codes',
    );
    const failing = t.steps.filter(stepHasError).map((s) => s.index + 1);
    assert.deepEqual(failing, [8]);
    const [error] = stepErrors(t.steps[7]!);
    assert.equal(error?.kind, 'traceback');
    assert.equal(error?.detail, "sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:duckdb");
  });

  test('a file viewed that holds the word Traceback is not an error; the same text from a command is', () => {
    const observation = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad\n';
    const view = { action: { tool: 'str_replace_editor', args: { command: 'view', path: '/testbed/x.py' } }, observation };
    const run = { action: { tool: 'bash', args: { command: 'python x.py' } }, observation };
    assert.equal(stepHasError(view), false);
    assert.deepEqual(stepErrors(run), [{ kind: 'traceback', detail: 'ValueError: bad', line: 1 }]);
  });

  test('command not found, from bash and from sh', () => {
    assert.deepEqual(outputErrors('bash: pytets: command not found\n'), [{ kind: 'command-not-found', detail: 'pytets: command not found', line: 1 }]);
    assert.deepEqual(outputErrors('ok\nsh: 1: rgg: not found'), [{ kind: 'command-not-found', detail: 'rgg: command not found', line: 2 }]);
  });

  test('failing test runs: pytest and unittest summaries, and a passing run that is not one', () => {
    const pytest = outputErrors('....F\nFAILED tests/test_a.py::test_b - AssertionError\n========= 1 failed, 4 passed in 0.12s =========\n');
    assert.deepEqual(
      pytest.map((e) => [e.kind, e.line]),
      [
        ['test-failure', 2],
        ['test-failure', 3],
      ],
    );
    assert.equal(pytest[1]!.detail, '1 failed, 4 passed in 0.12s');
    assert.deepEqual(
      outputErrors('Ran 3 tests in 0.001s\n\nFAILED (failures=1)\n').map((e) => e.kind),
      ['test-failure'],
    );
    assert.deepEqual(outputErrors('========= 5 passed in 0.12s =========\nOK\n'), []);
  });

  test('exit codes, flags and format errors still count, each said', () => {
    const step = { action: { tool: 'bash', args: { command: 'false' } }, observation: '', exitCode: 1, flags: ['timeout'], formatError: 'no action' };
    assert.deepEqual(
      stepErrors(step).map((e) => e.detail),
      ['no action', 'exit code 1', 'timeout'],
    );
  });

  test('action kinds: an editor view is a view, its str_replace an edit, OpenHands run a command', () => {
    assert.equal(actionKind({ tool: 'str_replace_editor', args: { command: 'view' } }), 'view');
    assert.equal(actionKind({ tool: 'str_replace_editor', args: { command: 'str_replace' } }), 'edit');
    assert.equal(actionKind({ tool: 'str_replace_editor', args: { command: 'create' } }), 'create');
    assert.equal(actionKind({ tool: 'run', args: {} }), 'run');
    assert.equal(actionKind({ tool: 'submit', args: {} }), 'submit');
    assert.equal(actionKind({ tool: null, args: {} }), 'unparsed');
  });
});
