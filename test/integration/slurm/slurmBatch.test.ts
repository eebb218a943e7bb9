/**
 * The batch commands as Slurm job arrays on the real two-node cluster of scripts/slurm/start.sh
 * and the real Docker engine. `rollouts grade`: the same grades as a local run, a node lost
 * mid-run named and finished by --resume, Ctrl-C cancelling the array with no container left.
 * `bug validate` over a folder of bugs: the same files byte for byte, the preflight, bad input.
 * `tokens` over a folder of rollouts, against the scripted policy server on 127.0.0.1 (the nodes
 * are this machine): the same output, saved re-score and exit status as the local run.
 * `rollouts replay` (every rollout of a run replayed, its divergence said): the same report.
 * One file, so its tests run one after another: killing a node would fail another file's shards.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LEDGER, ledgerInstance, writeForcedRun } from '../../fixtures/rollouts/forcedRun';
import { sweAgentTraj, writeJson } from '../../fixtures/rollouts/runWriter';
import { BASE_IMAGE, bugFixtureDir, sampleRepoForBugs } from '../../helpers/bugSandboxes';
import { runCliProcess } from '../../helpers/cliRunner';
import { materializeSampleRepo } from '../../helpers/sampleRepo';
import { killNode, queued, slurmMissing } from '../../helpers/slurmCluster';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { toyChatIds, toyEncode, toyLogprob } from '../../../scripts/demo/policy/toyTokenizer';
import { TOKEN_REPORT_FILE } from '../../../extension/core/rollouts/tokenMismatch';

const repoRoot = path.resolve(__dirname, '../../..');
const missing = slurmMissing();
let work: string;
let run: string;
let repo: string;
let baseCommit: string;
// The tests' own tag of the base image: its containers are this file's, whoever else uses the engine.
const image = `swe-workbench/slurm-test:${process.pid}`;

/** The wrong fix's grading hangs (its tests wait forever) while every other candidate grades normally. */
const HANG_ON_WRONG_FIX = `if grep -rqF 'leftover = 0 * total.amount' --include=*.py .; then while :; do sleep 1; done; fi; pytest -rA -p no:cacheprovider tests/test_money.py`;

async function instances(file: string, extra: Record<string, unknown> = {}): Promise<string> {
  const p = path.join(work, file);
  await writeFile(p, JSON.stringify({ ...ledgerInstance(baseCommit), ...extra }) + '\n');
  return p;
}

const gradeArgs = (instancesFile: string) => ['rollouts', 'grade', run, '--image', image, '--repo', repo, '--instances', instancesFile, '--json'];

/** The grades without their durations (a measurement of each run, not a result). */
function grades(stdout: string): unknown {
  const parsed = JSON.parse(stdout) as { grades: { durationMs?: number }[] };
  for (const g of parsed.grades) delete g.durationMs;
  return parsed;
}

/** The CLI in a process of its own, its stderr readable while it runs. */
function startCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), ...args], { cwd: repoRoot });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, out, exit };
}

/** Polls `check` until it returns a value (a state reached, not a time waited). */
async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, exited?: Promise<unknown>): Promise<T> {
  let ended = false;
  void exited?.then(() => (ended = true));
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (ended) throw new Error(`the command ended before ${what}`);
    await sleep(300);
  }
}

const jobOf = (stderr: string) => /job array (\d+) submitted/.exec(stderr)?.[1];
/**
 * The containers started from this file's tag, with owner and state. `--filter ancestor=` would
 * also match every container of the same image ID, which other work on a shared engine starts.
 */
