import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Docker from 'dockerode';
import { command } from '../../../extension/cli/rollouts';
import { CancelledError } from '../../../extension/core/errors';
import { readTaskInstances } from '../../../extension/core/reward/rewardFiles';
import { FORCED_GRADE_LABEL, gradeForcedInContainers, type ForcedGrading } from '../../../extension/core/rollouts/forcedGrading';
import { forcedCandidates } from '../../../extension/core/rollouts/forcedSubmission';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { F2P, LEDGER, ledgerInstance, writeForcedRun } from '../../fixtures/rollouts/forcedRun';
import { containersLeft, sandboxFactory } from '../../helpers/bugSandboxes';
import { runCli } from '../../helpers/cliRunner';
import { materializeSampleRepo } from '../../helpers/sampleRepo';

const SUITE = 'forced-grading';
const repoRoot = path.resolve(__dirname, '../../..');
let work: string;
let run: string;
let repo: string;
let instancesFile: string;

async function cliContainersLeft(): Promise<number> {
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  return (await docker.listContainers({ all: true, filters: { label: [`swe-workbench.command=${FORCED_GRADE_LABEL}`] } })).length;
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'forced-grading-'));
  const sample = await materializeSampleRepo(path.join(work, 'repo'));
  repo = sample.dir;
  // The task starts at the commit before the fix.
  const fixAt = sample.commits.findIndex((c) => c.sha === sample.bugFixCommit);
  run = path.join(work, 'run');
  writeForcedRun(run);
  instancesFile = path.join(work, 'instances.jsonl');
  await writeFile(instancesFile, JSON.stringify(ledgerInstance(sample.commits[fixAt - 1]!.sha)) + '\n');
});
after(() => rm(work, { recursive: true, force: true }));

const byAttempt = (g: ForcedGrading) => Object.fromEntries(g.grades.map((x) => [x.attempt, x.verdict]));

