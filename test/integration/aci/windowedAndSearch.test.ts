// The windowed viewer and the search tools in a real container, on the sample repository.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';

const tree = path.resolve(__dirname, '../../fixtures/sample-repo/tree');
const journal = readFileSync(path.join(tree, 'ledger/journal.py'), 'utf8').split('\n');
const JOURNAL_LINES = 315;

/** `N:text` lines of journal.py from..to (1-based, inclusive), as the viewer numbers them. */
function numbered(from: number, to: number): string[] {
  return journal.slice(from - 1, to).map((text, i) => `${from + i}:${text}`);
}

describe('windowed viewer and search (tools/windowed, tools/search)', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo();
  });
  after(async () => {
    await aci?.dispose();
  });

  const run = (command: string) => aci.session.runCommand(command);

  test('the fixture file is the 315-line journal.py', () => {
    assert.equal(journal.length - 1, JOURNAL_LINES);
  });

  test('open without a line shows the first 100 lines and what lies below', async () => {
    const r = await run('open ledger/journal.py');
    assert.equal(r.exitCode, 0);
    assert.equal(r.observation, ['[File: ledger/journal.py (315 lines total)]', ...numbered(1, 100), '(215 more lines below)'].join('\n'));
    assert.deepEqual(r.state, { open_file: '/repo/ledger/journal.py', working_dir: '/repo' });
  });

  test('open with a line puts it about 17 lines down the window', async () => {
    const r = await run('open "ledger/journal.py" 150');
    // first shown line = (150 - 1) - 100/6, truncated: 132 lines above.
    assert.equal(
      r.observation,
      ['[File: ledger/journal.py (315 lines total)]', '(132 more lines above)', ...numbered(133, 232), '(83 more lines below)'].join('\n'),
    );
  });

  test('open past the end warns and shows the last window', async () => {
    const r = await run('open ledger/journal.py 999');
    assert.equal(
      r.observation,
      [
        'Warning: <line_number> (999) is greater than the number of lines in the file (315)',
        'Warning: Setting <line_number> to 315',
        '[File: ledger/journal.py (315 lines total)]',
        '(215 more lines above)',
        ...numbered(216, 315),
      ].join('\n'),
    );
  });

  test('goto shows the absolute path; goto past the end is an error', async () => {
    const r = await run('goto 40');
    assert.equal(
      r.observation,
      ['[File: /repo/ledger/journal.py (315 lines total)]', '(22 more lines above)', ...numbered(23, 122), '(193 more lines below)'].join('\n'),
    );
    const past = await run('goto 316');
    assert.deepEqual([past.observation, past.exitCode], ['Error: <line> must be less than or equal to 315', 1]);
  });

  test('scrolling moves by 98 lines and stops at both ends', async () => {
    await run('goto 1');
    const top = await run('scroll_up');
    assert.equal(top.observation, ['[File: /repo/ledger/journal.py (315 lines total)]', ...numbered(1, 100), '(215 more lines below)'].join('\n'));
    const down = await run('scroll_down');
    assert.equal(
      down.observation,
      ['[File: /repo/ledger/journal.py (315 lines total)]', '(98 more lines above)', ...numbered(99, 198), '(117 more lines below)'].join('\n'),
    );
    await run('scroll_down');
    await run('scroll_down');
    const bottom = await run('scroll_down');
    assert.equal(bottom.observation, ['[File: /repo/ledger/journal.py (315 lines total)]', '(215 more lines above)', ...numbered(216, 315)].join('\n'));
    const back = await run('scroll_up');
    assert.equal(back.observation.split('\n')[1], '(117 more lines above)');
  });

  test('goto and scrolling show a file over 64 KB and one holding a NUL as they show any other', async () => {
    // Both are past what the shell's builtins read (the window is then cut from the whole file).
    await aci.sandbox.exec("seq 1 9000 | sed 's/^/row /' > /tmp/big.txt; printf 'a\\0b\\nc\\n' > /tmp/nul.txt");
    await run('open /tmp/big.txt');
    const rows = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}:row ${from + i}`);
    const end = await run('goto 8990');
    assert.equal(end.observation, ['[File: /tmp/big.txt (9000 lines total)]', '(8900 more lines above)', ...rows(8901, 9000)].join('\n'));
    const up = await run('scroll_up');
    assert.equal(
      up.observation,
      ['[File: /tmp/big.txt (9000 lines total)]', '(8802 more lines above)', ...rows(8803, 8902), '(98 more lines below)'].join('\n'),
    );
    await run('open /tmp/nul.txt');
    const nul = await run('goto 2');
    assert.equal(nul.observation, '[File: /tmp/nul.txt (2 lines total)]\n1:a\0b\n2:c');
  });

  test('create refuses an existing file and opens a new one', async () => {
    const existing = await run('create ledger/journal.py');
    assert.deepEqual([existing.observation, existing.exitCode], ["Warning: File 'ledger/journal.py' already exists.", 1]);
    const created = await run('create scratch/reproduce.py');
    // SWE-agent 1.1 and later create an empty file (1.0 wrote a newline: `(1 lines total)`, `1:`).
    assert.deepEqual([created.observation, created.exitCode], ['[File: scratch/reproduce.py (0 lines total)]', 0]);
    assert.equal(created.state.open_file, '/repo/scratch/reproduce.py');
  });

  test('viewer commands before any open say so', async () => {
    const fresh = await startAciOnSampleRepo();
    try {
      const r = await fresh.session.runCommand('scroll_down');
      assert.deepEqual([r.observation, r.exitCode, r.state.open_file], ['No file open. Use the open command first.', 1, null]);
      const missing = await fresh.session.runCommand('open nowhere.py');
      assert.deepEqual([missing.observation, missing.exitCode], ['Error: File nowhere.py not found', 1]);
      const dir = await fresh.session.runCommand('open ledger/');
      assert.equal(dir.observation, 'Error: ledger is a directory. You can only open files. Use cd or ls to navigate directories.');
    } finally {
      await fresh.dispose();
    }
  });

  test('an action with arguments its schema refuses is a format error and runs nothing', async () => {
    const before = aci.session.stepState();
    const r = await aci.session.run({ tool: 'goto', args: { line_number: 'forty' } });
    assert.deepEqual(r, {
      observation: "Invalid arguments for goto: argument 'line_number': Invalid input: expected number, received string",
      exitCode: 2,
      state: before,
      formatError: "Invalid arguments for goto: argument 'line_number': Invalid input: expected number, received string",
    });
    assert.equal((await aci.session.run({ tool: 'vim', args: {} })).formatError, "Command 'vim' not found in list of available commands.");
  });

  test('find_file: hits with a wildcard in a directory, and a miss', async () => {
    const pyFiles = readdirSync(path.join(tree, 'ledger')).filter((f) => f.endsWith('.py'));
    const r = await run('find_file "*.py" ledger');
    const lines = r.observation.split('\n');
    assert.equal(lines[0], `Found ${pyFiles.length} matches for "*.py" in /repo/ledger:`);
    assert.deepEqual(lines.slice(1).sort(), pyFiles.map((f) => `/repo/ledger/${f}`).sort());
    assert.equal((await run('find_file money.py')).observation, 'Found 1 matches for "money.py" in /repo:\n/repo/ledger/money.py');
    assert.equal((await run('find_file nope.py')).observation, 'No matches found for "nope.py" in /repo');
    assert.equal((await run('find_file x.py nodir')).observation, 'Directory nodir not found');
  });

  test('search_dir counts matching lines per file, skipping hidden and binary files', async () => {
    await run(`mkdir -p .hidden && echo 'class Money' > .hidden/x.py && printf 'Money\\0binary' > ledger/blob.bin`);
    const r = await run('search_dir "Money" ledger');
    const expected = readdirSync(path.join(tree, 'ledger'))
      .sort()
      .map(
        (f) =>
          [
            f,
            readFileSync(path.join(tree, 'ledger', f), 'utf8')
              .split('\n')
              .filter((l) => l.includes('Money')).length,
          ] as const,
      )
      .filter(([, n]) => n > 0);
    const total = expected.reduce((s, [, n]) => s + n, 0);
    assert.equal(
      r.observation,
      [
        `Found ${total} matches for "Money" in /repo/ledger:`,
        ...expected.map(([f, n]) => `/repo/ledger/${f} (${n} matches)`),
        'End of matches for "Money" in /repo/ledger',
      ].join('\n'),
    );
    assert.ok(!(await run('search_dir "class Money"')).observation.includes('.hidden'));
    assert.equal((await run('search_dir zzz_absent')).observation, 'No matches found for "zzz_absent" in /repo');
  });

  test('search_dir over 100 matching files asks to narrow the search', async () => {
    await run('mkdir -p many && for i in $(seq 1 101); do echo needle > many/f$i.txt; done');
    const r = await run('search_dir needle many');
    assert.equal(r.observation, 'More than 101 files matched for "needle" in /repo/many. Please narrow your search.');
  });

  test('search_file in the open file and in a named file', async () => {
    await run('open ledger/journal.py');
    const hits = journal.map((text, i) => [i + 1, text] as const).filter(([, text]) => text.includes('def balance'));
    const r = await run('search_file "def balance"');
    assert.equal(
      r.observation,
      [
        `Found ${hits.length} matches for "def balance" in /repo/ledger/journal.py:`,
        ...hits.map(([n, text]) => `Line ${n}:${text}`),
        'End of matches for "def balance" in /repo/ledger/journal.py',
      ].join('\n'),
    );
    assert.equal((await run('search_file zzz_absent ledger/money.py')).observation, 'No matches found for "zzz_absent" in /repo/ledger/money.py');
    assert.equal(
      (await run('search_file x nofile.py')).observation,
      'Usage: search_file <search_term> [<file>]\nError: File name nofile.py not found. Please provide a valid file name.',
    );
  });

  test('after cd through a symlink, and with the working directory renamed away, the search tools name what realpath names', async () => {
    await run(
      'mkdir -p /tmp/swb-real/inner && cp /repo/ledger/money.py /tmp/swb-real/inner/m.py && ln -sfn /tmp/swb-real /tmp/swb-link && cd /tmp/swb-link/inner',
    );
    assert.equal((await run('realpath m.py')).observation, '/tmp/swb-real/inner/m.py');
    assert.match((await run('search_file Money m.py')).observation, /^Found \d+ matches for "Money" in \/tmp\/swb-real\/inner\/m\.py:\n/);
    assert.equal((await run('find_file m.py ..')).observation, 'Found 1 matches for "m.py" in /tmp/swb-real:\n/tmp/swb-real/inner/m.py');
    // The lookups leave the shell where it was, under the name it was given, with `cd -` intact.
    assert.equal((await run('pwd; echo "$OLDPWD"')).observation, '/tmp/swb-link/inner\n/repo');

    await run('mkdir -p /tmp/swb-wd && cp /repo/ledger/money.py /tmp/swb-wd/m.py && cd /tmp/swb-wd && mv /tmp/swb-wd /tmp/swb-moved');
    assert.equal((await run('realpath m.py')).observation, '/tmp/swb-moved/m.py');
    assert.match((await run('search_file Money m.py')).observation, /^Found \d+ matches for "Money" in \/tmp\/swb-moved\/m\.py:\nLine /);
    assert.equal((await run('find_file m.py')).observation, 'Found 1 matches for "m.py" in /tmp/swb-moved:\n/tmp/swb-moved/m.py');
    await run('cd /repo');
  });
});
