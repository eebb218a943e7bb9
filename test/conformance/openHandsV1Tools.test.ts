/**
 * OpenHands V1's tools (openhands-tools 1.43.1 in ../shared/oracles/openhands-v1) against ours,
 * call by call and byte for byte: `file_editor`, `task_tracker`, `glob`, `grep` and
 * `apply_patch`. Each sequence of calls runs through the reference's own executors in one
 * container and through our tool set in another, both from the same Debian 13 image (Python
 * 3.13, pydantic 2, ripgrep) on the same freshly generated repository; the text the model reads
 * and whether it is an error are compared, then the repository's files.
 *
 * The stored SDK copy lacks a few modules the tools import for incidental things (a logger, an
 * environment helper, message types that pull in litellm): `openHandsV1Driver.py` registers
 * small, labelled stand-ins for exactly those before importing the REAL executors; every
 * observation's wording and every file operation is the reference's own code. `terminal` runs
 * the SDK's TerminalExecutor on its default tmux backend; its shell parser (tree-sitter-bash) is
 * absent from the copy and from Debian, so the shim takes the executor's own fallback for an
 * input it cannot parse, which for the single statements below (some over several lines) is what
 * a parse gives; the refusal of several newline-separated commands is not exercised, and ours
 * runs such input whole.
 *
 * Known differences, left out of the cases: V1's terminal is a 256-column tmux pane, so `ls`
 * prints columns there and a tab reaches the model as spaces; ours runs the shell without a
 * terminal (`ls` one name a line, tabs kept).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe } from 'node:test';
import { AciSession } from '../../extension/core/aci/aciSession';
import { openHandsV1Family } from '../../extension/core/scaffolds/openhands-v1';
import { ensureOpenHandsV1Image } from '../helpers/openHandsV1Image';
import { needsShared } from '../helpers/sharedFolder';
import { writeGeneratedRepo } from './generatedRepo';
import { describeMismatches, mismatches, startConformanceSandbox, type CallOutcome } from './harness';

const run = promisify(execFile);
const oracles = needsShared('oracles');
const DRIVER = path.join(__dirname, 'openHandsV1Driver.py');
const REPO = '/repo';

interface Call {
  tool: string;
  args: Record<string, unknown>;
}
interface Sequence {
  name: string;
  /** For `terminal`: the SDK's backend (tmux, its default wherever tmux is installed, as in the agent server). */
  terminalType?: 'tmux';
  /** Bash run in the repository before the calls (both sides). */
  setup?: string;
  /** Bash run after the calls where the reference runs, which keeps one container for every sequence (ours is new each time). */
  teardown?: string;
  calls: Call[];
}

const sh = (command: string): Call => ({ tool: 'terminal', args: { command } });
const fe = (args: Record<string, unknown>): Call => ({ tool: 'file_editor', args });
const at = (rel: string) => `${REPO}/${rel}`;
/** Distinct modification times in path order, so "sorted by modification time" has one answer. */
const MTIMES = `i=0; find . -path ./.git -prune -o -type f -print | sort | while IFS= read -r f; do touch -d "@$((1700000000 + i))" "$f"; i=$((i + 1)); done`;

/**
 * Not among the cases: a view longer than 16,000 characters or a command printing more than
 * 30,000: the SDK's truncation (`openhands.sdk.utils.truncate`) is absent from the copy, so the
 * shim refuses such a case rather than guess its cut points. A file that is not UTF-8 is read
 * in the encoding charset-normalizer guesses (a Latin-1 `café crème` reads as cp1250
 * `café crčme`), on both sides by the image's charset-normalizer.
 */
