import '../../helpers/families';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { compareObservations, knownNormalisers, normalisersNamed } from '../../../extension/core/session/divergence';
import { lineDiff } from '../../../extension/core/session/lineDiff';
import { breakAfter, breakBefore, describeBreakpoint, editedFile, observationFlags } from '../../../extension/core/session/breakpoints';
import type { NextAction } from '../../../extension/core/session/actionSources';
import { aBashAction, aStep } from '../../builders/trajectory';

/** The normalisers of these names, as `replay --forgive` names them. */
const named = (...names: string[]) => normalisersNamed(names);

describe('divergence: normalisers', () => {
  test("a pty recording's \\r\\n matches a replay's \\n, and nothing else is forgiven without a normaliser", () => {
    assert.equal(compareObservations('a\r\nb\r\n', 'a\nb\n').matched, true);
    assert.equal(compareObservations('a\r\nb', 'a\nb', []).matched, false);
  });

  test('test durations, clock times and dates are forgiven by `timings` only', () => {
    const recorded = '===== 12 passed in 0.31s =====\nstarted 2024-03-04 09:12:00';
    const replayed = '===== 12 passed in 1.07s =====\nstarted 2026-11-22 01:50:38';
    assert.equal(compareObservations(recorded, replayed, named('timings')).matched, true);
    assert.equal(compareObservations(recorded, replayed, named('line-endings', 'trailing-whitespace')).matched, false);
    assert.equal(compareObservations('===== 12 passed in 0.31s', '===== 11 passed in 0.31s', named('timings')).matched, false);
  });

  test('temporary paths, pids, colours and trailing spaces each have their normaliser', () => {
    assert.equal(named('temp-paths')[0]!.apply('/tmp/tmpa8x_2k/out.txt'), '<tmp>/out.txt');
    assert.equal(named('temp-paths')[0]!.apply('/tmp/pytest-of-root/pytest-7/test_a0'), '<tmp>/test_a0');
    assert.equal(named('pids')[0]!.apply('[1] 4242\nkilled pid 77'), '[1] <pid>\nkilled pid <pid>');
    assert.equal(named('ansi')[0]!.apply('\x1b[32mPASSED\x1b[0m'), 'PASSED');
    assert.equal(named('trailing-whitespace')[0]!.apply('x  \ny\t\n\n'), 'x\ny');
  });

  test('every normaliser says what it forgives', () => {
    for (const n of knownNormalisers()) assert.ok(n.forgives.length > 10, n.name);
  });
});

describe('divergence: line diff', () => {
  test('shows the changed line with context, recorded as - and replayed as +', () => {
    const recorded = [
      '[File: /repo/ledger/money.py (120 lines total)]',
      '75:    def allocate(self, ratios):',
      '76:        """Split."""',
      '77:        if not ratios:',
    ];
    const replayed = [
      '[File: /repo/ledger/money.py (121 lines total)]',
      '75:    # note',
      '76:    def allocate(self, ratios):',
      '77:        """Split."""',
      '78:        if not ratios:',
    ];
    assert.equal(
      lineDiff(recorded, replayed),
      [
        '@@ -1,4 +1,5 @@',
        '-[File: /repo/ledger/money.py (120 lines total)]',
        '-75:    def allocate(self, ratios):',
        '-76:        """Split."""',
        '-77:        if not ratios:',
        '+[File: /repo/ledger/money.py (121 lines total)]',
        '+75:    # note',
        '+76:    def allocate(self, ratios):',
        '+77:        """Split."""',
        '+78:        if not ratios:',
      ].join('\n'),
    );
  });

  test('a common head and tail are cut down to two lines of context', () => {
    const a = ['1', '2', '3', '4', 'old', '6', '7', '8'];
    const b = ['1', '2', '3', '4', 'new', '6', '7', '8'];
    assert.equal(lineDiff(a, b), ['@@ -5,1 +5,1 @@', ' 3', ' 4', '-old', '+new', ' 6', ' 7'].join('\n'));
  });
});

