import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { flake8Script, formatErrors, introducedErrors, parseFlake8 } from '../../../extension/core/scaffolds/swe-agent/tools/flake8Guard';

const lint = (...lines: string[]) => parseFlake8(lines.join('\n'));

describe('flake8 guard', () => {
  test('reads flake8 lines and ignores anything else', () => {
    assert.deepEqual(lint("/r/a.py:5:12: F821 undefined name 'x'", 'bash: flake8: command not found', ''), [
      { file: '/r/a.py', line: 5, column: 12, problem: "F821 undefined name 'x'" },
    ]);
  });

  test('runs only on Python files', () => {
    assert.equal(flake8Script('/r/notes.txt'), 'true');
  });

  test('an image without flake8 is an error naming the cause, not a guard that lets every edit through', () => {
    const output = execFileSync('/bin/bash', ['-c', `PATH=/nonexistent; ${flake8Script('/r/a b.py')}`], { encoding: 'utf8' });
    assert.throws(() => parseFlake8(output), /no flake8.*pip install flake8/);
  });

  test('no errors before: every error after counts', () => {
    const after = lint("/r/a.py:1:1: F821 undefined name 'x'");
    assert.deepEqual(introducedErrors([], after, [5, 5], 1), after);
  });

  test('an earlier error below the edit is excused at its shifted line, not at its old one', () => {
    const before = lint("/r/a.py:10:5: F821 undefined name 'y'");
    assert.deepEqual(introducedErrors(before, lint("/r/a.py:12:5: F821 undefined name 'y'"), [2, 2], 3), []);
    assert.equal(introducedErrors(before, lint("/r/a.py:10:5: F821 undefined name 'y'"), [2, 2], 3).length, 1);
  });

  test('errors inside the replaced lines are never excused; errors above the edit are ignored', () => {
    const before = lint("/r/a.py:3:1: F821 undefined name 'a'", "/r/a.py:1:1: F821 undefined name 'b'");
    const after = lint("/r/a.py:3:1: F821 undefined name 'a'", "/r/a.py:1:1: F821 undefined name 'c'");
    assert.deepEqual(formatErrors(introducedErrors(before, after, [3, 4], 2)), "- F821 undefined name 'a'");
  });
});
