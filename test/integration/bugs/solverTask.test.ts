import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bugScope, loadBugArtifact, type BugArtifact } from '../../../extension/core/bugs/bugArtifact';
import { bugFromSandbox } from '../../../extension/core/bugs/bugFromSandbox';
import { runBugTests, stageBug } from '../../../extension/core/bugs/bugTestRun';
import { higherOrderBug, prepareSolverRepo } from '../../../extension/core/bugs/solverTask';
import { validateLikeSweSmith } from '../../../extension/core/bugs/sweSmithValidation';
import { parseUnifiedDiff, touchedPaths } from '../../../extension/core/diff/unifiedDiff';
import type { Sandbox } from '../../../extension/core/runtime/sandbox';
import { bugFixtureDir, containersLeft, sampleRepoForBugs, sandboxFactory } from '../../helpers/bugSandboxes';

const suite = 'bug-solver-task';
let create: (signal?: AbortSignal) => Promise<Sandbox>;
let valid: BugArtifact;

async function withSandbox<T>(body: (s: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await create();
  try {
    return await body(sandbox);
  } finally {
    await sandbox.dispose();
  }
}

before(async () => {
  create = sandboxFactory((await sampleRepoForBugs()).dir, suite);
  valid = await loadBugArtifact(await bugFixtureDir('valid-allocate-and-close'));
});

after(async () => {
  assert.equal(await containersLeft(suite), 0);
});

describe('bugs in real containers', () => {
  test('a bug made from an edited working tree splits source and test changes', async () => {
    const bug = await withSandbox(async (s) => {
      for (const diff of [valid.bugInjectDiff, valid.testWeakenDiff]) {
        await s.writeFile('/tmp/change.diff', diff);
        assert.equal((await s.exec('git apply /tmp/change.diff')).exitCode, 0);
      }
      await s.writeFile('ledger/new_helper.py', 'HELPER = 1\n');
      return bugFromSandbox(s);
    });
    assert.deepEqual(bugScope(bug).sourceFiles, ['ledger/journal.py', 'ledger/money.py', 'ledger/new_helper.py']);
    assert.deepEqual(touchedPaths(parseUnifiedDiff(bug.testWeakenDiff)), ['tests/test_journal.py', 'tests/test_money.py']);
    assert.deepEqual(bug.testFiles, [
      'tests/test_accounts.py',
      'tests/test_journal.py',
      'tests/test_money.py',
      'tests/test_parser.py',
      'tests/test_reports.py',
    ]);
    assert.match(bug.bugInjectDiff, /^new file mode 100644$/m);
  });

  test('a bug saved in the working tree stays out of the next bug and stays on disk', async () => {
    const { bug, left } = await withSandbox(async (s) => {
      await s.writeFile('/tmp/change.diff', valid.bugInjectDiff);
      assert.equal((await s.exec('git apply /tmp/change.diff')).exitCode, 0);
      await s.writeFile('bugs/earlier/bug_inject.diff', valid.bugInjectDiff);
      await s.writeFile('bugs/earlier/test_files.txt', valid.testFiles.join('\n'));
      await s.writeFile('notes/bug_inject.diff', 'one artifact name alone is not a saved bug\n');
      const bug = await bugFromSandbox(s, { excludeSavedBugs: true });
      return { bug, left: (await s.exec('git status --porcelain --untracked-files=all')).output.split('\n').filter(Boolean).sort() };
    });
    assert.deepEqual(bugScope(bug).sourceFiles, ['ledger/journal.py', 'ledger/money.py', 'notes/bug_inject.diff']);
    assert.deepEqual(
      left,
      ['?? bugs/earlier/bug_inject.diff', '?? bugs/earlier/test_files.txt', '?? notes/bug_inject.diff', ' M ledger/journal.py', ' M ledger/money.py'].sort(),
    );
  });

  test("the solver's repository has the bug, the weakened tests and no history to leak the answer", async () => {
    await withSandbox(async (s) => {
      const task = await prepareSolverRepo(s, valid);
      assert.equal((await s.exec('git log --oneline | wc -l')).output.trim(), '1');
      assert.equal((await s.exec('git status --porcelain | wc -l')).output.trim(), '0');
      assert.doesNotMatch(await s.readFile('ledger/money.py'), /leftover/);
      assert.doesNotMatch(await s.readFile('tests/test_money.py'), /test_allocate_keeps_every_cent/);
      assert.match(task.originalTests.get('tests/test_money.py') ?? '', /def test_allocate_keeps_every_cent/);
      assert.match(task.spec, /^\+def test_allocate_keeps_every_cent\(\):$/m);
      assert.equal((await s.exec('ls -a .. | grep -c swe-workbench-bug')).output.trim(), '0');
    });
  });

  test("a solver's failed patch on top of the bug becomes a higher-order bug", async () => {
    const failedFix = [
      'diff --git a/ledger/money.py b/ledger/money.py',
      '--- a/ledger/money.py',
      '+++ b/ledger/money.py',
      '@@ -82,6 +82,7 @@ class Money:',
      '             (total.amount * to_decimal(r) / to_decimal(whole)).quantize(CENT, rounding=ROUND_DOWN)',
      '             for r in ratios',
      '         ]',
      '+        parts[0] += total.amount - sum(parts)',
      '         return [Money(part, self.currency) for part in parts]',
      ' ',
      '     def __str__(self):',
      '',
    ].join('\n');
    const bug = await withSandbox((s) => higherOrderBug(s, valid, failedFix));
    assert.match(bug.bugInjectDiff, /^\+        parts\[0\] \+= total\.amount - sum\(parts\)$/m);
    assert.match(bug.bugInjectDiff, /^-            if self\.chart\.get\(name\)\.type\.is_permanent:$/m);
    assert.equal(bug.testWeakenDiff, valid.testWeakenDiff);
    // the first part takes the remainder: the allocation tests pass again, the journal's still fails
    const run = await withSandbox(async (s) => {
      await stageBug(s, bug);
      return runBugTests(s, bug, { bug: true, weaken: false }, { baseRef: 'HEAD', timeoutMs: 300_000 });
    });
    assert.ok(run.ok);
    const failing = [...run.statuses].filter(([, st]) => st === 'FAILED' || st === 'ERROR').map(([id]) => id);
    assert.deepEqual(failing, ['tests/test_journal.py::test_close_period_zeroes_income_and_expenses']);
  });

  test('SWE-smith validation finds the broken tests as FAIL_TO_PASS and the gold fix', async () => {
    const v = await withSandbox((s) => validateLikeSweSmith(s, valid));
    assert.equal(v.valid, true);
    assert.deepEqual(v.lists.FAIL_TO_PASS.sort(), [
      'tests/test_journal.py::test_close_period_zeroes_income_and_expenses',
      'tests/test_money.py::test_allocate_keeps_every_cent',
      'tests/test_money.py::test_allocate_negative_amount_keeps_every_cent',
    ]);
    assert.equal(v.lists.PASS_TO_PASS.length, 54);
    assert.match(v.goldPatch, /^\+        leftover = total\.amount - sum\(parts\)$/m);
  });
});
