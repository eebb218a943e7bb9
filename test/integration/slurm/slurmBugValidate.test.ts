/**
 * `bug validate DIR` over a folder of bug folders, here and as a Slurm job array on the two-node
 * cluster of scripts/slurm/start.sh: the same files, byte for byte, and the same exit status.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bugFixtureDir, sampleRepoForBugs } from '../../helpers/bugSandboxes';
import { runCliProcess } from '../../helpers/cliRunner';
import { slurmMissing } from '../../helpers/slurmCluster';

const missing = slurmMissing();
// A valid bug and two that fail a check each: the batch exits 1 either way.
const BUGS = ['valid-allocate-and-close', 'breaks-nothing', 'weakening-does-not-hide'];
let work: string;
let bugs: string;
let repo: string;

/** Every file under `dir` (the Slurm run's own folder aside) with its bytes, by relative path. */
async function files(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((n) => n !== 'slurm').sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(path.join(dir, n), 'utf8')] as const)));
}

describe('bug validate over a folder of bugs through Slurm', { skip: missing }, () => {
  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'slurm-bugs-'));
    repo = (await sampleRepoForBugs()).dir;
    bugs = path.join(work, 'bugs');
    await mkdir(bugs);
    for (const name of BUGS) await cp(await bugFixtureDir(name), path.join(bugs, name), { recursive: true });
  });
  after(() => rm(work, { recursive: true, force: true }));

  test('the job array writes the same files as the local run, and exits as it does', async () => {
    const args = ['bug', 'validate', bugs, '--image', 'swe-workbench/base:bookworm', '--repo', repo];
    const local = await runCliProcess([...args, '--out', path.join(work, 'local')]);
    assert.equal(local.code, 1, local.stderr);
    const slurm = await runCliProcess([...args, '--out', path.join(work, 'slurm'), '--scheduler', 'slurm', '--shards', '3', '--time', '30']);
    assert.equal(slurm.code, 1, slurm.stderr);
    const want = await files(path.join(work, 'local'));
    assert.deepEqual(Object.keys(want), [...BUGS.map((b) => `${b}.json`).sort(), 'checks.json'].sort());
    assert.deepEqual(await files(path.join(work, 'slurm')), want);
    // The valid bug passes all seven checks; each broken one fails at least one.
    const checks = JSON.parse(want['checks.json']!) as Record<string, { passed: boolean }[]>;
    assert.deepEqual(
      BUGS.map((b) => checks[b]!.every((c) => c.passed)),
      [true, false, false],
    );
    // The printed tables name the same checks with the same verdicts (durations aside).
    const verdicts = (out: string) => out.replace(/\s+[\d.]+ s\s+/g, ' ');
    assert.equal(verdicts(slurm.stdout), verdicts(local.stdout));
    assert.match(slurm.stderr, /slurm \d+: 3 done/);
  });

  test('a DIR that is neither a bug nor a folder of bugs is named, with no stack', async () => {
    const empty = path.join(work, 'empty');
    await mkdir(empty, { recursive: true });
    const r = await runCliProcess([
      'bug',
      'validate',
      empty,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--scheduler',
      'slurm',
      '--out',
      path.join(work, 'o'),
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /neither a bug folder \(no bug_inject\.diff\) nor a folder of bug folders/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  test('--scheduler slurm without --out, and --resume with nothing to resume, are clear errors', async () => {
    const noOut = await runCliProcess(['bug', 'validate', bugs, '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--scheduler', 'slurm']);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /--scheduler slurm needs --out DIR: a folder on a filesystem every node mounts/);
    const nothing = await runCliProcess([
      'bug',
      'validate',
      bugs,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--scheduler',
      'slurm',
      '--resume',
      '--out',
      path.join(work, 'never'),
    ]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /--resume: .*never\/slurm holds no Slurm run to resume/);
  });

  test('the preflight names each node that lacks the image, and nothing is submitted', async () => {
    const out = path.join(work, 'no-image');
    const r = await runCliProcess(['bug', 'validate', bugs, '--image', 'swe-workbench/no-such-image:1', '--repo', repo, '--scheduler', 'slurm', '--out', out]);
    assert.equal(r.code, 1);
    for (const node of ['n1', 'n2'])
      assert.match(r.stderr, new RegExp(`${node}: the image swe-workbench/no-such-image:1 is not there: build or load it on the node`));
    assert.doesNotMatch(r.stderr, /job array \d+ submitted/);
  });
});