describe('forced submission graded in containers', () => {
  test('each cut run gets its verdict from its own container: the fix passes, the wrong fix fails, the stray patch does not apply', async () => {
    const index = await indexRollouts(run);
    const candidates = await forcedCandidates(index.root, index.rollouts);
    const instances = new Map((await readTaskInstances(instancesFile)).map((i) => [i.instance_id, i]));
    const graded = await gradeForcedInContainers(candidates, { createSandbox: sandboxFactory(repo, SUITE), instances, parallel: 2 });
    assert.deepEqual(byAttempt(graded), { 1: 'passed', 2: 'failed', 3: 'patch-does-not-apply', 4: 'not-graded' });
    const failed = graded.grades.find((g) => g.attempt === 2)!;
    assert.deepEqual(failed.tests?.FAIL_TO_PASS.failure, F2P);
    assert.deepEqual(failed.tests?.PASS_TO_PASS.failure, []);
    assert.match(graded.grades.find((g) => g.attempt === 3)!.reason, /patch failed|does not apply/);
    assert.deepEqual(
      { passed: graded.passed, measured: graded.measured, infra: graded.infraErrors, rate: graded.passRate },
      { passed: 1, measured: 3, infra: 0, rate: 1 / 3 },
    );
    assert.equal(await containersLeft(SUITE), 0);
  });

  test('a test run whose output is not a test report is an infrastructure error, left out of the count', async () => {
    const index = await indexRollouts(run);
    const candidates = (await forcedCandidates(index.root, index.rollouts)).filter((c) => c.attempt === 1);
    const instances = new Map((await readTaskInstances(instancesFile)).map((i) => [i.instance_id, i]));
    const graded = await gradeForcedInContainers(candidates, { createSandbox: sandboxFactory(repo, SUITE), instances, testCommand: 'echo collecting nothing' });
    assert.deepEqual(
      graded.grades.map((g) => g.verdict),
      ['infrastructure-error'],
    );
    assert.match(graded.grades[0]!.reason, /^unusable test output: /);
    assert.deepEqual({ measured: graded.measured, rate: graded.passRate, infra: graded.infraErrors }, { measured: 0, rate: null, infra: 1 });
    assert.equal(await containersLeft(SUITE), 0);
  });

  test('a test run over its time limit is an infrastructure error, and its container is removed', async () => {
    const index = await indexRollouts(run);
    const candidates = (await forcedCandidates(index.root, index.rollouts)).filter((c) => c.attempt === 2);
    const instances = new Map((await readTaskInstances(instancesFile)).map((i) => [i.instance_id, i]));
    const graded = await gradeForcedInContainers(candidates, {
      createSandbox: sandboxFactory(repo, SUITE),
      instances,
      testCommand: 'sleep 60',
      testTimeoutMs: 1000,
    });
    assert.deepEqual(
      graded.grades.map((g) => [g.verdict, g.reason]),
      [['infrastructure-error', 'the tests timed out after 1 s']],
    );
    assert.equal(await containersLeft(SUITE), 0);
  });

  test('cancelling while a container is up removes it', async () => {
    const index = await indexRollouts(run);
    const candidates = await forcedCandidates(index.root, index.rollouts);
    const instances = new Map((await readTaskInstances(instancesFile)).map((i) => [i.instance_id, i]));
    const controller = new AbortController();
    const make = sandboxFactory(repo, `${SUITE}-cancel`);
    let started = 0;
    const createSandbox = async (signal?: AbortSignal) => {
      const sandbox = await make(signal);
      started++;
      controller.abort(); // Ctrl-C once the container exists
      return sandbox;
    };
    await assert.rejects(gradeForcedInContainers(candidates, { createSandbox, instances, signal: controller.signal }), CancelledError);
    assert.equal(started, 1);
    assert.equal(await containersLeft(`${SUITE}-cancel`), 0);
  });

  test('the CLI prints each verdict and the total, as text and as JSON, and leaves no container', async () => {
    const text = await runCli(command, [
      'grade',
      run,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--instances',
      instancesFile,
      '--parallel',
      '2',
    ]);
    assert.equal(text.code, 0, text.stderr);
    // In the image's containers, not in local copies: no fallback notice.
    assert.doesNotMatch(text.stderr, /does not answer/);
    assert.match(text.stderr, /^graded attempt_1\/\S+: passed$/m);
    assert.match(text.stdout, new RegExp(`^  attempt_1/${LEDGER}/${LEDGER}\\.traj  passed: 2 FAIL_TO_PASS and 3 PASS_TO_PASS tests pass$`, 'm'));
    assert.match(
      text.stdout,
      new RegExp(
        `^  attempt_2/${LEDGER}/${LEDGER}\\.traj  failed: 2 test\\(s\\) do not pass: FAIL_TO_PASS ${F2P[0]!.replace(/[.]/g, '\\.')}, FAIL_TO_PASS ${F2P[1]!.replace(/[.]/g, '\\.')}$`,
        'm',
      ),
    );
    assert.match(text.stdout, new RegExp(`^  attempt_3/${LEDGER}/${LEDGER}\\.traj  patch does not apply: `, 'm'));
    assert.match(text.stdout, new RegExp(`^  attempt_4/${LEDGER}/${LEDGER}\\.traj  not graded: no patch`, 'm'));
    assert.match(text.stdout, /^1 of 3 forced submissions would have passed \(33\.3%; SWE-Master found 24\.3%\)$/m);
    const json = await runCli(command, [
      run,
      '--forced-submission',
      '--grade',
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      repo,
      '--instances',
      instancesFile,
      '--json',
    ]);
    const graded = JSON.parse(json.stdout) as ForcedGrading;
    assert.deepEqual(byAttempt(graded), { 1: 'passed', 2: 'failed', 3: 'patch-does-not-apply', 4: 'not-graded' });
    assert.deepEqual([graded.passed, graded.measured], [1, 3]);
    assert.equal(await cliContainersLeft(), 0);
  });

  test('without a Docker engine nothing runs on this machine: each patch is an infrastructure error, none is counted', () => {
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'extension/cli/main.ts'),
        'rollouts',
        'grade',
        run,
        '--image',
        'swe-workbench/base:bookworm',
        '--repo',
        repo,
        '--instances',
        instancesFile,
      ],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, DOCKER_HOST: `unix://${path.join(work, 'no-engine.sock')}` },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal((r.stdout.match(/ infrastructure error: the container did not start: the Docker engine at .* does not answer/g) ?? []).length, 3, r.stdout);
    assert.match(r.stdout, /^0 of 0 forced submissions would have passed \(nothing graded\)$/m);
  });

  test('Ctrl-C during the grading stops it, prints no total and removes the containers', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'extension/cli/main.ts'),
        'rollouts',
        'grade',
        run,
        '--image',
        'swe-workbench/base:bookworm',
        '--repo',
        repo,
        '--instances',
        instancesFile,
      ],
      { cwd: repoRoot },
    );
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    // Interrupted once the first patch is graded, while the next one's container starts.
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (!interrupted && /^graded attempt_1\//m.test(stderr)) interrupted = child.kill('SIGINT');
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 1, stderr);
    assert.match(stderr, /^swe-workbench: (interrupted|cancelled)$/m);
    assert.doesNotMatch(stdout, /forced submissions would have passed/);
    assert.equal(await cliContainersLeft(), 0);
  });

  test('usage errors say what is missing before any container starts', async () => {
    await assert.rejects(runCli(command, ['grade', run, '--image', 'swe-workbench/base:bookworm', '--repo', repo]), /--instances is required/);
    await assert.rejects(runCli(command, ['grade', run, '--instances', instancesFile]), /--image is required.*; --repo is required/);
    await assert.rejects(runCli(command, ['forced', run, '--parallel', '2']), /rollouts forced has no option --parallel: it is an option of rollouts grade/);
    await assert.rejects(
      runCli(command, ['grade', run, '--instances', instancesFile, '--forced-reports', 'r.json']),
      /rollouts grade has no option --forced-reports: it is an option of rollouts forced/,
    );
    // The single-command form of earlier releases is the same mode, with the same checks.
    await assert.rejects(
      runCli(command, [run, '--forced-submission', '--grade', '--instances', instancesFile, '--parallel', '0']),
      /--parallel expects a whole number/,
    );
    await assert.rejects(runCli(command, [run, '--grade', '--instances', instancesFile]), /rollouts list has no option --grade: see rollouts grade/);
    const missing = path.join(work, 'no-such-instances.jsonl');
    await assert.rejects(runCli(command, ['grade', run, '--image', 'swe-workbench/base:bookworm', '--repo', repo, '--instances', missing]), (err: Error) =>
      err.message.includes(missing),
    );
    assert.equal(await cliContainersLeft(), 0);
  });
});
