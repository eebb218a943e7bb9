import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TaskInstanceSchema } from '../../../extension/core/reward/instance';
import { testCommandFor } from '../../../extension/core/rollouts/testCommand';

const instance = (extra: Record<string, unknown>) =>
  TaskInstanceSchema.parse({
    instance_id: 'acme__x-1',
    FAIL_TO_PASS: ['tests/test_b.py::test_one', 'tests/test_a.py::TestK::test_two'],
    PASS_TO_PASS: ['tests/test_b.py::test_three'],
    ...extra,
  });

describe('the test command a forced patch is graded with', () => {
  test('pytest -rA over the files the test ids name, each once, quoted', () => {
    assert.equal(testCommandFor(instance({})), "pytest -rA -p no:cacheprovider $'tests/test_a.py' $'tests/test_b.py'");
  });

  test("the instance's own test_cmd wins, and --test-command wins over it", () => {
    assert.equal(testCommandFor(instance({ test_cmd: 'tox -e py311' })), 'tox -e py311');
    assert.equal(testCommandFor(instance({ test_cmd: 'tox -e py311' }), 'make check'), 'make check');
  });

  test('ids that name no file (unittest style) without a command are refused, saying what to give', () => {
    const unittest = TaskInstanceSchema.parse({ instance_id: 'acme__y-2', FAIL_TO_PASS: ['test_one (tests.test_b.TestB)'], PASS_TO_PASS: [] });
    assert.deepEqual(testCommandFor(unittest), { error: "instance 'acme__y-2' has no test_cmd and its test ids name no pytest file; give --test-command" });
  });
});