function next(tool: string | null, args: Record<string, unknown> = {}, extra: Partial<NextAction> = {}): NextAction {
  return { thought: '', action: { raw: '', tool, args }, ...extra };
}

describe('breakpoints', () => {
  test('a step breakpoint is named by the step number a person typed: index 4 is "step 5"', () => {
    // askStep turns the typed 5 into index 4; the Session view must say "break at step 5" back.
    assert.equal(describeBreakpoint({ kind: 'step', index: 4 }), 'step 5');
  });

  test('before a step: by index, tool name, format error, and an edit to a given file', () => {
    const bps = [
      { kind: 'step' as const, index: 3 },
      { kind: 'tool' as const, tool: 'submit' },
      { kind: 'format-error' as const },
      { kind: 'edit-file' as const, path: 'ledger/money.py' },
    ];
    assert.equal(breakBefore(bps, 3, next('bash'), null)?.kind, 'step');
    assert.equal(breakBefore(bps, 1, next('submit'), null)?.kind, 'tool');
    assert.equal(breakBefore(bps, 1, next(null, {}, { formatError: 'no command' }), null)?.kind, 'format-error');
    assert.equal(breakBefore(bps, 1, next('edit', { start_line: 1, end_line: 1 }), '/repo/ledger/money.py')?.kind, 'edit-file');
    assert.equal(breakBefore(bps, 1, next('edit', { start_line: 1, end_line: 1 }), '/repo/ledger/journal.py'), undefined);
    assert.equal(breakBefore(bps, 1, next('str_replace_editor', { command: 'str_replace', path: '/repo/ledger/money.py' }), null)?.kind, 'edit-file');
    assert.equal(breakBefore(bps, 1, next('str_replace_editor', { command: 'view', path: '/repo/ledger/money.py' }), null), undefined);
    assert.equal(breakBefore(bps, 1, next('open', { path: 'ledger/money.py' }), null), undefined);
  });

  test('after a step: non-zero exit code, lint-rejected edit, divergence', () => {
    const step = (exitCode: number, observation = '', flags?: string[]) =>
      aStep({ action: aBashAction('true'), observation, exitCode, ...(flags ? { flags } : {}) });
    assert.equal(breakAfter([{ kind: 'exit-code' }], step(2), false)?.kind, 'exit-code');
    assert.equal(breakAfter([{ kind: 'exit-code' }], step(0), false), undefined);
    assert.equal(breakAfter([{ kind: 'divergence' }], step(0), true)?.kind, 'divergence');
    const rejected = 'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.';
    assert.deepEqual(observationFlags(rejected, 1), ['lint-rejected']);
    assert.equal(breakAfter([{ kind: 'lint-rejected' }], step(1, rejected, observationFlags(rejected, 1)), false)?.kind, 'lint-rejected');
  });

  test('create names its file; edit edits the open file', () => {
    assert.equal(editedFile(next('create', { filename: 'new.py' }), '/repo/a.py'), 'new.py');
    assert.equal(editedFile(next('edit', {}), '/repo/a.py'), '/repo/a.py');
    assert.equal(editedFile(next('goto', { line_number: 1 }), '/repo/a.py'), undefined);
  });
});

describe('environment normalisers', () => {
  test("git's abbreviated hashes are forgiven only when chosen", () => {
    const recorded = 'diff --git a/x b/x\nindex 27ddd68..18b6bed 100644\n1a2b3c4 fix the sum';
    const replayed = 'diff --git a/x b/x\nindex 27ddd6812..18b6bed2a 100644\n1a2b3c4d fix the sum';
    assert.equal(compareObservations(recorded, replayed).matched, false, 'the default comparison does not forgive them');
    assert.equal(compareObservations(recorded, replayed, named('git-hashes')).matched, true);
    assert.equal(named('git-hashes')[0]!.environment, true);
    assert.equal(named('git-hashes')[0]!.apply('1234567 lines and deadbeef'), '1234567 lines and deadbeef', 'numbers and plain words stay');
  });
});
