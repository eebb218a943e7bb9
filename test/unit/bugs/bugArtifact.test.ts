import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { BUG_FILES, bugScope, loadBugArtifact, saveBugArtifact } from '../../../extension/core/bugs/bugArtifact';
import { DEFAULT_TEST_PARSER } from '../../../extension/core/bugs/defaultBugScripts';
import { solverSpec } from '../../../extension/core/bugs/solverTask';
import { InputError } from '../../../extension/core/errors';
import { bugArtifact, oneLineDiff } from '../../builders/bugArtifact';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const fixtures = path.join(repoRoot, 'test/fixtures/bugs');
const thirdParty = thirdPartyFiles.dir;
const scratch = () => mkdtempSync(path.join(tmpdir(), 'bug-artifact-'));

describe('bug folders', () => {
  test('the valid sample bug loads with its five files', async () => {
    const bug = await loadBugArtifact(path.join(fixtures, 'valid-allocate-and-close'));
    assert.equal(bug.testFiles.length, 5);
    assert.ok(bug.testFiles.includes('tests/test_money.py'));
    assert.deepEqual(bugScope(bug), { sourceFiles: ['ledger/journal.py', 'ledger/money.py'], testFilesTouched: [] });
  });

  test('a missing file is named with the folder', async () => {
    const dir = scratch();
    await saveBugArtifact(dir, bugArtifact());
    rmSync(path.join(dir, BUG_FILES.testWeakenDiff));
    await assert.rejects(
      loadBugArtifact(dir),
      (err: unknown) => err instanceof InputError && err.file === path.join(dir, 'test_weaken.diff') && /missing/.test(err.problem),
    );
  });

  test('a folder missing several files names them all, in the folder order, in one error', async () => {
    const dir = scratch();
    await saveBugArtifact(dir, bugArtifact());
    for (const name of [BUG_FILES.testWeakenDiff, BUG_FILES.testScript, BUG_FILES.testParser]) rmSync(path.join(dir, name));
    await assert.rejects(loadBugArtifact(dir), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(err.file, dir);
      assert.match(err.problem, /^missing test_script\.sh, test_parser\.py, test_weaken\.diff: a bug folder holds /);
      return true;
    });
  });

  test('a diff writing outside the repository is refused at load, with file and line', async () => {
    const dir = scratch();
    await saveBugArtifact(dir, bugArtifact());
    writeFileSync(path.join(dir, BUG_FILES.bugInjectDiff), oneLineDiff('../outside.py'));
    await assert.rejects(
      loadBugArtifact(dir),
      (err: unknown) => err instanceof InputError && err.file === path.join(dir, 'bug_inject.diff') && err.where === 'line 1',
    );
  });

  test('a test file list climbing out of the repository is refused with its line', async () => {
    const dir = scratch();
    await saveBugArtifact(dir, bugArtifact());
    writeFileSync(path.join(dir, BUG_FILES.testFiles), 'tests/test_a.py\n/etc/passwd\n');
    await assert.rejects(loadBugArtifact(dir), (err: unknown) => err instanceof InputError && err.where === 'line 2');
  });

  test('save then load gives the same bug, replacing an older folder whole', async () => {
    const dir = path.join(scratch(), 'bug');
    await saveBugArtifact(dir, bugArtifact({ testFiles: ['tests/old.py'] }));
    writeFileSync(path.join(dir, 'stale.txt'), 'left from before');
    const bug = bugArtifact();
    await saveBugArtifact(dir, bug);
    assert.deepEqual(await loadBugArtifact(dir), bug);
    assert.deepEqual(readdirSync(dir).sort(), Object.values(BUG_FILES).sort());
    assert.deepEqual(readdirSync(path.dirname(dir)), ['bug']);
  });

  test('saving an invalid bug writes nothing', async () => {
    const dir = path.join(scratch(), 'bug');
    await assert.rejects(saveBugArtifact(dir, bugArtifact({ bugInjectDiff: oneLineDiff('/etc/shadow') })), InputError);
    assert.deepEqual(readdirSync(path.dirname(dir)), []);
  });

  test('bug scope sees a test file touched by the bug, listed or by convention', () => {
    const bug = bugArtifact({ bugInjectDiff: oneLineDiff('pkg/core.py') + oneLineDiff('pkg/tests/test_extra.py') + oneLineDiff('conftest.py') });
    assert.deepEqual(bugScope(bug), { sourceFiles: ['pkg/core.py'], testFilesTouched: ['pkg/tests/test_extra.py', 'conftest.py'] });
  });
});

describe('the default parser', () => {
  thirdPartyFiles.test('turns real pytest output into the map, from a file or stdin', () => {
    const dir = scratch();
    const parser = path.join(dir, 'test_parser.py');
    writeFileSync(parser, DEFAULT_TEST_PARSER);
    const output = path.join(thirdParty, 'swe-smith/run_validation/test_output.txt');
    const fromFile = JSON.parse(execFileSync('python3', [parser, output], { encoding: 'utf8' })) as Record<string, string>;
    const fromStdin = JSON.parse(execFileSync('python3', [parser], { input: readFileSync(output), encoding: 'utf8' })) as Record<string, string>;
    assert.deepEqual(fromFile, fromStdin);
    assert.equal(Object.keys(fromFile).length, 11);
    assert.equal(fromFile['pandas/tests/indexing/test_datetime.py::TestDatetimeIndex::test_getitem_pyarrow_index[Series]'], 'FAILED');
  });
});

describe('solver spec and instances', () => {
  test('the spec is the reverse of the weakening', async () => {
    const bug = await loadBugArtifact(path.join(fixtures, 'valid-allocate-and-close'));
    const spec = solverSpec(bug);
    assert.match(spec, /^\+def test_allocate_keeps_every_cent\(\):$/m);
    assert.match(spec, /^-def test_allocate_three_ways\(\):$/m);
    assert.match(spec, /^\+    assert journal\.balance\("Equity:Retained Earnings"\)\["EUR"\] == eur\("-1138\.00"\)$/m);
  });
});