const SEQUENCES: Sequence[] = [
  {
    name: 'file_editor view: folders, files, ranges and their refusals',
    setup:
      "printf 'a\\x00b\\x01' > blob.bin && mkdir -p deep/one/two/three && touch deep/one/two/three/f.py deep/.dot empty.txt && " +
      "printf 'caf\\xe9 cr\\xe8me br\\xfbl\\xe9e\\nna\\xefve\\n' > latin1.txt && ln -s tallyho/counter.py link.py",
    calls: [
      fe({ command: 'view', path: REPO }),
      fe({ command: 'view', path: at('tallyho') }),
      fe({ command: 'view', path: at('deep') }),
      fe({ command: 'view', path: at('tallyho/counter.py') }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [2, 5] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [3, -1] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [5, 50] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [50, 60] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [6, 3] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [0, 3] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [1] }),
      fe({ command: 'view', path: at('tallyho'), view_range: [1, 2] }),
      fe({ command: 'view', path: at('tallyho/missing.py') }),
      fe({ command: 'view', path: 'tallyho/counter.py' }),
      fe({ command: 'view', path: at('tallyho/crlf.py') }),
      fe({ command: 'view', path: at('tallyho/lone_cr.py') }),
      fe({ command: 'view', path: at('tallyho/tabs.py') }),
      fe({ command: 'view', path: at('tallyho/no_newline.py') }),
      fe({ command: 'view', path: at('tallyho/blank_end.py') }),
      fe({ command: 'view', path: at('tallyho/steps.py'), view_range: [200, 215] }),
      fe({ command: 'view', path: at('blob.bin') }),
      fe({ command: 'view', path: at('notes/README.txt') }),
      fe({ command: 'view', path: at('empty.txt') }),
      fe({ command: 'view', path: at('link.py') }),
      fe({ command: 'view', path: `${REPO}//tallyho/./counter.py/` }),
    ],
  },
  {
    name: 'file_editor create, str_replace, insert, undo_edit and their refusals',
    setup: "printf 'caf\\xe9 cr\\xe8me br\\xfbl\\xe9e\\nna\\xefve\\n' > latin1.txt",
    calls: [
      fe({ command: 'create', path: at('fresh.py'), file_text: 'one\ntwo\nthree\n' }),
      fe({ command: 'create', path: at('fresh.py'), file_text: 'again\n' }),
      fe({ command: 'create', path: at('nested/new/dir/file.txt'), file_text: 'deep' }),
      fe({ command: 'create', path: at('tallyho'), file_text: 'x' }),
      fe({ command: 'create', path: at('nofile.py') }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: '        self.value = 0', new_str: '        self.value = self.start' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: 'not there', new_str: 'x' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: '  def bump(self, by=1):  ', new_str: 'def bump(self, by=2):' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: 'self.value', new_str: 'self.count' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: 'start', new_str: 'start' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: 'class Counter:' }),
      fe({ command: 'str_replace', path: at('tallyho/dup.py'), old_str: 'x', new_str: 'y' }),
      fe({ command: 'str_replace', path: at('tallyho/crlf.py'), old_str: 'def', new_str: 'async def' }),
      fe({ command: 'str_replace', path: at('tallyho/counter.py'), old_str: '    def reset(self):\n', new_str: '' }),
      fe({ command: 'str_replace', path: at('tallyho'), old_str: 'a', new_str: 'b' }),
      fe({ command: 'str_replace', path: at('gone.py'), old_str: 'a', new_str: 'b' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 0, new_str: '# header' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 3, new_str: '    # two\n    # lines' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 999, new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: -1, new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 2 }),
      fe({ command: 'insert', path: at('tallyho/no_newline.py'), insert_line: 1, new_str: 'appended' }),
      fe({ command: 'view', path: at('tallyho/no_newline.py') }),
      fe({ command: 'undo_edit', path: at('tallyho/counter.py') }),
      fe({ command: 'undo_edit', path: at('tallyho/counter.py') }),
      fe({ command: 'undo_edit', path: at('fresh.py') }),
      fe({ command: 'undo_edit', path: at('notes/README.txt') }),
      fe({ command: 'view', path: at('tallyho/counter.py') }),
      fe({ command: 'frobnicate', path: at('tallyho/counter.py') }),
      fe({ command: 'str_replace', path: at('latin1.txt'), old_str: 'na\u00efve', new_str: 'naive \u2192 na\u00efve' }),
    ],
  },
  {
    name: 'file_editor: files past its 10 MB limit',
    // 10,747,904 bytes is 10.25 MB exactly: Python's format rounds the tie to even.
    setup:
      "head -c 11000000 /dev/zero | tr '\\0' 'x' > big.txt && head -c 10747904 /dev/zero | tr '\\0' 'y' > tie.txt && " +
      "head -c 10485761 /dev/zero > big.bin && yes 'a line of text' | head -c 20000000 > lines.txt",
    calls: [
      fe({ command: 'view', path: at('big.txt') }),
      fe({ command: 'view', path: at('tie.txt') }),
      fe({ command: 'view', path: at('big.bin') }),
      fe({ command: 'view', path: at('lines.txt'), view_range: [1, 3] }),
      fe({ command: 'str_replace', path: at('big.txt'), old_str: 'x', new_str: 'y' }),
      fe({ command: 'insert', path: at('lines.txt'), insert_line: 1, new_str: 'x' }),
      fe({ command: 'create', path: at('big.txt'), file_text: 'x' }),
      fe({ command: 'undo_edit', path: at('big.txt') }),
    ],
  },
  {
    name: 'file_editor: files that are not UTF-8, read in the encoding charset-normalizer guesses',
    setup: [
      "printf 'caf\\xe9 cr\\xe8me br\\xfbl\\xe9e\\nna\\xefve\\n' > latin1.txt",
      "printf 'valid start \\xff\\xfe broken\\n' > bad.txt",
      "printf 'one\\r\\ntw\\xf6\\r\\nthree\\r\\n' > crlf-latin1.txt",
      'python3 -c "' +
        [
          "open('koi8.txt', 'wb').write('Это русский текст в кодировке КОИ-8, проверка определения.\\nВторая строка.\\n'.encode('koi8-r'))",
          "open('cp1251.txt', 'wb').write('Это русский текст в кодировке Windows-1251, проверка определения.\\nВторая строка.\\n'.encode('cp1251'))",
          "open('gbk.txt', 'wb').write('这是一个中文文本文件，用于测试编码检测。\\n第二行。\\n'.encode('gbk'))",
          "open('sjis.txt', 'wb').write('これは日本語のテキストです。ファイルの文字コードはシフトJISです。\\n'.encode('shift_jis'))",
        ].join('; ') +
        '"',
    ].join(' && '),
    calls: [
      fe({ command: 'view', path: at('latin1.txt') }),
      fe({ command: 'view', path: at('bad.txt') }),
      fe({ command: 'view', path: at('crlf-latin1.txt') }),
      fe({ command: 'view', path: at('koi8.txt') }),
      fe({ command: 'view', path: at('cp1251.txt'), view_range: [2, 2] }),
      fe({ command: 'view', path: at('gbk.txt') }),
      fe({ command: 'view', path: at('sjis.txt') }),
      fe({ command: 'str_replace', path: at('koi8.txt'), old_str: 'Вторая строка.', new_str: 'Третья строка.' }),
      fe({ command: 'view', path: at('koi8.txt') }),
      fe({ command: 'insert', path: at('cp1251.txt'), insert_line: 1, new_str: 'Новая строка' }),
      fe({ command: 'str_replace', path: at('latin1.txt'), old_str: 'crčme', new_str: 'crème → crčme' }),
      fe({ command: 'view', path: at('latin1.txt') }),
      fe({ command: 'str_replace', path: at('gbk.txt'), old_str: '第二行', new_str: '第三行' }),
      fe({ command: 'insert', path: at('crlf-latin1.txt'), insert_line: 3, new_str: 'four' }),
      fe({ command: 'str_replace', path: at('sjis.txt'), old_str: 'x', new_str: 'y' }),
      fe({ command: 'undo_edit', path: at('koi8.txt') }),
      fe({ command: 'undo_edit', path: at('latin1.txt') }),
      fe({ command: 'view', path: at('latin1.txt') }),
    ],
  },
  {
    name: 'file_editor: numbers sent as strings, as pydantic reads them',
    calls: [
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: ['2', '5'] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [' 3 ', '-1'] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: '[1, 5]' }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: ['two', 5] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: ['1.0', '2.50'] }),
      fe({ command: 'view', path: at('tallyho/counter.py'), view_range: [true, '0_4'] }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '3', new_str: '# three' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: ' 1 ', new_str: '# one' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '2.00', new_str: '# two' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: true, new_str: '# true' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '1_0', new_str: '# ten' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '+0', new_str: '# zero' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '3.5', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 2.5, new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '3.', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '-1', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: 'three', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '0x2', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: '', new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: [3], new_str: 'x' }),
      fe({ command: 'insert', path: at('tallyho/counter.py'), insert_line: null, new_str: 'x' }),
      fe({ command: 'create', path: at('num.txt'), file_text: 42 }),
      fe({ command: 'view', path: at('tallyho/counter.py') }),
    ],
  },
  {
    name: 'terminal: a timeout sent as a string, as pydantic reads it',
    terminalType: 'tmux',
    calls: [
      { tool: 'terminal', args: { command: 'echo five', timeout: '5' } },
      { tool: 'terminal', args: { command: 'echo ten', timeout: ' 1e1 ' } },
      { tool: 'terminal', args: { command: 'echo half', timeout: '.5' } },
      { tool: 'terminal', args: { command: 'echo soon', timeout: 'soon' } },
      { tool: 'terminal', args: { command: 'echo minus', timeout: '-1' } },
      { tool: 'terminal', args: { command: 'echo minus', timeout: -1 } },
      { tool: 'terminal', args: { command: 'echo none', timeout: null } },
    ],
  },
  {
    name: 'terminal: output, exit codes, the working directory, the environment',
    terminalType: 'tmux',
    calls: [
      sh('echo hi'),
      sh('cd /tmp && ls /nonexistent'),
      sh('pwd'),
      sh("printf 'a\\nb'"),
      sh('true'),
      sh('false'),
      sh('export GREETING=hello'),
      sh('echo "$GREETING, world"'),
      sh('cd /repo/tallyho'),
      sh('ls -1'),
      sh('python3 -c "print(1 + 1)"'),
      sh("printf 'x\\n\\n\\n'"),
      sh('echo caf\u00e9 \u2713'),
      sh('echo to-stderr >&2'),
      sh('seq 1 40'),
      sh('git status --short | head -3'),
      sh('{"command": "ls"}'),
      sh(`  [{'a': "it's"}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]`),
      sh('[[x]]'),
      sh('[[ -d /repo ]] && echo yes'),
      sh('{ echo grouped; }'),
      sh('(exit 3)'),
    ],
  },
  {
    name: 'terminal: one statement over several lines',
    terminalType: 'tmux',
    calls: [
      sh("cat <<'EOF'\nfirst line\n  second $HOME\nEOF"),
      sh('for n in 1 2 3; do\n  echo "n=$n"\ndone'),
      sh('echo start &&\n  echo joined'),
      sh('echo continued \\\n  on the next line'),
      sh('echo "two\nlines"'),
      sh('if [ -d /repo ]; then\n  echo dir\nelse\n  echo none\nfi'),
      sh('python3 - <<EOF\nprint(sum(range(5)))\nEOF'),
      sh('{\n  echo grouped\n  false\n}'),
    ],
  },
  {
    name: 'task_tracker: view, plan, view again, empty plan',
    calls: [
      { tool: 'task_tracker', args: { command: 'view' } },
      {
        tool: 'task_tracker',
        args: {
          command: 'plan',
          task_list: [
            { title: 'Read the issue', notes: 'the counter resets to 0', status: 'done' },
            { title: 'Fix reset', status: 'in_progress' },
            { title: 'Add a test' },
          ],
        },
      },
      { tool: 'task_tracker', args: { command: 'view' } },
      { tool: 'task_tracker', args: { command: 'plan', task_list: [] } },
      { tool: 'task_tracker', args: { command: 'view' } },
      { tool: 'task_tracker', args: { command: 'plan' } },
    ],
  },
  {
    name: 'glob: relative, absolute and brace patterns, a path, truncation, refusals',
    setup: MTIMES,
    calls: [
      { tool: 'glob', args: { pattern: '*.txt' } },
      { tool: 'glob', args: { pattern: 'tallyho/*.py' } },
      { tool: 'glob', args: { pattern: '**/*.py' } },
      { tool: 'glob', args: { pattern: `${REPO}/tallyho/**/*.py` } },
      { tool: 'glob', args: { pattern: `${REPO}/notes` } },
      { tool: 'glob', args: { pattern: '**/*.{txt,md}' } },
      { tool: 'glob', args: { pattern: '*.py', path: at('tallyho') } },
      { tool: 'glob', args: { pattern: '*.rs' } },
      { tool: 'glob', args: { pattern: '*.py', path: at('nowhere') } },
      { tool: 'glob', args: { pattern: '*.py', path: at('notes/README.txt') } },
      { tool: 'glob', args: { pattern: 'secret.py' } },
      { tool: 'glob', args: { pattern: 'm_10?.txt', path: at('many') } },
      { tool: 'glob', args: { pattern: `${REPO}/*/m_00[1-3].txt` } },
    ],
  },
  {
    name: 'grep: patterns, include filters, a path, truncation, refusals',
    setup: MTIMES,
    calls: [
      { tool: 'grep', args: { pattern: 'Counter' } },
      { tool: 'grep', args: { pattern: 'counter', include: '*.py' } },
      { tool: 'grep', args: { pattern: 'def \\w+\\(self', path: at('tallyho') } },
      { tool: 'grep', args: { pattern: 'ROW_|step_|m_' } },
      { tool: 'grep', args: { pattern: 'zebra-unicorn' } },
      { tool: 'grep', args: { pattern: 'zebra-unicorn', include: '*.py' } },
      { tool: 'grep', args: { pattern: '(unclosed' } },
      { tool: 'grep', args: { pattern: 'x', path: at('nowhere') } },
      { tool: 'grep', args: { pattern: 'secret' } },
      { tool: 'grep', args: { pattern: 'value', include: '*.{py,txt}' } },
      { tool: 'grep', args: { pattern: 'needle' } },
      { tool: 'grep', args: { pattern: 'NEEDLE', include: 'm_0[0-4]?.txt', path: at('many') } },
      { tool: 'grep', args: { pattern: 'needle', path: at('.hidden') } },
      { tool: 'grep', args: { pattern: '-v' } },
    ],
  },
  {
    name: 'glob and grep where ripgrep is not installed',
    setup: `${MTIMES} && mv /usr/bin/rg /usr/bin/rg.hidden && ln -s ../notes tallyho/notes-link && touch .top-hidden.txt`,
    teardown: 'mv /usr/bin/rg.hidden /usr/bin/rg',
    calls: [
      { tool: 'glob', args: { pattern: '*.txt' } },
      { tool: 'glob', args: { pattern: 'tallyho/*.py' } },
      { tool: 'glob', args: { pattern: '**/*.py' } },
      { tool: 'glob', args: { pattern: `${REPO}/tallyho/**/*.py` } },
      { tool: 'glob', args: { pattern: '**/*.{txt,md}' } },
      { tool: 'glob', args: { pattern: '*.py', path: at('tallyho') } },
      { tool: 'glob', args: { pattern: '*.rs' } },
      { tool: 'glob', args: { pattern: '*.py', path: at('nowhere') } },
      { tool: 'glob', args: { pattern: 'secret.py' } },
      { tool: 'glob', args: { pattern: '.*' } },
      { tool: 'glob', args: { pattern: 'm_10?.txt', path: at('many') } },
      { tool: 'glob', args: { pattern: '*.txt', path: at('many') } },
      { tool: 'glob', args: { pattern: 'm_0[0-9]?.txt', path: at('many') } },
      { tool: 'glob', args: { pattern: `${REPO}/*/m_00[1-3].txt` } },
      { tool: 'glob', args: { pattern: '**/README*' } },
      { tool: 'grep', args: { pattern: 'Counter' } },
      { tool: 'grep', args: { pattern: 'counter', include: '*.py' } },
      { tool: 'grep', args: { pattern: 'zebra-unicorn' } },
      { tool: 'grep', args: { pattern: 'needle' } },
      { tool: 'grep', args: { pattern: 'ROW_|step_' } },
      { tool: 'grep', args: { pattern: 'def \\w+\\(self', path: at('tallyho') } },
      { tool: 'grep', args: { pattern: 'secret' } },
      { tool: 'grep', args: { pattern: 'value', include: '*.{py,txt}' } },
      { tool: 'grep', args: { pattern: 'a{1,', path: at('tallyho') } },
      { tool: 'grep', args: { pattern: '-v' } },
    ],
  },
  {
    name: 'apply_patch: add, update, delete, move, and refused patches',
    calls: [
      {
        tool: 'apply_patch',
        args: {
          patch: [
            '*** Begin Patch',
            '*** Add File: added/hello.py',
            '+print("hello")',
            '+print("world")',
            '*** Update File: tallyho/counter.py',
            '@@ class Counter:',
            '     def reset(self):',
            '-        self.value = 0',
            '+        self.value = self.start',
            '*** Delete File: tallyho/dup.py',
            '*** End Patch',
          ].join('\n'),
        },
      },
      {
        tool: 'apply_patch',
        args: {
          patch: [
            '*** Begin Patch',
            '*** Update File: notes/README.txt',
            '*** Move to: docs/README.txt',
            '@@',
            '-nothing like this',
            '+x',
            '*** End Patch',
          ].join('\n'),
        },
      },
      { tool: 'apply_patch', args: { patch: 'not a patch' } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Delete File: nowhere.py', '*** End Patch'].join('\n') } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Add File: tallyho/counter.py', '+x', '*** End Patch'].join('\n') } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Add File: ../escape.py', '+x', '*** End Patch'].join('\n') } },
      {
        tool: 'apply_patch',
        args: {
          patch: [
            '*** Begin Patch',
            '*** Update File: tallyho/steps.py',
            '@@ def step_003(x):',
            '-    return x + 3',
            '+    return x + 33',
            '@@ def step_050(x):',
            '     return x + 50',
            '+',
            '+# after fifty',
            '@@',
            ' def step_109(x):',
            '-    return x + 109',
            '+    return x - 109',
            '*** End of File',
            '*** Update File: tallyho/crlf.py',
            '*** Move to: moved/crlf.py',
            '@@',
            '-def crlf_func(a):  ',
            '+def crlf_func(a, b=0):',
            '*** End Patch',
          ].join('\n'),
        },
      },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Add File: x.py', 'no plus', '*** End Patch'].join('\n') } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Frobnicate File: x.py', '*** End Patch'].join('\n') } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Add File: y.py', '+y'].join('\n') } },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Add File: y.py', '+y', '*** Add File: y.py', '+z', '*** End Patch'].join('\n') } },
      {
        tool: 'apply_patch',
        args: { patch: ['*** Begin Patch', '*** Update File: tallyho/tabs.py', '*** Move to: ../out.py', '@@', '+x', '*** End Patch'].join('\n') },
      },
      { tool: 'apply_patch', args: { patch: ['*** Begin Patch', '*** Update File: tallyho/tabs.py', 'bad line', '*** End Patch'].join('\n') } },
      {
        tool: 'apply_patch',
        args: { patch: ['*** Begin Patch', '*** Update File: tallyho/tabs.py', '@@ nowhere at all', ' zzz', '+x', '*** End Patch'].join('\n') },
      },
      { tool: 'apply_patch', args: { patch: '  *** Begin Patch\n*** End Patch' } },
      { tool: 'apply_patch', args: { patch: '*** Begin Patch\n*** End Patch\n\n' } },
    ],
  },
];

