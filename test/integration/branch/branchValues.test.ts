import '../../helpers/families';
import { spawn } from 'node:child_process';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { command as branchCommand } from '../../../extension/cli/branch';
import { OWNER_LABEL, SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { startPolicyServer, type PolicyServer, type ScriptedReply } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { runCli, runCliProcess } from '../../helpers/cliRunner';
import { testDocker } from '../../helpers/docker';
import { answerPolicy, answerTask, lastCommand, TRUE_VALUES, WRITE_41, WRITE_42 } from '../../helpers/branchScenario';
import { sampleRepoCopy, thoughtAction } from '../../helpers/ledgerAgentScript';
import { repoRoot } from '../../helpers/trajectoryFiles';

let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
let server: PolicyServer;
let work: string;
let taskFile: string;
let recordingFile: string;
let out: string;

const args = () => [
  recordingFile,
  '--task',
  taskFile,
  '--policy',
  server.url,
  '--model',
  'test-policy',
  // No --out: the run goes to RECORDING.branches, where VS Code looks for it (`out` below).
  '--samples',
  '16',
  '--concurrency',
  '2',
  '--max-steps',
  '5',
  '--temperature',
  '1',
  // Fixed, so the samples are: each 95% interval misses its true value for about 1 seed in 20, and seed 7 was one
  // (after step 2 it drew 10 rewrites in 16 at p = 1/4, a 0.75% tail); this seed's draws are ordinary.
  '--seed',
  '1',
];

/** Sandbox containers (running or not) owned by process `pid`. */
async function containersOf(pid: number): Promise<number> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABEL}=${hostname()}:${pid}`] } });
  return list.length;
}

interface IndexFile {
  replayedSteps: { recording: number; forks: number };
  points: Array<{
    afterStep: number;
    continuations: Array<{
      sample: number;
      file: string;
      patch: string | null;
      reward: number | null;
      mask: string | null;
      restoredAt: number;
      replayed: number;
      steps: number;
      timings?: Record<string, number>;
    }>;
  }>;
}
const readIndex = async (): Promise<IndexFile> => JSON.parse(await readFile(path.join(out, 'index.json'), 'utf8')) as IndexFile;
const continuations = (index: IndexFile) => index.points.reduce((n, p) => n + p.continuations.length, 0);

before(async () => {
  repo = await sampleRepoCopy();
  server = await startPolicyServer(answerPolicy);
  work = await mkdtemp(path.join(tmpdir(), 'swb-branch-'));
  ({ taskFile, recordingFile } = await answerTask(work, repo));
  out = `${recordingFile}.branches`;
});
after(async () => {
  await server.close();
  await repo.cleanup();
  if (!process.env.KEEP_BRANCH) await rm(work, { recursive: true, force: true });
  else console.log(work);
});

describe('swe-workbench branch, real Docker, a policy whose values are known', () => {
  test('Ctrl-C stops the run cleanly: exit 130, no container left, the finished continuations kept', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), 'branch', ...args()], { cwd: repoRoot });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Interrupt once two continuations are written: the run is mid-way, with others running.
    for (;;) {
      const index = await readIndex().catch(() => undefined);
      if (index && continuations(index) >= 2) break;
      const ended = await Promise.race([exited, new Promise((r) => setTimeout(r, 200, 'waiting'))]);
      assert.equal(ended, 'waiting', `the run ended before it was interrupted: ${stderr}`);
    }
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /interrupted; the continuations finished are in/);
    assert.equal(await containersOf(child.pid!), 0, 'containers left by the interrupted run');
    const index = await readIndex();
    assert.ok(continuations(index) >= 2 && continuations(index) < 48, `${continuations(index)} continuations kept`);
  });

  test('resumed, it runs only the rest; V(t) intervals hold the true values and it names the critical step', async () => {
    const before = continuations(await readIndex());
    const result = await runCli(branchCommand, [...args(), '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(await containersOf(process.pid), 0, 'containers left by the run');
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const steps = lines.filter((l) => l['summary'] === undefined) as Array<{
      afterStep: number;
      value: number;
      interval: { low: number; high: number; method: string };
      n: number;
    }>;
    const summary = lines.at(-1) as {
      critical: { step: number; from: number };
      continuations: number;
      ran: number;
      replayedSteps: { recording: number; forks: number };
    };
    assert.deepEqual(
      steps.map((s) => s.afterStep),
      [0, 1, 2],
    );
    for (const s of steps) {
      const truth = TRUE_VALUES.get(s.afterStep)!;
      assert.equal(s.n, 16);
      assert.equal(s.interval.method, 'wilson');
      assert.ok(s.interval.low <= truth && truth <= s.interval.high, `V(${s.afterStep}) = ${s.value}, [${s.interval.low}, ${s.interval.high}] holds ${truth}`);
    }
    assert.deepEqual({ step: summary.critical.step, from: summary.critical.from }, { step: 2, from: 1 });
    // Work already in the folder was not redone.
    assert.equal(summary.continuations, 48);
    assert.equal(summary.ran, 48 - before);
    // Forked from snapshots: the recording replayed once per run (its 2 steps), never by a continuation.
    assert.deepEqual(summary.replayedSteps, { recording: 4, forks: 0 });
    const index = await readIndex();
    for (const point of index.points)
      for (const c of point.continuations) {
        assert.equal(c.replayed, 0);
        assert.deepEqual(Object.keys(c.timings ?? {}).sort(), ['gradeMs', 'policyMs', 'runMs', 'startMs'], 'the index says where its time went');
        assert.equal(c.restoredAt, point.afterStep);
        // Saved in the scaffold's own format (SWE-agent's .traj), which reads back with the branch's steps.
        assert.match(c.file, /\.traj$/);
        const saved = (await loadTrajectory(path.join(out, c.file))).trajectory;
        assert.equal(saved.steps.length, point.afterStep + c.steps);
        assert.equal(
          c.reward === 1,
          saved.steps.some((s) => s.action.raw === WRITE_42) && saved.steps.findLast((s) => s.action.raw.startsWith('echo'))?.action.raw === WRITE_42,
        );
      }
  });

  test('the text output: a table with a bar per step and the critical step named; nothing run again', async () => {
    const advantages = path.join(work, 'advantages.jsonl');
    const result = await runCli(branchCommand, [...args(), '--advantages', advantages]);
    assert.equal(result.code, 0, result.stderr);
    const lines = (await readFile(advantages, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { trajectory: string; step: number; advantage: number; value: number; valueBefore: number; n: number });
    assert.deepEqual(
      lines.map((l) => [l.trajectory, l.step, l.n]),
      [
        ['answer-42', 1, 16],
        ['answer-42', 2, 16],
      ],
    );
    for (const l of lines) assert.equal(l.advantage, l.value - l.valueBefore);
    assert.match(result.stdout, /^state +V\(t\) +V +95% interval +n$/m);
    assert.match(result.stdout, /^start +[█·]{20} +[01]\.\d\d +\[0\.\d\d, [01]\.\d\d\] +16$/m);
    assert.match(result.stdout, /^step 2 +[█·]{20} .* 16 +<- critical$/m);
    assert.match(result.stdout, /critical step: step 2 \(V falls/);
    assert.match(result.stdout, /continuations: 0 run now, 48 already in/);
  });

  test('bad input says what and where', async () => {
    const past = await runCliProcess(['branch', ...args(), '--steps', '1,9']);
    assert.equal(past.code, 2);
    assert.match(past.stderr, /--steps: step 9 is past the end of .*recording\.json, which has 3 steps/);
    // The folder holds another recording's branches: refused, naming the index and what it holds.
    const other = path.join(work, 'other.json');
    const recording = JSON.parse(await readFile(recordingFile, 'utf8')) as { meta: { id: string } };
    await writeFile(other, JSON.stringify({ ...recording, meta: { ...recording.meta, id: 'another-run' } }));
    const foreign = await runCliProcess(['branch', ...args().map((a) => (a === recordingFile ? other : a)), '--out', out]);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stderr, /index\.json.*holds the branches of another recording \(.*recording\.json, 3 steps\): use another --out/);
    assert.doesNotMatch(foreign.stderr, /\n\s+at /, 'no stack trace');
    const samples = await runCliProcess(['branch', ...args(), '--samples', '0']);
    assert.equal(samples.code, 2);
    assert.match(samples.stderr, /--samples must be at least 1, got '0'/);
  });

  test('a continuation that hits the context limit is masked with its reason and left out of V', async () => {
    // After writing 41 the policy's server refuses half the time with vLLM's context-length error.
    const overflow: ScriptedReply = {
      fault: {
        kind: 'status',
        status: 400,
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      },
    };
    server.setScript((request) =>
      lastCommand(request) === WRITE_41
        ? {
            choices: [
              { probability: 0.5, reply: overflow },
              { probability: 0.5, reply: thoughtAction('Done.', 'submit') },
            ],
          }
        : answerPolicy(request),
    );
    const masksOut = path.join(work, 'masks');
    try {
      const result = await runCli(branchCommand, [...args(), '--out', masksOut, '--steps', '2', '--samples', '6', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const line = JSON.parse(result.stdout.split('\n')[0]!) as {
        afterStep: number;
        value: number | null;
        n: number;
        masked: { reason: string; count: number }[];
        rewards: number[];
      };
      assert.equal(line.afterStep, 2);
      assert.equal(line.masked.length, 1);
      assert.match(line.masked[0]!.reason, /^context window exceeded: .*maximum context length is 32768 tokens/);
      assert.ok(line.masked[0]!.count > 0 && line.n > 0, `${line.masked[0]!.count} masked, ${line.n} unmasked: this seed draws both`);
      assert.equal(line.n + line.masked[0]!.count, 6);
      // Every unmasked continuation submitted 41: V rests on them alone.
      assert.deepEqual(line.rewards, Array(line.n).fill(0));
      assert.equal(line.value, 0);
      const index = JSON.parse(await readFile(path.join(masksOut, 'index.json'), 'utf8')) as IndexFile;
      const masked = index.points[0]!.continuations.filter((c) => c.mask !== null);
      assert.equal(masked.length, line.masked[0]!.count);
      for (const c of masked) assert.equal(c.reward, null);
      assert.equal(await containersOf(process.pid), 0);
    } finally {
      server.setScript(answerPolicy);
    }
  });

  test('--recipe scores the continuations by a reward recipe', async () => {
    const recipeOut = path.join(work, 'recipe');
    const result = await runCli(branchCommand, [...args(), '--out', recipeOut, '--steps', '1', '--samples', '2', '--recipe', 'swe-bench', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const line = JSON.parse(result.stdout.split('\n')[0]!) as { afterStep: number; value: number; n: number; rewards: number[] };
    // After writing 42 the policy submits: the tests pass, and SWE-bench's recipe gives 1.
    assert.deepEqual([line.afterStep, line.value, line.n, line.rewards], [1, 1, 2, [1, 1]]);
  });
});
