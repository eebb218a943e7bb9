import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A small Python package no test has seen before, written from code at test time, with the
 * shapes the tools' edge cases need: a file over the viewer's window, line breaks only `splitlines()` counts, over 100 matching lines,
 * over 16,000 characters, tab indentation, a missing final newline, a trailing empty line, an
 * existing flake8 error, repeated lines, over 100 matching files, a hidden folder, Windows
 * (`\r\n`) and lone `\r` line endings, with and without a final line break.
 */
export function writeGeneratedRepo(dir: string): void {
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  write('tallyho/__init__.py', '"""Counting things."""\nfrom .counter import Counter\n\n__all__ = ["Counter"]\n');
  write(
    'tallyho/counter.py',
    [
      'class Counter:',
      '    def __init__(self, start=0):',
      '        self.value = start',
      '',
      '    def bump(self, by=1):',
      '        self.value += by',
      '        return self.value',
      '',
      '    def reset(self):',
      '        self.value = 0',
      '',
    ].join('\n'),
  );
  const steps = Array.from({ length: 110 }, (_, i) => `def step_${String(i).padStart(3, '0')}(x):\n    return x + ${i}\n`);
  write('tallyho/steps.py', `"""Generated steps."""\n\n\n${steps.join('\n')}`);
  const rows = Array.from({ length: 420 }, (_, i) => `ROW_${String(i).padStart(3, '0')} = "${'abcdefghij'.repeat(4)}-${i}"`);
  write('tallyho/big.py', rows.join('\n') + '\n');
  // Breaks that Python's splitlines() counts and split("\n") does not: a form feed between
  // sections (as in CPython's own sources) and a U+2028 inside a string.
  const pages = Array.from({ length: 130 }, (_, i) => `PAGE_${i} = ${i}`);
  pages[4] = '\f';
  pages[60] = 'SEPARATOR = "a\u2028b"';
  write('tallyho/pages.py', pages.join('\n') + '\n');
  write('tallyho/tabs.py', 'def tabbed(a):\n\tif a:\n\t\treturn "yes"\t# tab inside\n\treturn "no"\n');
  write('tallyho/no_newline.py', 'ANSWER = 42\nQUESTION = None');
  write('tallyho/blank_end.py', 'first = 1\n\nsecond = 2\n\n');
  write('tallyho/broken.py', 'def uses_missing():\n    return missing_name + 1\n\n\ndef fine():\n    return 2\n');
  write('tallyho/dup.py', 'x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n');
  // Line endings other than `\n`: Python's text mode reads `\r\n` and a lone `\r` as `\n`.
  const crlf = (lines: string[]) => lines.join('\r\n');
  write('tallyho/crlf.py', crlf(['def crlf_func(a):', '    return a + 1', '', '', 'CRLF_VALUE = crlf_func(1)', '']));
  write('tallyho/crlf_lint.py', crlf(['CRLF_LINT = 1', 'CRLF_OTHER = 2', '']));
  write('tallyho/crlf_open_end.py', crlf(['CRLF_X = 1', 'CRLF_Y = 2']));
  write('tallyho/lone_cr.py', 'CR_A = 1\rCR_B = 2\nCR_C = 3\r\nCR_D = 4\r');
  write('notes/README.txt', 'Notes for tallyho.\nneedle in the notes\n');
  for (let i = 0; i < 105; i++) write(`many/m_${String(i).padStart(3, '0')}.txt`, `haystack ${i}\nneedle\n`);
  write('.hidden/secret.py', 'needle = "hidden"\n');
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'generated');
}