interface ReferenceOutcome {
  observation?: string;
  isError?: boolean;
  /** The SDK refused the arguments before any tool ran (pydantic's message). */
  invalid?: string;
}

/**
 * What the model reads and whether it is an error; a call refused before running compares as
 * `refused` (its wording is pydantic's). The one random part of any observation, the temporary
 * file name a failed write reports (`tempfile.mkstemp`), is masked on both sides.
 */
const outcome = (observation: string, refused: boolean, isError: boolean): CallOutcome => ({
  observation: refused ? '(refused before running)' : observation.replace(/\.[a-z0-9_]{8}\.tmp'/g, ".RANDOM__.tmp'"),
  exitCode: refused ? 2 : isError ? 1 : 0,
});

/** Every regular file under the repository with its bytes' hash, so the end states compare. */
const FILE_HASHES = `cd ${REPO} && find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha1sum`;

describe("OpenHands V1 tools, ours against the reference's executors (openhands-tools 1.43.1)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-oh-v1-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const repoDir = path.join(dir, 'repo');
  let image = '';
  let reference: { results: ReferenceOutcome[][]; files: string[][] } = { results: [], files: [] };

  before(async () => {
    if (!oracles.present) return;
    writeGeneratedRepo(repoDir);
    image = await ensureOpenHandsV1Image();
    const job = path.join(dir, 'job.json');
    writeFileSync(
      job,
      JSON.stringify({
        workdir: REPO,
        source: '/src',
        hashes: FILE_HASHES,
        sequences: SEQUENCES.map(({ setup, teardown, calls, terminalType }) => ({ setup, teardown, calls, terminalType })),
      }),
    );
    const mounts = [`${repoDir}:/src:ro`, `${oracles.path('openhands-v1')}:/oracle:ro`, `${DRIVER}:/driver.py:ro`, `${job}:/job.json:ro`].flatMap((m) => [
      '-v',
      m,
    ]);
    const { stdout } = await run('docker', ['run', '--rm', '--network', 'none', ...mounts, image, 'python3', '/driver.py', '/job.json'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    reference = JSON.parse(stdout);
  });

  SEQUENCES.forEach((sequence, index) => {
    oracles.test(sequence.name, async () => {
      const sandbox = await startConformanceSandbox({ repoDir, repoPath: REPO, tty: false, image });
      try {
        if (sequence.setup) {
          const setup = await sandbox.exec(`cd ${REPO} && ${sequence.setup}`, { timeoutMs: 60_000 });
          assert.equal(setup.exitCode, 0, setup.output);
        }
        const scaffold = openHandsV1Family.create('1');
        const session = new AciSession(sandbox, { tools: scaffold.tools, present: scaffold.present });
        const mine: CallOutcome[] = [];
        for (const call of sequence.calls) {
          const r = await session.runTool(call.tool, call.args);
          // A terminal command's exit code is in its text; the flag is the tool's own error.
          mine.push(outcome(r.observation, r.formatError !== undefined, call.tool !== 'terminal' && r.exitCode !== 0));
        }
        const theirs = (reference.results[index] ?? []).map((r, i) =>
          outcome(r.observation ?? '', r.invalid !== undefined, sequence.calls[i]?.tool !== 'terminal' && r.isError === true),
        );
        const labels = sequence.calls.map((c) => `${c.tool} ${JSON.stringify(c.args)}`);
        const found = mismatches(labels, theirs, mine);
        assert.deepEqual(found, [], describeMismatches(found));
        const files = await sandbox.exec(FILE_HASHES, { timeoutMs: 60_000 });
        assert.deepEqual(files.output.split('\n').filter(Boolean), reference.files[index]?.filter(Boolean), 'the repository after the calls differs');
      } finally {
        await sandbox.dispose();
      }
    });
  });
});