function containerLines(img: string): string[] {
  const out = execFileSync('docker', ['ps', '-a', '--format', '{{.ID}}\t{{.Image}}\t{{.Status}}\t{{.Label "swe-workbench.owner"}}'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.split('\t')[1] === img);
}
const containersOf = (img: string) => containerLines(img).map((l) => l.split('\t')[0]!);
const described = (img: string) => containerLines(img).join('\n') + '\n';

describe('rollouts grade through Slurm', { skip: missing }, () => {
  let local: unknown;

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'slurm-grade-'));
    const sample = await materializeSampleRepo(path.join(work, 'repo'));
    repo = sample.dir;
    baseCommit = sample.commits[sample.commits.findIndex((c) => c.sha === sample.bugFixCommit) - 1]!.sha;
    run = path.join(work, 'run');
    writeForcedRun(run);
    execFileSync('docker', ['tag', BASE_IMAGE, image]);
    const r = await runCliProcess(gradeArgs(await instances('instances.jsonl')));
    assert.equal(r.code, 0, r.stderr);
    local = grades(r.stdout);
  });
  after(async () => {
    const left = containersOf(image);
    if (left.length) execFileSync('docker', ['rm', '-f', ...left]);
    execFileSync('docker', ['rmi', image]);
    // A node a test killed comes back for the next (the script is idempotent).
    execFileSync('bash', [path.join(repoRoot, 'scripts/slurm/start.sh')]);
    await rm(work, { recursive: true, force: true });
  });

  test('the array grades every candidate as the local run does, on the cluster nodes', async () => {
    const out = path.join(work, 'out-same');
    const r = await runCliProcess([...gradeArgs(await instances('instances.jsonl')), '--scheduler', 'slurm', '--shards', '3', '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(grades(r.stdout), local);
    // Progress names the shards and their nodes; the job script is in the output folder.
    assert.match(r.stderr, /slurm \d+: 3 done \((n1|n2): \d(, (n1|n2): \d)?\), 0 running, 0 pending, 0 failed/);
    assert.match(await readFile(path.join(out, 'slurm', 'job.sh'), 'utf8'), /--shard "\$k\/3" --shard-out/);
    assert.deepEqual(containersOf(image), [], described(image));
  });

  test('a controller restarting mid-run is waited out: no task is taken for lost', async () => {
    const out = path.join(work, 'out-ctld');
    const cli = startCli([...gradeArgs(await instances('instances.jsonl')), '--scheduler', 'slurm', '--shards', '3', '--out', out]);
    const job = await until('the array was submitted', () => jobOf(cli.out.stderr), cli.exit);
    await until('a task runs', () => (queued(job).some((t) => t.state === 'RUNNING') ? true : undefined), cli.exit);
    const state = process.env.SWE_WORKBENCH_STATE ?? '/var/lib/swe-workbench';
    const ctld = Number((await readFile(path.join(state, 'slurm', 'slurmctld.pid'), 'utf8')).trim());
    process.kill(ctld, 'SIGTERM');
    // While squeue cannot answer, every shard finishes its work.
    const results = [0, 1, 2].map((k) => path.join(out, 'slurm', 'shards', String(k), 'result.json'));
    await until(
      'every shard wrote its result',
      async () =>
        (
          await Promise.all(
            results.map((f) =>
              readFile(f).then(
                () => true,
                () => false,
              ),
            ),
          )
        ).every(Boolean)
          ? true
          : undefined,
      cli.exit,
    );
    execFileSync('bash', [path.join(repoRoot, 'scripts/slurm/start.sh')]);
    assert.equal(await cli.exit, 0, cli.out.stderr);
    assert.deepEqual(grades(cli.out.stdout), local);
    assert.doesNotMatch(cli.out.stderr, /did not finish/);
  });

  test('a node lost mid-run: its shards are named with node, state and log, and --resume finishes only them', async () => {
    const out = path.join(work, 'out-lost');
    const hanging = await instances('hanging.jsonl', { test_cmd: HANG_ON_WRONG_FIX });
    const args = [...gradeArgs(hanging), '--scheduler', 'slurm', '--shards', '3', '--out', out];
    const first = startCli(args);
    const job = await until('the array was submitted', () => jobOf(first.out.stderr), first.exit);
    // Attempt 2 (the wrong fix, candidate index 1) is shard 1: it hangs on whichever node runs it.
    const node = await until('shard 1 runs', () => queued(job).find((t) => t.task === 1 && t.state === 'RUNNING')?.node || undefined, first.exit);
    const killed = killNode(node);
    // A lost machine takes its containers with it. A container its killed CLI had asked for can
    // still be created by the engine after the kill, so they are taken again before the count.
    const lostOwners = new Set(killed.map((pid) => `${hostname()}:${pid}`));
    const removeLost = () => {
      const ids = containerLines(image)
        .map((l) => l.split('\t'))
        .filter((f) => lostOwners.has(f[3] ?? ''))
        .map((f) => f[0]!);
      if (ids.length) execFileSync('docker', ['rm', '-f', ...ids]);
    };
    removeLost();
    assert.equal(await first.exit, 1, first.out.stderr);
    const failed = [...first.out.stderr.matchAll(/shard (\d+): task \d+_\d+ on (\S+): (\S+), .*; log (\S+)/g)];
    assert.ok(
      failed.some((f) => f[1] === '1'),
      first.out.stderr,
    );
    for (const f of failed) {
      assert.equal(f[2], node, first.out.stderr);
      assert.equal(f[3], 'NODE_FAIL', first.out.stderr);
      assert.equal(f[4], path.join(out, 'slurm', 'logs', `${job}_${f[1]}.log`));
    }
    assert.match(first.out.stderr, /run the same command with --resume to submit only the \d+ missing/);

    execFileSync('bash', [path.join(repoRoot, 'scripts/slurm/start.sh')]);
    // The same command line; the instances file now grades the wrong fix as the local run did.
    await writeFile(hanging, JSON.stringify(ledgerInstance(baseCommit)) + '\n');
    const resumed = await runCliProcess([...args, '--resume']);
    assert.equal(resumed.code, 0, resumed.stderr);
    const lost = failed.map((f) => f[1]).sort();
    assert.match(resumed.stderr, new RegExp(`submitted: ${lost.length} of 3 shards \\(${lost.join(',')}\\)`));
    assert.deepEqual(grades(resumed.stdout), local);
    removeLost();
    assert.deepEqual(containersOf(image), [], described(image) + first.out.stderr + resumed.stderr);
  });

  test('Ctrl-C cancels the array and leaves no container on any node', async () => {
    const out = path.join(work, 'out-cancel');
    const hanging = await instances('all-hang.jsonl', { test_cmd: 'while :; do sleep 1; done' });
    const cli = startCli([...gradeArgs(hanging), '--scheduler', 'slurm', '--shards', '3', '--out', out]);
    const job = await until('the array was submitted', () => jobOf(cli.out.stderr), cli.exit);
    // Attempts 1 and 2 hang in their tests (3's patch does not apply, 4 has none): wait until both run.
    await until('two containers run', () => (containersOf(image).length >= 2 ? true : undefined), cli.exit);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 1);
    assert.match(cli.out.stderr, new RegExp(`job array ${job} cancelled \\(scancel\\)`));
    assert.deepEqual(queued(job), []);
    assert.deepEqual(containersOf(image), [], described(image) + cli.out.stderr);
  });
});

