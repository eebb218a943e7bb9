// windowed_edit_replace's refusals on the sample repository, review_on_submit_m, and a patch
// against the task's base commit.
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AciSession } from '../../../extension/core/aci/aciSession';
import { startAciOnSampleRepo, type AciFixture } from '../../helpers/aciSandbox';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';

const money = readFileSync(path.resolve(__dirname, '../../fixtures/sample-repo/tree/ledger/money.py'), 'utf8').split('\n');

describe('edit <search> <replace> and insert (tools/windowed_edit_replace)', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo({ bundles: ['windowed', 'windowed_edit_replace'] });
    await aci.session.runCommand('open ledger/money.py');
  });
  after(async () => {
    await aci?.dispose();
  });
  const run = (command: string) => aci.session.runCommand(command);

  test('no file open', async () => {
    const fresh = new AciSession(aci.sandbox, { tools: toolSetFor(['windowed', 'windowed_edit_replace']) });
    assert.deepEqual((await fresh.runCommand("edit 'a' 'b'")).observation, 'No file opened. Either `open` or `create` a file first.');
    assert.deepEqual((await fresh.runCommand("insert 'a'")).observation, 'No file opened. Use the `create` or `open` command first.');
  });

  test('refusals: empty search, identical strings, several hits in the window, no hit at all', async () => {
    // Python counts the empty string everywhere: SWE-agent calls it several hits.
    assert.deepEqual(Object.values(await run("edit '' 'x'")).slice(0, 2), [
      "Your edit was not applied (file not modified): Found more than one occurrence of '' in the currently displayed lines.\nPlease make your search string more specific (for example, by including more lines of context).",
      4,
    ]);
    const same = await run("edit 'CENT' 'CENT'");
    assert.deepEqual(
      [same.observation, same.exitCode],
      ['Your search and replace strings are the same. No changes were made. Please modify your search or replace strings.', 2],
    );
    const several = await run("edit 'quantize(CENT' 'quantize(PENNY'");
    assert.deepEqual(
      [several.observation, several.exitCode],
      [
        "Your edit was not applied (file not modified): Found more than one occurrence of 'quantize(CENT' in the currently displayed lines.\nPlease make your search string more specific (for example, by including more lines of context).",
        4,
      ],
    );
    const none = await run(`edit "it's absent" 'x'`);
    assert.deepEqual(
      [none.observation, none.exitCode],
      [
        `Your edit was not applied (file not modified): Text "it's absent" not found in displayed lines (or anywhere in the file).\nPlease modify your search string. Did you forget to properly handle whitespace/indentation?\nYou can also call \`open\` again to re-display the file with the correct context.`,
        3,
      ],
    );
  });

  test('text below the window is located for the agent', async () => {
    const line = money.indexOf('def sum_money(amounts, currency):') + 1;
    assert.ok(line > 100);
    const r = await run("edit 'def sum_money(amounts, currency):' 'def sum_money(amounts, currency=None):'");
    assert.deepEqual(
      [r.observation, r.exitCode],
      [
        `Your edit was not applied (file not modified): Text 'def sum_money(amounts, currency):' not found in displayed lines.\n\nHowever, we found the following occurrences of your search string in the file:\n\n- line ${line}\n\nYou can use the \`goto\` command to navigate to these locations before running the edit command again.`,
        3,
      ],
    );
  });

  test('a replacement in the window is applied and shown', async () => {
    const r = await run(`edit 'CENT = Decimal("0.01")' 'CENT = Decimal("0.010")'`);
    assert.equal(r.exitCode, 0);
    assert.ok(
      r.observation.startsWith(
        'Text replaced. Please review the changes and make sure they are correct:\n\n1. The edited file is correctly indented\n2. The edited file does not contain duplicate lines\n3. The edit does not break existing functionality\n\nEdit the file again if necessary.\n[File: /repo/ledger/money.py (115 lines total)]\n1:',
      ),
    );
    assert.equal((await aci.sandbox.exec('sed -n 8p ledger/money.py')).output, 'CENT = Decimal("0.010")\n');
  });

  test('insert after a line', async () => {
    const r = await run("insert '# money helpers' 2");
    assert.equal(r.exitCode, 0);
    assert.ok(r.observation.startsWith('[File: /repo/ledger/money.py (116 lines total)]\n1:'));
    assert.equal((await aci.sandbox.exec('sed -n 3p ledger/money.py')).output, '# money helpers\n');
  });
});

