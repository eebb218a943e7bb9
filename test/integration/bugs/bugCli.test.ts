import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { bugFixtureDir, sampleRepoForBugs } from '../../helpers/bugSandboxes';

const repoRoot = path.resolve(__dirname, '../../..');
let repo: string;

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), ...args], { cwd: repoRoot, encoding: 'utf8' });
}

before(async () => {
  repo = (await sampleRepoForBugs()).dir;
});

describe('swe-workbench bug validate', () => {
  test('--json prints the seven checks as an array and exits 0 for the valid bug', async () => {
    const r = cli('bug', 'validate', await bugFixtureDir('valid-allocate-and-close'), '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--json');
    assert.equal(r.status, 0, r.stderr);
    const checks = JSON.parse(r.stdout) as Array<{ name: string; passed: boolean; detail: string }>;
    assert.equal(checks.length, 7);
    assert.ok(checks.every((c) => c.passed));
    assert.equal(checks[4]?.detail, '3 tests break with the bug, 54 still pass');
  });

  test('--jsonl prints one line per check and exits 1 when one fails', async () => {
    const r = cli('bug', 'validate', await bugFixtureDir('weakening-does-not-hide'), '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--jsonl', '--parallel', '1');
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { name: string; passed: boolean });
    assert.deepEqual(lines.filter((l) => !l.passed).map((l) => l.name), ['weakening-validity']);
  });

  test('--local runs the checks in copies on this machine and prints a readable table', async () => {
    const r = cli('bug', 'validate', await bugFixtureDir('breaks-nothing'), '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--local');
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^PASS {2}parser-validity +\d+\.\d s {2}parsed 57 tests from the original code's run$/m);
    assert.match(r.stdout, /^FAIL {2}bug-validity +\d+\.\d s {2}the bug breaks no test$/m);
  });

  test('a folder without the bug files is a clear error naming every missing file in a fixed order', () => {
    const folder = path.join(repoRoot, 'test/fixtures');
    const r = cli('bug', 'validate', folder, '--image', 'swe-workbench/base:bookworm', '--repo', repo);
    assert.equal(r.status, 1);
    assert.ok(r.stderr.includes(`${folder}: missing test_script.sh, test_files.txt, test_parser.py, bug_inject.diff, test_weaken.diff: a bug folder holds`), r.stderr);
  });

  test('without --image the usage is shown with exit 2', async () => {
    const r = cli('bug', 'validate', await bugFixtureDir('valid-allocate-and-close'), '--repo', repo);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--image and --repo are required/);
  });
});
