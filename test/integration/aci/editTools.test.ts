// The editing tools in a real container: the flake8-guarded `edit`, str_replace_editor, bash, submit.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../../extension/core/aci/aciSession';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';

const tree = path.resolve(__dirname, '../../fixtures/sample-repo/tree');
const fixture = (rel: string) => readFileSync(path.join(tree, rel), 'utf8');

/** The viewer's window over `lines` from 0-based `first`, as SWE-agent prints it. */
function windowOf(file: string, lines: string[], first: number): string {
  const total = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  const last = Math.min(first + 100, total);
  const out = [`[File: ${file} (${total} lines total)]`];
  if (first > 0) out.push(`(${first} more lines above)`);
  out.push(...lines.slice(first, last).map((text, i) => `${first + i + 1}:${text}`));
  if (last < total) out.push(`(${total - last} more lines below)`);
  return out.join('\n');
}

/** `cat -n` as str_replace_editor prints it: `%6d\t<line>`; observations lose the final newline. */
function catN(descriptor: string, lines: string[], from = 1): string {
  return `Here's the result of running \`cat -n\` on ${descriptor}:\n${lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`).join('\n')}\n`;
}

describe('linted edit (tools/windowed_edit_linting)', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo();
  });
  after(async () => {
    await aci?.dispose();
  });
  const run = (command: string) => aci.session.runCommand(command);
  const fileText = async (rel: string) => (await aci.sandbox.exec(`base64 -w0 ${rel}`)).output.trim();

  test('an edit with a syntax error is rolled back with both windows and the flake8 error', async () => {
    const money = fixture('ledger/money.py').split('\n');
    await run('open ledger/money.py');
    const before = await fileText('ledger/money.py');
    const r = await run('edit 14:14\n        raise TypeError("unclosed"\nend_of_edit');
    assert.equal(r.exitCode, 1);
    const edited = [...money.slice(0, 13), '        raise TypeError("unclosed"', ...money.slice(14)];
    const errors = /\nERRORS:\n(.*)\n\nThis is how/.exec(r.observation)?.[1] ?? '';
    assert.match(errors, /^- E999 SyntaxError: /);
    assert.equal(
      r.observation,
      `Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.

ERRORS:
${errors}

This is how your edit would have looked if applied
------------------------------------------------
${windowOf('/repo/ledger/money.py', edited, 0)}
------------------------------------------------

This is the original code before your edit
------------------------------------------------
${windowOf('/repo/ledger/money.py', money, 0)}
------------------------------------------------

