import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadBugArtifact } from '../../../extension/core/bugs/bugArtifact';
import { CancelledError } from '../../../extension/core/errors';
import { runConsistencyChecks, type CheckResult, type ConsistencyOptions } from '../../../extension/core/bugs/consistencyChecks';

type CheckName = CheckResult['name'];
import { bugFixtureDir, containersLeft, sampleRepoForBugs, sandboxFactory } from '../../helpers/bugSandboxes';

const suite = 'bug-consistency-checks';
let createSandbox: ConsistencyOptions['createSandbox'];

before(async () => {
  createSandbox = sandboxFactory((await sampleRepoForBugs()).dir, suite);
});

after(async () => {
  assert.equal(await containersLeft(suite), 0, 'every sandbox is disposed');
});

async function check(fixture: string, options: Partial<ConsistencyOptions> = {}): Promise<Map<CheckName, CheckResult>> {
  const bug = await loadBugArtifact(await bugFixtureDir(fixture));
  const seen: CheckName[] = [];
  const results = await runConsistencyChecks(bug, { createSandbox, parallel: 2, onCheck: (r) => seen.push(r.name), ...options });
  assert.deepEqual(
    seen,
    results.map((r) => r.name),
    'onCheck reports each check in order',
  );
  return new Map(results.map((r) => [r.name, r]));
}

function failedOnly(results: Map<CheckName, CheckResult>): CheckName[] {
  return [...results.values()].filter((r) => !r.passed).map((r) => r.name);
}

describe('the seven consistency checks on the sample repository', () => {
  test('the valid bug passes all seven, with its evidence', async () => {
    const r = await check('valid-allocate-and-close');
    assert.deepEqual(failedOnly(r), []);
    assert.equal(r.size, 7);
    assert.equal(Object.keys(r.get('parser-validity')?.evidence.statuses ?? {}).length, 57);
    assert.deepEqual(r.get('bug-validity')?.evidence.failing?.sort(), [
      'tests/test_journal.py::test_close_period_zeroes_income_and_expenses',
      'tests/test_money.py::test_allocate_keeps_every_cent',
      'tests/test_money.py::test_allocate_negative_amount_keeps_every_cent',
    ]);
    const perFile = r.get('inverse-mutation')?.evidence.perFile ?? [];
    assert.deepEqual(
      perFile.map((f) => [f.file, f.turnedPassing.sort()]),
      [
        ['ledger/journal.py', ['tests/test_journal.py::test_close_period_zeroes_income_and_expenses']],
        ['ledger/money.py', ['tests/test_money.py::test_allocate_keeps_every_cent', 'tests/test_money.py::test_allocate_negative_amount_keeps_every_cent']],
      ],
    );
  });

  test('a listed test file that does not exist fails check 1 only', async () => {
    const r = await check('missing-test-file');
    assert.deepEqual(failedOnly(r), ['test-files-exist']);
    assert.match(r.get('test-files-exist')?.detail ?? '', /tests\/test_budget\.py/);
  });

  test('a parser printing words fails parser validity, and the checks needing its map say why', async () => {
    const r = await check('garbage-parser');
    assert.deepEqual(failedOnly(r), ['parser-validity', 'script-validity', 'bug-validity', 'weakening-validity', 'inverse-mutation']);
    assert.match(r.get('parser-validity')?.detail ?? '', /not JSON: "looks fine: 57 passed/);
    assert.match(r.get('inverse-mutation')?.detail ?? '', /bug validity could not run/);
  });

  test('a script whose own smoke test fails on the original code fails check 3 only', async () => {
    const r = await check('script-fails-on-original');
    assert.deepEqual(failedOnly(r), ['script-validity']);
    assert.deepEqual(r.get('script-validity')?.evidence.failing, ['tests/test_smoke_money.py::test_money_prints_plain_amount']);
  });

  test('a bug editing a test file fails bug scope only', async () => {
    const r = await check('touches-test-file');
    assert.deepEqual(failedOnly(r), ['bug-scope']);
    assert.match(r.get('bug-scope')?.detail ?? '', /touches test files: tests\/test_money\.py/);
  });

  test('a bug changing fewer files than the setting asks fails bug scope', async () => {
    const r = await check('valid-allocate-and-close', { minChangedFiles: 3 });
    assert.deepEqual(failedOnly(r), ['bug-scope']);
    assert.match(r.get('bug-scope')?.detail ?? '', /changes 2 source files, at least 3 needed/);
  });

  test('a bug that breaks nothing fails bug validity, and the checks after it', async () => {
    const r = await check('breaks-nothing');
    assert.deepEqual(failedOnly(r), ['bug-validity', 'weakening-validity', 'inverse-mutation']);
    assert.equal(r.get('bug-validity')?.detail, 'the bug breaks no test');
  });

  test('a weakening that leaves a broken test visible fails check 6 only', async () => {
    const r = await check('weakening-does-not-hide');
    assert.deepEqual(failedOnly(r), ['weakening-validity']);
    assert.deepEqual(r.get('weakening-validity')?.evidence.failing, ['tests/test_journal.py::test_close_period_zeroes_income_and_expenses']);
  });

  test('an empty test_weaken.diff fails weakening validity only, saying the file is empty and what to do', async () => {
    const r = await check('empty-weakening');
    assert.deepEqual(failedOnly(r), ['weakening-validity']);
    const detail = r.get('weakening-validity')?.detail ?? '';
    assert.match(detail, /^test_weaken\.diff is empty, so nothing hides the bug from the tests \(3 tests it breaks: /);
    assert.match(detail, /remove or relax the assertions of those tests .* capture the bug again, or write the diff by hand/);
    assert.equal(r.get('weakening-validity')?.evidence.failing?.length, 3);
  });

  test('a redundant file change fails inverse mutation, naming the file', async () => {
    const r = await check('redundant-change');
    assert.deepEqual(failedOnly(r), ['inverse-mutation']);
    const perFile = r.get('inverse-mutation')?.evidence.perFile ?? [];
    assert.deepEqual(
      perFile.filter((f) => f.turnedPassing.length === 0).map((f) => f.file),
      ['ledger/reports.py'],
    );
  });

  test('a test script that outlives its time limit fails with the reason, never passes', async () => {
    const bug = await loadBugArtifact(await bugFixtureDir('valid-allocate-and-close'));
    const results = await runConsistencyChecks({ ...bug, testScript: 'sleep 30\n' }, { createSandbox, parallel: 1, testTimeoutMs: 2000 });
    const parser = results.find((x) => x.name === 'parser-validity');
    assert.equal(parser?.passed, false);
    assert.match(parser?.detail ?? '', /timed out after 2 s/);
    assert.equal(results.find((x) => x.name === 'bug-validity')?.passed, false);
  });

  test('aborting mid-run cancels the checks and removes every container', async () => {
    const bug = await loadBugArtifact(await bugFixtureDir('valid-allocate-and-close'));
    const controller = new AbortController();
    const seen: string[] = [];
    const run = runConsistencyChecks(bug, {
      createSandbox,
      parallel: 2,
      signal: controller.signal,
      onCheck: (r) => {
        seen.push(r.name);
        if (r.name === 'parser-validity') controller.abort('stop');
      },
    });
    await assert.rejects(run, (err: unknown) => err instanceof CancelledError);
    assert.equal(seen.includes('bug-validity'), false);
    assert.equal(await containersLeft(suite), 0);
  });
});
