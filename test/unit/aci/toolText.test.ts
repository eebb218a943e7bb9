import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { clipObservation, markedCommand, splitCwdMarker } from '../../../extension/core/scaffolds/swe-agent/tools/bashOutput';
import { pathAsGiven, universalNewlines } from '../../../extension/core/aci/sandboxFiles';
import { parseLookup } from '../../../extension/core/scaffolds/swe-agent/tools/toolFiles';
import type { SweAgentVersion } from '../../../extension/core/scaffolds/swe-agent/tools/sweAgentVersion';
import { printedOutput } from '../../../extension/core/runtime/sandbox';
import { shellQuote, splitShellWords } from '../../../extension/core/parsing/shellWords';
import { catN, filemap, maybeTruncate } from '../../../extension/core/scaffolds/swe-agent/tools/editorText';
import { expandTabs, pyRepr } from '../../../extension/core/parsing/pythonText';

describe('shell words', () => {
  test('quotes, escapes and operators', () => {
    assert.deepEqual(splitShellWords(`a 'b c' "d \\"e\\"" f\\ g`), { words: ['a', 'b c', 'd "e"', 'f g'], compound: false });
    assert.deepEqual(splitShellWords('ls | wc -l'), { words: ['ls', 'wc', '-l'], compound: true });
    assert.deepEqual(splitShellWords('echo $(pwd)'), { words: ['echo', 'pwd'], compound: true });
    assert.deepEqual(splitShellWords("'multi\nline' x\n"), { words: ['multi\nline', 'x'], compound: false });
    assert.deepEqual(splitShellWords("it's"), { error: 'unterminated single quote at offset 2' });
  });

  test('shellQuote reads back as one word', () => {
    for (const value of ["it's", 'a b', '$HOME', 'plain/path.py', '', 'new\nline']) {
      assert.deepEqual(splitShellWords(`x ${shellQuote(value)}`), { words: ['x', value], compound: false });
    }
  });
});

describe('texts the tools print', () => {
  test('Python repr of a search string', () => {
    assert.equal(pyRepr('a\nb'), "'a\\nb'");
    assert.equal(pyRepr("it's"), `"it's"`);
    assert.equal(pyRepr(`'"`), `'\\'"'`);
    assert.equal(pyRepr('tab\there\\'), "'tab\\there\\\\'");
  });

  test('tabs expand to the next multiple of 8, per line', () => {
    assert.equal(expandTabs('a\tb\n\tc'), 'a       b\n        c');
  });

  test('cat -n numbering and the 16,000-character clip', () => {
    assert.equal(catN('x\ny', '/f', 9), "Here's the result of running `cat -n` on /f:\n     9\tx\n    10\ty\n");
    const long = 'z'.repeat(16_001);
    assert.equal(
      maybeTruncate(long),
      'z'.repeat(16_000) +
        '<response clipped><NOTE>To save on context only part of this file has been shown to you. You should retry this tool after you have searched inside the file with `grep -n` in order to find the line numbers of what you are looking for.</NOTE>',
    );
    assert.equal(maybeTruncate('z'.repeat(16_000)), 'z'.repeat(16_000));
  });

  test('filemap: bodies of five lines or more become one marker row, nested ones included', () => {
    const text = ['def f():', ...Array.from({ length: 8 }, (_, i) => `    x${i} = ${i}`), 'def g():', '    return 1', ''].join('\n');
    assert.equal(
      filemap(text, [
        [1, 8],
        [3, 8],
        [10, 10],
      ]),
      ['     1 def f():', '     2 ... eliding lines 2-9 ...', '     4 ... eliding lines 4-9 ...', '    10 def g():', '    11     return 1'].join('\n'),
    );
  });

  test('observation clipping says how much was left out', () => {
    assert.equal(clipObservation('abc', 5), 'abc');
    assert.match(clipObservation('abcdefgh', 5), /^abcde<response clipped><NOTE>Observations should not exceeded 5 characters\. 3 characters were elided\./);
    assert.match(clipObservation('abc', 5, 1000), /1000 characters were elided/);
  });

  test('the working-directory marker comes off the output, with the exit code kept', () => {
    const run = spawnSync('bash', ['-c', markedCommand('cd /tmp && printf "hi\\n"; exit_code() { return 3; }; exit_code')], { encoding: 'utf8' });
    assert.deepEqual(splitCwdMarker(run.stdout), { output: 'hi\n', cwd: '/tmp' });
    assert.equal(run.status, 3);
    const { output, cwd } = splitCwdMarker('no marker here\n');
    assert.deepEqual([output, cwd], ['no marker here\n', undefined]);
  });

  test('paths are shown as Python spells them', () => {
    assert.equal(pathAsGiven('./src//a.py'), 'src/a.py');
    assert.equal(pathAsGiven('/repo/ledger/'), '/repo/ledger');
    assert.equal(pathAsGiven('.'), '.');
  });
});

describe('line ends', () => {
  test("Python's text mode reads \\r\\n and a lone \\r as \\n, nothing else", () => {
    assert.equal(universalNewlines('a\r\nb\rc\nd\r'), 'a\nb\nc\nd\n');
    assert.equal(universalNewlines('x\r\r\ny'), 'x\n\ny');
    assert.equal(universalNewlines('form\ffeed\u2028kept\n'), 'form\ffeed\u2028kept\n');
  });

  test("SWE-agent 1.x's Python tools read in text mode, 0.7's shell functions read the bytes", () => {
    const crlf = 'A = 1\r\nB = 2\r\n';
    // The sandbox shell's answer for a file: its status line, then its bytes in base64.
    const answer = ['@file /repo/a.py', Buffer.from(crlf).toString('base64')];
    const read = (sweAgentVersion: SweAgentVersion | undefined) => {
      const lookup = parseLookup({ config: { window: 100, overlap: 2, commandTimeoutMs: 1000, maxObservationChars: 1000, sweAgentVersion } }, answer);
      return lookup.kind === 'file' ? lookup.text : lookup.kind;
    };
    for (const version of ['1.0.0', '1.0.1', '1.1.0', '3ea751c0', undefined] as const) assert.equal(read(version), 'A = 1\nB = 2\n', String(version));
    assert.equal(read('0.7'), crlf);
  });

  test("a pty's \\r\\n is undone exactly, a file's own \\r kept; without a pty the output is as printed", () => {
    assert.equal(printedOutput({ tty: true }, 'Line 1:a = 1\r\r\nLine 2:b\r\n'), 'Line 1:a = 1\r\nLine 2:b\n');
    assert.equal(printedOutput({ tty: false }, 'Line 1:a = 1\r\nLine 2:b\n'), 'Line 1:a = 1\r\nLine 2:b\n');
  });
});