Your changes have NOT been applied. Please fix your edit command and try again.
DO NOT re-run the same failed edit command. Running it again will lead to the same error.`,
    );
    assert.equal(await fileText('ledger/money.py'), before);
  });

  test('a lint-clean edit is applied and the window moves to it', async () => {
    const money = fixture('ledger/money.py').split('\n');
    await run('goto 100');
    const r = await run('edit 13:14\n    if isinstance(value, (float, complex)):\n        raise TypeError("floats are not money")\nend_of_edit');
    const edited = [
      ...money.slice(0, 12),
      '    if isinstance(value, (float, complex)):',
      '        raise TypeError("floats are not money")',
      ...money.slice(14),
    ];
    assert.equal(r.exitCode, 0);
    assert.equal(
      r.observation,
      'File updated. Please review the changes and make sure they are correct\n(correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n' +
        windowOf('/repo/ledger/money.py', edited, 0),
    );
    assert.equal((await aci.sandbox.exec('sed -n 14p ledger/money.py')).output, '        raise TypeError("floats are not money")\n');
  });

  test('errors present before the edit are excused at their shifted line; new ones are not', async () => {
    await run(`mkdir -p scratch && printf 'import os\\n\\n\\ndef f():\\n    return undefined_thing\\n' > scratch/pre.py`);
    await run('open scratch/pre.py');
    const excused = await run('edit 1:1\nimport os\nimport sys\nend_of_edit');
    assert.equal(excused.exitCode, 0, excused.observation);
    assert.equal((await aci.sandbox.exec('sed -n 6p scratch/pre.py')).output, '    return undefined_thing\n');
    const rejected = await run('edit 3:3\nprint(other_missing)\nend_of_edit');
    assert.equal(rejected.exitCode, 1);
    assert.match(rejected.observation, /\nERRORS:\n- F821 undefined name 'other_missing'\n\n/);
    assert.equal((await aci.sandbox.exec('sed -n 3p scratch/pre.py')).output, '\n');
  });

  test('edit with no open file', async () => {
    const fresh = await startAciOnSampleRepo({ bundles: ['windowed', 'windowed_edit_linting'] });
    try {
      const r = await fresh.session.runCommand('edit 1:1\nx\nend_of_edit');
      assert.deepEqual([r.observation, r.exitCode], ['No file opened. Use the `open` command first.', 1]);
    } finally {
      await fresh.dispose();
    }
  });
});

describe('str_replace_editor (tools/edit_anthropic)', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo({ bundles: ['edit_anthropic', 'submit'] });
  });
  after(async () => {
    await aci?.dispose();
  });
  const edit = (args: Record<string, unknown>) => aci.session.runTool('str_replace_editor', args);

  test('view of a file, of a range and of a directory', async () => {
    const errors = fixture('ledger/errors.py').split('\n');
    const whole = await edit({ command: 'view', path: '/repo/ledger/errors.py' });
    assert.equal(whole.observation, catN('/repo/ledger/errors.py', errors).trimEnd());
    const range = await edit({ command: 'view', path: '/repo/ledger/errors.py', view_range: [3, 5] });
    assert.equal(range.observation, catN('/repo/ledger/errors.py', errors.slice(2, 5), 3).trimEnd());
    const toEnd = await edit({ command: 'view', path: '/repo/ledger/errors.py', view_range: [30, -1] });
    assert.equal(toEnd.observation, catN('/repo/ledger/errors.py', errors.slice(29), 30).trimEnd());
    const dir = await edit({ command: 'view', path: '/repo/ledger' });
    const [head, ...listed] = dir.observation.split('\n');
    assert.equal(head, "Here's the files and directories up to 2 levels deep in /repo/ledger, excluding hidden items:");
    const expected = ['/repo/ledger', ...readdirSync(path.join(tree, 'ledger')).map((f) => `/repo/ledger/${f}`)];
    assert.deepEqual(listed.filter(Boolean).sort(), expected.sort());
  });

  test('bad view ranges and relative paths get the exact messages and exit codes', async () => {
    const bad = await edit({ command: 'view', path: '/repo/ledger/errors.py', view_range: [0, 3] });
    assert.deepEqual(
      [bad.observation, bad.exitCode],
      ['Invalid `view_range`: [0, 3]. Its first element `0` should be within the range of lines of the file: [1, 32]', 12],
    );
    const relative = await edit({ command: 'view', path: 'ledger/errors.py' });
    assert.deepEqual(
      [relative.observation, relative.exitCode],
      ['The path ledger/errors.py is not an absolute path, it should start with `/`. Maybe you meant /repo/ledger/errors.py?', 6],
    );
  });

  test('str_replace with zero, several and one match', async () => {
    const none = await edit({ command: 'str_replace', path: '/repo/ledger/money.py', old_str: 'no such text', new_str: 'x' });
    assert.deepEqual(
      [none.observation, none.exitCode],
      ['No replacement was performed, old_str `no such text` did not appear verbatim in /repo/ledger/money.py.', 15],
    );

    const money = fixture('ledger/money.py').split('\n');
    const lines = money.flatMap((l, i) => (l.includes('CENT') ? [i + 1] : []));
    const several = await edit({ command: 'str_replace', path: '/repo/ledger/money.py', old_str: 'CENT', new_str: 'PENNY' });
    assert.deepEqual(
      [several.observation, several.exitCode],
      [`No replacement was performed. Multiple occurrences of old_str \`CENT\` in lines [${lines.join(', ')}]. Please ensure it is unique`, 16],
    );

    const one = await edit({
      command: 'str_replace',
      path: '/repo/ledger/money.py',
      old_str: 'class Money:',
      new_str: 'class Money:\n    """An amount and its currency."""',
    });
    const at = money.indexOf('class Money:');
    const after = [...money.slice(0, at + 1), '    """An amount and its currency."""', ...money.slice(at + 1)];
    assert.equal(one.exitCode, 0);
    assert.equal(
      one.observation,
      `The file /repo/ledger/money.py has been edited. ${catN('a snippet of /repo/ledger/money.py', after.slice(at - 5, at + 5), at - 4)}Review the changes and make sure they are as expected. Edit the file again if necessary.`,
    );
  });

  test('insert after a line; undo_edit finds no history, as in SWE-agent (its history is never saved)', async () => {
    const errors = fixture('ledger/errors.py').split('\n');
    const r = await edit({ command: 'insert', path: '/repo/ledger/errors.py', insert_line: 6, new_str: '# inserted' });
    const snippet = [...errors.slice(2, 6), '# inserted', ...errors.slice(6, 10)];
    assert.equal(
      r.observation,
      `The file /repo/ledger/errors.py has been edited. ${catN('a snippet of the edited file', snippet, 3)}Review the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.`,
    );
    assert.equal((await aci.sandbox.exec('sed -n 7p ledger/errors.py')).output, '# inserted\n');
    const nothing = await edit({ command: 'undo_edit', path: '/repo/ledger/errors.py' });
    assert.deepEqual([nothing.observation, nothing.exitCode], ['No edit history found for /repo/ledger/errors.py.', 18]);
    assert.equal((await aci.sandbox.exec('sed -n 7p ledger/errors.py')).output, '# inserted\n', 'the insert stays');
  });

  test('create: a new file, an existing file, a missing folder', async () => {
    const made = await edit({ command: 'create', path: '/repo/ledger/fx.py', file_text: 'RATES = {}\n' });
    assert.deepEqual([made.observation, made.exitCode], ['File created successfully at: /repo/ledger/fx.py', 0]);
    const again = await edit({ command: 'create', path: '/repo/ledger/fx.py', file_text: '' });
    assert.deepEqual([again.observation, again.exitCode], ['File already exists at: /repo/ledger/fx.py. Cannot overwrite files using command `create`.', 8]);
    const orphan = await edit({ command: 'create', path: '/repo/nowhere/x.py', file_text: '' });
    assert.deepEqual([orphan.observation, orphan.exitCode], ['The parent directory /repo/nowhere does not exist. Please create it first.', 21]);
  });

  test('bash: exit codes, a persistent working directory, clipped output, a timeout', async () => {
    const failed = await aci.session.runCommand('echo to-stderr >&2; (exit 3)');
    assert.deepEqual([failed.observation, failed.exitCode], ['to-stderr', 3]);
    const moved = await aci.session.runCommand('cd ledger');
    assert.equal(moved.state.working_dir, '/repo/ledger');
    assert.equal((await aci.session.runCommand('ls money.py')).observation, 'money.py');
    await aci.session.runCommand('cd /repo');
    const long = await aci.session.runTool('bash', { command: 'seq 1 30000' });
    assert.match(long.observation, /<response clipped><NOTE>Observations should not exceeded 100000 characters\. 68893 characters were elided\./);
    const slow = new AciSession(aci.sandbox, { tools: toolSetFor(), config: { commandTimeoutMs: 1000 } });
    const timedOut = await slow.runCommand('sleep 30');
    assert.match(timedOut.observation, /^The command 'sleep 30' was cancelled because it took more than 1 seconds\./);
    assert.equal((await aci.session.runCommand('echo alive')).observation, 'alive');
  });

  test('a command reading stdin gets end of input; a cancelled call stops and the shell lives on', async () => {
    assert.deepEqual(Object.values(await aci.session.runCommand('cat; read line; echo "read=$?"')).slice(0, 2), ['read=1', 0]);
    const stop = new AbortController();
    const running = aci.session.runCommand('sleep 30', stop.signal);
    setTimeout(() => stop.abort('stopped by the person'), 300);
    await assert.rejects(running, (err: Error) => err.name === 'CancelledError');
    await assert.rejects(aci.session.runCommand('echo never', stop.signal), (err: Error) => err.name === 'CancelledError');
    assert.equal((await aci.session.runCommand('echo alive')).observation, 'alive');
  });

  test('submit prints the staged diff of every change', async () => {
    await aci.session.runCommand('cd /repo && rm -f ledger/fx.py && printf "x = 1\\n" > notes.py');
    const r = await aci.session.runCommand('submit');
    assert.equal(r.exitCode, 0);
    // ledger/errors.py keeps the insert of an earlier test (undo_edit undoes nothing, as in SWE-agent).
    assert.ok(r.submission?.startsWith('diff --git a/ledger/errors.py b/ledger/errors.py\n'), r.submission);
    assert.ok(r.submission?.includes('+# inserted\n'));
    assert.equal(r.observation, `\n${r.submission}`);
    assert.ok(r.submission?.includes('+    """An amount and its currency."""\n'));
    assert.ok(r.submission?.includes('diff --git a/notes.py b/notes.py\nnew file mode 100644\n'));
    assert.ok(!r.submission?.includes('fx.py'));
  });
});
