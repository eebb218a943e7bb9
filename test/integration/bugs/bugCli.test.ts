import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { loadBugArtifact } from '../../../extension/core/bugs/bugArtifact';
import { solverSpec } from '../../../extension/core/bugs/solverTask';
import { parseUnifiedDiff, touchedPaths } from '../../../extension/core/diff/unifiedDiff';
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
    const r = cli(
      'bug',
      'validate',
      await bugFixtureDir('weakening-does-not-hide'),
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--jsonl',
      '--parallel',
      '1',
    );
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; passed: boolean });
    assert.deepEqual(
      lines.filter((l) => !l.passed).map((l) => l.name),
      ['weakening-validity'],
    );
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
    assert.ok(
      r.stderr.includes(`${folder}: missing test_script.sh, test_files.txt, test_parser.py, bug_inject.diff, test_weaken.diff: a bug folder holds`),
      r.stderr,
    );
  });

  test('without --image the usage is shown with exit 2', async () => {
    const r = cli('bug', 'validate', await bugFixtureDir('valid-allocate-and-close'), '--repo', repo);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--image and --repo are required/);
  });
});

describe('swe-workbench bug swe-smith, solver-spec and higher-order', () => {
  test('swe-smith --local validates the bug as SWE-smith does and writes its task instance', async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'bug-cli-')), 'instance.json');
    const r = cli(
      'bug',
      'swe-smith',
      await bugFixtureDir('valid-allocate-and-close'),
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--local',
      '--instance-out',
      out,
      '--instance',
      'ledger__ledger.abc.1',
      '--repo-name',
      'acme/ledger',
      '--base-commit',
      'HEAD',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^valid: [1-9]\d* FAIL_TO_PASS, [1-9]\d* PASS_TO_PASS, /);
    const instance = JSON.parse(await readFile(out, 'utf8')) as { instance_id: string; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[]; patch: string };
    assert.equal(instance.instance_id, 'ledger__ledger.abc.1');
    assert.ok(instance.FAIL_TO_PASS.length > 0 && instance.PASS_TO_PASS.length > 0);
    assert.equal(instance.patch, (await loadBugArtifact(await bugFixtureDir('valid-allocate-and-close'))).bugInjectDiff);
    for (const id of instance.FAIL_TO_PASS) assert.ok(r.stdout.includes(`FAIL_TO_PASS  ${id}`), `${id} is listed`);
  });

  test('swe-smith says NOT valid and exits 1 for a bug that breaks no test', async () => {
    const r = cli('bug', 'swe-smith', await bugFixtureDir('breaks-nothing'), '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--local', '--json');
    assert.equal(r.status, 1, r.stderr);
    const result = JSON.parse(r.stdout) as { valid: boolean; FAIL_TO_PASS: string[] };
    assert.deepEqual({ valid: result.valid, failToPass: result.FAIL_TO_PASS }, { valid: false, failToPass: [] });
  });

  test("solver-spec prints the reverse of the weakening, the solver's only spec", async () => {
    const dir = await bugFixtureDir('valid-allocate-and-close');
    const r = cli('bug', 'solver-spec', dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, solverSpec(await loadBugArtifact(dir)));
    assert.match(r.stdout, /^diff --git a\/tests\//m);
  });

  test('solver-repo --local writes the repository the solver starts from: bug and weakening in, one commit of history, no bug folder', async () => {
    const dir = await bugFixtureDir('valid-allocate-and-close');
    const bug = await loadBugArtifact(dir);
    const out = path.join(await mkdtemp(path.join(tmpdir(), 'bug-cli-')), 'solver');
    const r = cli('bug', 'solver-repo', dir, '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--local', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, solverSpec(bug));
    const git = (...args: string[]) => spawnSync('git', ['-C', out, ...args], { encoding: 'utf8' }).stdout;
    assert.equal(git('log', '--format=%s'), 'Initial commit\n');
    assert.equal(git('status', '--porcelain'), '', 'everything the solver sees is committed');
    const reference = (file: string) => spawnSync('git', ['-C', repo, 'show', `HEAD:${file}`], { encoding: 'utf8' }).stdout;
    for (const file of touchedPaths(parseUnifiedDiff(bug.bugInjectDiff)))
      assert.notEqual(await readFile(path.join(out, file), 'utf8'), reference(file), `${file} holds the bug`);
    for (const file of touchedPaths(parseUnifiedDiff(bug.testWeakenDiff)))
      assert.notEqual(await readFile(path.join(out, file), 'utf8'), reference(file), `${file} is weakened`);
    const again = cli('bug', 'solver-repo', dir, '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--local', '--out', out);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /--out: '.*solver' exists; give a new folder/);
  });

  test('higher-order without --pred-patch is a usage error (exit 2)', async () => {
    const r = cli(
      'bug',
      'higher-order',
      await bugFixtureDir('valid-allocate-and-close'),
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--out',
      '/tmp/x',
    );
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--pred-patch and --out are required/);
  });
});