// A valid bug and two that fail a check each: the batch exits 1 either way.
const BUGS = ['valid-allocate-and-close', 'breaks-nothing', 'weakening-does-not-hide'];
let bugWork: string;
let bugs: string;
let bugRepo: string;

/** Every file under `dir` (the Slurm run's own folder aside) with its bytes, by relative path. */
async function files(dir: string): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((n) => n !== 'slurm').sort();
  return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await readFile(path.join(dir, n), 'utf8')] as const)));
}

describe('bug validate over a folder of bugs through Slurm', { skip: missing }, () => {
  before(async () => {
    bugWork = await mkdtemp(path.join(tmpdir(), 'slurm-bugs-'));
    bugRepo = (await sampleRepoForBugs()).dir;
    bugs = path.join(bugWork, 'bugs');
    await mkdir(bugs);
    for (const name of BUGS) await cp(await bugFixtureDir(name), path.join(bugs, name), { recursive: true });
  });
  after(() => rm(bugWork, { recursive: true, force: true }));

  test('the job array writes the same files as the local run, and exits as it does', async () => {
    const args = ['bug', 'validate', bugs, '--image', 'swe-workbench/base:bookworm', '--repo', bugRepo];
    const local = await runCliProcess([...args, '--out', path.join(bugWork, 'local')]);
    assert.equal(local.code, 1, local.stderr);
    const slurm = await runCliProcess([...args, '--out', path.join(bugWork, 'slurm'), '--scheduler', 'slurm', '--shards', '3', '--time', '30']);
    assert.equal(slurm.code, 1, slurm.stderr);
    const want = await files(path.join(bugWork, 'local'));
    assert.deepEqual(Object.keys(want), [...BUGS.map((b) => `${b}.json`).sort(), 'checks.json'].sort());
    assert.deepEqual(await files(path.join(bugWork, 'slurm')), want);
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
    const empty = path.join(bugWork, 'empty');
    await mkdir(empty, { recursive: true });
    const r = await runCliProcess([
      'bug',
      'validate',
      empty,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      bugRepo,
      '--scheduler',
      'slurm',
      '--out',
      path.join(bugWork, 'o'),
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /missing [^:]*bug_inject\.diff[^:]*: a bug folder holds .*; nor is it a folder of bugs \(no folder inside holds bug_inject\.diff\)/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  test('--scheduler slurm without --out, and --resume with nothing to resume, are clear errors', async () => {
    const noOut = await runCliProcess(['bug', 'validate', bugs, '--image', 'swe-workbench/base:bookworm', '--repo', bugRepo, '--scheduler', 'slurm']);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /--scheduler slurm needs --out DIR: a folder on a filesystem every node mounts/);
    const nothing = await runCliProcess([
      'bug',
      'validate',
      bugs,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      bugRepo,
      '--scheduler',
      'slurm',
      '--resume',
      '--out',
      path.join(bugWork, 'never'),
    ]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stderr, /--resume: .*never\/slurm holds no Slurm run to resume/);
  });

  test('the preflight names each node that lacks the image, and nothing is submitted', async () => {
    const out = path.join(bugWork, 'no-image');
    const r = await runCliProcess([
      'bug',
      'validate',
      bugs,
      '--image',
      'swe-workbench/no-such-image:1',
      '--repo',
      bugRepo,
      '--scheduler',
      'slurm',
      '--out',
      out,
    ]);
    assert.equal(r.code, 1);
    for (const node of ['n1', 'n2'])
      assert.match(r.stderr, new RegExp(`${node}: the image swe-workbench/no-such-image:1 is not there: build or load it on the node`));
    assert.doesNotMatch(r.stderr, /job array \d+ submitted/);
  });
});

/**
 * An rLLM episode of task `task` answering `answer`, its token ids and logprobs recorded, the
 * second token's logprob `shift` above what the scorer gives; `textStep` adds a step of text only
 * (not re-scored: the run exits 1).
 */
function episode(task: string, answer: string, shift: number, textStep: boolean): string {
  const prompt = toyChatIds([{ role: 'user', content: task }], true);
  const completion = toyEncode(answer);
  const logprobs = completion.map((id, i) => toyLogprob(id, prompt.length + i)! + (i === 1 ? shift : 0));
  const steps = [
    { prompt_ids: prompt, response_ids: completion, logprobs, thought: answer, observation: 'a.py' },
    ...(textStep ? [{ thought: 'done', observation: '' }] : []),
  ];
  return JSON.stringify({ id: task, task: { problem_statement: task }, trajectories: [{ steps }] });
}

describe('tokens over a folder of rollouts through Slurm', { skip: missing }, () => {
  let tokWork: string;
  let server: PolicyServer;
  /** Two copies of one folder of rollouts (--save writes into the folder): one run locally, one through Slurm. */
  async function twoFolders(name: string, rollouts: Record<string, string>): Promise<{ local: string; slurm: string }> {
    const dirs = { local: path.join(tokWork, `${name}-local`), slurm: path.join(tokWork, `${name}-slurm`) };
    for (const dir of Object.values(dirs)) {
      await mkdir(dir, { recursive: true });
      for (const [file, text] of Object.entries(rollouts)) await writeFile(path.join(dir, file), text);
    }
    return dirs;
  }
  const sortedLines = (text: string) => text.split('\n').filter(Boolean).sort();

  before(async () => {
    tokWork = await mkdtemp(path.join(tmpdir(), 'slurm-tokens-'));
    server = await startPolicyServer([]);
  });
  after(async () => {
    await server.close();
    await rm(tokWork, { recursive: true, force: true });
  });

  test('the shards merged print, save and exit exactly as the local run', async () => {
    const rollouts: Record<string, string> = { 'broken.json': '{"not": "a trajectory"}' };
    for (let i = 1; i <= 7; i++) rollouts[`r${i}.json`] = episode(`task ${i}`, i % 2 ? 'ls' : 'cat a.py', [0, 0.05, 0.5, -0.3][i % 4]!, i % 3 === 0);
    const dirs = await twoFolders('mixed', rollouts);
    const args = (dir: string) => ['tokens', dir, '--policy', server.url, '--model', 'test-policy', '--json', '--save', '--in-flight', '3'];
    const local = await runCliProcess(args(dirs.local));
    assert.equal(local.code, 1, local.stderr);
    const out = path.join(tokWork, 'mixed-out');
    const slurm = await runCliProcess([...args(dirs.slurm), '--scheduler', 'slurm', '--shards', '3', '--out', out]);
    assert.equal(slurm.code, local.code, slurm.stderr);
    assert.equal(slurm.stdout, local.stdout);
    const summary = JSON.parse(slurm.stdout.trim().split('\n').at(-1)!) as { summary: Record<string, unknown> };
    assert.deepEqual([summary.summary.rollouts, summary.summary.unreadable, summary.summary.errors], [7, 1, 2]);
    const saved = async (dir: string) => readFile(path.join(dir, TOKEN_REPORT_FILE), 'utf8');
    assert.deepEqual(sortedLines(await saved(dirs.slurm)), sortedLines(await saved(dirs.local)));
    assert.equal(sortedLines(await saved(dirs.local)).length, 7);
    assert.match(slurm.stderr, /slurm \d+: 3 done \((n1|n2): \d(, (n1|n2): \d)?\), 0 running, 0 pending, 0 failed/);
    // The output folder holds the Slurm run alone; the rollouts' folder only what the local run adds.
    assert.deepEqual(await readdir(out), ['slurm']);
    assert.deepEqual((await readdir(dirs.slurm)).sort(), (await readdir(dirs.local)).sort());
  });

  test('a clean run exits 0 through Slurm as locally, its text output the same', async () => {
    const rollouts: Record<string, string> = {};
    for (let i = 1; i <= 4; i++) rollouts[`c${i}.json`] = episode(`clean ${i}`, 'ls', 0, false);
    const dirs = await twoFolders('clean', rollouts);
    const local = await runCliProcess(['tokens', dirs.local, '--policy', server.url]);
    assert.equal(local.code, 0, local.stdout + local.stderr);
    const slurm = await runCliProcess([
      'tokens',
      dirs.slurm,
      '--policy',
      server.url,
      '--scheduler',
      'slurm',
      '--shards',
      '2',
      '--out',
      path.join(tokWork, 'clean-out'),
    ]);
    assert.equal(slurm.code, 0, slurm.stderr);
    assert.equal(slurm.stdout, local.stdout.replaceAll(dirs.local, dirs.slurm));
  });

  test('a single file, or --out without Slurm, is refused before anything is submitted', async () => {
    const file = path.join(tokWork, 'one.json');
    await writeFile(file, episode('one', 'ls', 0, false));
    const one = await runCliProcess(['tokens', file, '--policy', server.url, '--scheduler', 'slurm', '--out', path.join(tokWork, 'o1')]);
    assert.equal(one.code, 2);
    assert.match(one.stderr, /--scheduler slurm re-scores a folder of rollouts: give a DIR/);
    const out = await runCliProcess(['tokens', tokWork, '--policy', server.url, '--out', path.join(tokWork, 'o2')]);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--out goes with --scheduler slurm/);
  });
});

describe('rollouts replay (the divergence report of a whole run) through Slurm', { skip: missing }, () => {
  let replayWork: string;
  let replayRun: string;
  let replayRepo: string;
  const replayImage = `swe-workbench/slurm-replay-test:${process.pid}`;

  before(async () => {
    replayWork = await mkdtemp(path.join(tmpdir(), 'slurm-replay-'));
    replayRepo = (await materializeSampleRepo(path.join(replayWork, 'repo'))).dir;
    replayRun = path.join(replayWork, 'run');
    // Five rollouts whose recorded observations the repository does not give (they diverge at step 1)...
    writeForcedRun(replayRun);
    // ...and two whose every step replays the same.
    for (const a of [6, 7]) {
      const steps = [
        { thought: 'Say hello.', action: `echo hello ${a}`, observation: `hello ${a}` },
        { thought: 'And again.', action: 'echo again', observation: 'again' },
      ];
      writeJson(
        replayRun,
        `attempt_${a}/${LEDGER}/${LEDGER}.traj`,
        sweAgentTraj({ instance: LEDGER, steps, exit: 'exit_cost', patch: '', namedInConfig: true }),
      );
    }
    execFileSync('docker', ['tag', BASE_IMAGE, replayImage]);
  });
  after(async () => {
    const left = containersOf(replayImage);
    if (left.length) execFileSync('docker', ['rm', '-f', ...left]);
    execFileSync('docker', ['rmi', replayImage]);
    await rm(replayWork, { recursive: true, force: true });
  });

  test('the array replays every rollout on the nodes and reports as the local run does', async () => {
    const args = ['rollouts', 'replay', replayRun, '--image', replayImage, '--repo', replayRepo];
    const local = await runCliProcess([...args, '--json']);
    assert.equal(local.code, 1, local.stderr);
    const report = JSON.parse(local.stdout) as {
      rollouts: { id: string; steps?: number; matched?: number; firstDivergence?: number | null }[];
      summary: unknown;
    };
    assert.deepEqual(report.summary, { rollouts: 7, matched: 2, diverged: 5, notReplayed: 0 });
    assert.deepEqual(
      report.rollouts.filter((r) => r.firstDivergence === null).map((r) => [r.id, r.steps, r.matched]),
      [6, 7].map((a) => [`attempt_${a}/${LEDGER}/${LEDGER}.traj`, 2, 2]),
    );
    const slurm = await runCliProcess([...args, '--json', '--scheduler', 'slurm', '--shards', '3', '--out', path.join(replayWork, 'out-json')]);
    assert.equal(slurm.code, local.code, slurm.stderr);
    assert.equal(slurm.stdout, local.stdout);
    assert.match(slurm.stderr, /slurm \d+: 3 done \((n1|n2): \d(, (n1|n2): \d)?\), 0 running, 0 pending, 0 failed/);
    // The text report through Slurm, steps counted from 1, on a filtered run.
    const text = await runCliProcess([
      ...args,
      '--filter',
      'attempt<=2 or attempt>=6',
      '--scheduler',
      'slurm',
      '--shards',
      '2',
      '--out',
      path.join(replayWork, 'out-text'),
    ]);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /attempt_6\/\S+: 2 of 2 replayed steps matched\n/);
    assert.match(text.stdout, /attempt_1\/\S+: \d+ of \d+ replayed steps matched; first divergence at step 1/);
    assert.match(text.stdout, /4 rollout\(s\): 2 matched all the way, 2 diverged, 0 not replayed\n$/);
    assert.deepEqual(containersOf(replayImage), [], described(replayImage));
  });
});
