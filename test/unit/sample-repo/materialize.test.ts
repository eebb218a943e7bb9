import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listTreeFiles, materializeSampleRepo, sampleRepoTree, type SampleRepo } from '../../helpers/sampleRepo';

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
}

describe('materializeSampleRepo', () => {
  let scratch: string;
  let repo: SampleRepo;

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'sample-repo-test-'));
    repo = await materializeSampleRepo(path.join(scratch, 'a'));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  test('the last commit holds exactly the fixture tree, byte for byte', async () => {
    const fixtureFiles = await listTreeFiles(sampleRepoTree);
    assert.deepEqual(git(repo.dir, 'ls-files').split('\n').sort(), fixtureFiles);
    assert.equal(git(repo.dir, 'status', '--porcelain'), '');
    for (const rel of fixtureFiles) {
      const [ours, theirs] = await Promise.all([readFile(path.join(repo.dir, rel)), readFile(path.join(sampleRepoTree, rel))]);
      assert.ok(ours.equals(theirs), `${rel} differs from the fixture`);
    }
  });

  test('the history has six commits, oldest first, on main', () => {
    assert.deepEqual(
      repo.commits.map((c) => c.message.split('\n')[0]),
      [
        'Add Money value type and chart of accounts',
        'Add journal with balance checks, registers and period closing',
        'Read journals from plain text',
        'Add trial balance, income statement and balance sheet reports',
        'Fix Money.allocate dropping remainder cents',
        'Configure flake8 for 100-column lines',
      ],
    );
    assert.equal(git(repo.dir, 'rev-list', '--count', 'main'), '6');
    assert.equal(git(repo.dir, 'rev-parse', 'HEAD'), repo.commits[5]?.sha);
  });

  test('the bug-fix commit touches money.py and its tests, and its parent has the bug', () => {
    assert.equal(repo.bugFixCommit, repo.commits[4]?.sha);
    assert.deepEqual(git(repo.dir, 'diff-tree', '--no-commit-id', '--name-only', '-r', repo.bugFixCommit).split('\n'), [
      'ledger/money.py',
      'tests/test_money.py',
    ]);
    const before = git(repo.dir, 'show', `${repo.bugFixCommit}^:ledger/money.py`);
    assert.match(before, /return \[\(self \* \(to_decimal\(r\) \/ whole\)\)\.rounded\(\) for r in ratios\]/);
    assert.doesNotMatch(git(repo.dir, 'show', `${repo.bugFixCommit}^:tests/test_money.py`), /keeps_every_cent/);
  });

  test('authors and dates are fixed, so a second run gives the same shas', async () => {
    const again = await materializeSampleRepo(path.join(scratch, 'b'));
    assert.deepEqual(again.commits, repo.commits);
    assert.equal(git(repo.dir, 'log', '-1', '--format=%an <%ae> %aI', repo.bugFixCommit), 'Mira Okafor <mira.okafor@ledger.example> 2024-03-20T11:20:00+00:00');
  });
});