describe('edit <replace> for the whole window (tools/windowed_edit_rewrite)', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo({ bundles: ['windowed', 'windowed_edit_rewrite'] });
  });
  after(async () => {
    await aci?.dispose();
  });

  test('a clean rewrite replaces the displayed lines; a broken one is refused and leaves the file', async () => {
    await aci.session.runCommand('create scratch/w.py');
    await aci.session.runCommand(`printf 'a = 1\\nb = 2\\n' > scratch/w.py`);
    const ok = await aci.session.runCommand("edit 'a = 10\nb = 20\nc = 30'");
    assert.deepEqual([ok.observation, ok.exitCode], ['Edit successful.', 0]);
    assert.equal((await aci.sandbox.exec('cat scratch/w.py')).output, 'a = 10\nb = 20\nc = 30\n');
    const broken = await aci.session.runCommand("edit 'a = (\nb = 2'");
    assert.equal(broken.exitCode, 4);
    assert.match(broken.observation, /^\nYour proposed edit has introduced new syntax error\(s\)\. .*\n\nERRORS:\n\n- E999 SyntaxError: /s);
    assert.ok(
      broken.observation.includes(
        'This is the original code before your edit\n------------------------------------------------\n[File: /repo/scratch/w.py (3 lines total)]\n1:a = 10\n2:b = 20\n3:c = 30\n',
      ),
    );
    assert.equal((await aci.sandbox.exec('cat scratch/w.py')).output, 'a = 10\nb = 20\nc = 30\n');
  });
});

describe('submit with review (tools/review_on_submit_m) and against a base commit', () => {
  let aci: AciFixture;
  before(async () => {
    aci = await startAciOnSampleRepo({ bundles: ['submit', 'review_on_submit_m'] });
  });
  after(async () => {
    await aci?.dispose();
  });

  test('the first submit shows the diff for review, the second submits it', async () => {
    await aci.session.runCommand('echo "# reviewed" >> ledger/errors.py');
    const review = await aci.session.runCommand('submit');
    assert.equal(review.submission, undefined);
    assert.ok(review.observation.startsWith('Thank you for your work on this issue. Please carefully follow the steps below to help review your changes.\n'));
    assert.ok(review.observation.includes('<diff>\ndiff --git a/ledger/errors.py b/ledger/errors.py\n'));
    assert.ok(review.observation.endsWith('+# reviewed\n\n</diff>'));
    const submitted = await aci.session.runCommand('submit');
    assert.ok(submitted.submission?.startsWith('diff --git a/ledger/errors.py b/ledger/errors.py\n'));
    assert.equal(submitted.observation, submitted.submission);
  });

  test('with diff_state, every step state carries the staged diff', async () => {
    await aci.session.runCommand('git reset -q --hard HEAD');
    const session = new AciSession(aci.sandbox, { tools: toolSetFor(['tools/registry', 'tools/windowed', 'tools/diff_state']) });
    assert.equal(session.stepState().diff, '');
    const r = await session.runCommand('echo "# tracked" >> ledger/money.py');
    assert.ok(r.state.diff?.startsWith('diff --git a/ledger/money.py b/ledger/money.py\n'));
    assert.ok(r.state.diff?.endsWith('+# tracked'));
    await session.runCommand('git reset -q --hard HEAD');
    assert.equal((await session.runCommand('true')).state.diff, '');
  });

  test('with a base commit the patch spans every commit since it', async () => {
    const base = aci.repo.commits[0]?.sha ?? '';
    const session = new AciSession(aci.sandbox, { tools: toolSetFor(['submit']), config: { baseCommit: base } });
    await aci.session.runCommand('git reset -q --hard HEAD');
    const r = await session.runCommand('submit');
    const expected = execFileSync('git', ['-C', aci.repo.dir, 'diff', base, 'HEAD']).toString();
    assert.ok(expected.length > 0);
    assert.equal(r.submission, expected);
  });
});
