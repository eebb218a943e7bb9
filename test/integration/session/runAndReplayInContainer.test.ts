import '../../helpers/families';
import { test, describe, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { command as runCommand } from '../../../extension/cli/run';
import { command as replayCommand } from '../../../extension/cli/replay';
import { OWNER_LABEL, SANDBOX_LABEL } from '../../../extension/core/runtime/sandboxLabels';
import { TrajectorySchema, type Trajectory } from '../../../extension/core/trajectory/model';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { LEDGER_EPISODE, sampleRepoCopy, thoughtAction } from '../../helpers/ledgerAgentScript';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE, testDocker } from '../../helpers/docker';

let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
let server: PolicyServer;
let work: string;
let taskFile: string;

/** Sandboxes this process started for `run` or `replay` that still exist. */
async function leftoverContainers(): Promise<string[]> {
  const list = await testDocker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${OWNER_LABEL}=${hostname()}:${process.pid}`] } });
  return list.filter((c) => ['run', 'replay'].includes(c.Labels['swe-workbench.role'] ?? '')).map((c) => c.Id);
}

async function readTrajectory(file: string): Promise<Trajectory> {
  return TrajectorySchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

before(async () => {
  repo = await sampleRepoCopy();
  server = await startPolicyServer(LEDGER_EPISODE);
  work = await mkdtemp(path.join(tmpdir(), 'swb-run-replay-'));
  taskFile = path.join(work, 'task.json');
  await writeFile(
    taskFile,
    JSON.stringify({
      image: TEST_IMAGE,
      repo: repo.dir,
      repoPath: '/repo',
      baseCommit: repo.commits.at(-1)!.sha,
      instanceId: 'ledger__allocate-1',
      problemStatement: 'Money.allocate must keep every cent.',
      testCommand: 'python3 -m pytest -q -p no:cacheprovider tests/test_money.py',
    }),
  );
});
after(async () => {
  await server.close();
  await repo.cleanup();
  await rm(work, { recursive: true, force: true });
});
afterEach(async () => {
  assert.deepEqual(await leftoverContainers(), [], 'no sandbox container is left behind');
});

describe('swe-workbench run and replay in a real container', () => {
  const recorded = () => path.join(work, 'live.json');

  test('run: a live episode against the scripted policy is recorded with logprobs, sampling, patch and test result', async () => {
    server.setScript(LEDGER_EPISODE);
    const result = await runCli(runCommand, [
      '--task',
      taskFile,
      '--policy-url',
      server.url,
      '--model',
      'test-policy',
      '--out',
      recorded(),
      '--logprobs',
      '2',
      '--temperature',
      '0.6',
      '--top-k',
      '20',
      '--max-steps',
      '10',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { out: recorded(), steps: 4, exitStatus: 'submitted' });
    const live = await readTrajectory(recorded());
    assert.deepEqual(
      live.steps.map((s) => s.action.raw),
      ['grep -n "def allocate" ledger/money.py', 'open "ledger/money.py" 75', 'grep -c "def test_" tests/test_money.py', 'submit'],
    );
    assert.equal(live.steps[0]!.observation, '75:    def allocate(self, ratios):');
    assert.match(live.steps[1]!.observation, /^\[File: ledger\/money\.py \(115 lines total\)\]\n\(15 more lines above\)\n16:        return Decimal\(value\)\n/);
    assert.deepEqual(
      live.steps[0]!.logprobs?.slice(0, 3).map((t) => t.logprob),
      [-0.05, -1.5, -0.25],
    );
    assert.deepEqual(live.steps[0]!.sampling, { temperature: 0.6, top_k: 20 });
    assert.equal(live.steps[1]!.state?.openFile, '/repo/ledger/money.py');
    assert.equal(live.outcome.submission, '');
    assert.match(live.outcome.testOutput ?? '', /\d+ passed/);
    assert.equal(live.outcome.resolved, true);
    assert.deepEqual(
      [live.task.instanceId, live.task.image, live.meta.model, live.meta.parseFunction],
      ['ledger__allocate-1', TEST_IMAGE, 'test-policy', 'thought_action'],
    );
    assert.match(live.meta.instructions ?? '', /Money\.allocate must keep every cent\./);
  });

  test('replay --json: the recording replayed in a fresh container matches at every step', async () => {
    const result = await runCli(replayCommand, [recorded(), '--image', TEST_IMAGE, '--repo', repo.dir, '--workdir', '/repo', '--json']);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const lines = jsonLines(result.stdout);
    assert.deepEqual(
      lines.slice(0, 4),
      [0, 1, 2, 3].map((index) => ({ index, matched: true, diff: '' })),
    );
    assert.deepEqual(lines[4], {
      summary: {
        scaffold: { name: 'swe-agent', version: '3ea751c0', reason: "meta.scaffold is 'swe-agent@3ea751c0'" },
        steps: 4,
        recorded: 4,
        matched: 4,
        firstDivergence: null,
        stop: 'submitted',
      },
    });
  });

  test('a recording made under a pseudo-terminal (\\r\\n line ends) replays under one with the same line ends, matched with line ends compared exactly', async () => {
    const live = await readTrajectory(recorded());
    const ptyRecording = {
      ...live,
      meta: { ...live.meta, pty: true },
      steps: live.steps.map((s) => ({ ...s, observation: s.observation.replace(/\n/g, '\r\n') })),
    };
    const file = path.join(work, 'pty.json');
    await writeFile(file, JSON.stringify(ptyRecording));
    const strict = await runCli(replayCommand, [
      file,
      '--image',
      TEST_IMAGE,
      '--repo',
      repo.dir,
      '--workdir',
      '/repo',
      '--json',
      '--until',
      '2',
      '--forgive',
      'trailing-whitespace',
    ]);
    assert.equal(strict.code, 0, strict.stdout);
    assert.deepEqual(
      jsonLines(strict.stdout).map((l) => l.matched),
      [true, true, undefined],
    );
    const withoutPty = path.join(work, 'pty-unmarked.json');
    await writeFile(withoutPty, JSON.stringify({ ...ptyRecording, meta: { ...ptyRecording.meta, pty: false } }));
    const unmarked = await runCli(replayCommand, [
      withoutPty,
      '--image',
      TEST_IMAGE,
      '--repo',
      repo.dir,
      '--workdir',
      '/repo',
      '--json',
      '--until',
      '2',
      '--forgive',
      'trailing-whitespace',
    ]);
    assert.equal(unmarked.code, 1);
    assert.deepEqual(
      jsonLines(unmarked.stdout).map((l) => l.matched),
      [true, false, undefined],
    );
  });

  test('replay --until 2 replays only the first two steps', async () => {
    const result = await runCli(replayCommand, [recorded(), '--image', TEST_IMAGE, '--repo', repo.dir, '--workdir', '/repo', '--json', '--until', '2']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(jsonLines(result.stdout).at(-1), {
      summary: {
        scaffold: { name: 'swe-agent', version: '3ea751c0', reason: "meta.scaffold is 'swe-agent@3ea751c0'" },
        steps: 2,
        recorded: 4,
        matched: 2,
        firstDivergence: null,
        stop: 'exhausted',
      },
    });
  });

  test('replay after one line of the repository changed: divergence at the first affected step, with the diff', async () => {
    const changed = path.join(work, 'changed-repo');
    await cp(repo.dir, changed, { recursive: true });
    const money = path.join(changed, 'ledger/money.py');
    const lines = (await readFile(money, 'utf8')).split('\n');
    lines[75] = '        """Split into parts by ratio."""';
    await writeFile(money, lines.join('\n'));
    const result = await runCli(replayCommand, [recorded(), '--image', TEST_IMAGE, '--repo', changed, '--workdir', '/repo', '--json']);
    assert.equal(result.code, 1);
    const out = jsonLines(result.stdout);
    assert.deepEqual(out[0], { index: 0, matched: true, diff: '' });
    assert.equal(out[1]!.matched, false);
    const diff = String(out[1]!.diff);
    assert.match(diff, /^-76:        """Split into parts proportional to ``ratios`` that add up to exactly this amount\."""$/m);
    assert.match(diff, /^\+76:        """Split into parts by ratio\."""$/m);
    assert.equal(diff.split('\n').filter((l) => /^[-+]/.test(l)).length, 2);
    assert.equal((out.at(-1)!.summary as { firstDivergence: number }).firstDivergence, 1);
    // The text counts from 1, as the stepper does: the second step (index 1) is "step 2".
    const text = await runCli(replayCommand, [recorded(), '--image', TEST_IMAGE, '--repo', changed, '--workdir', '/repo']);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^step 1: matched\nstep 2: DIVERGED\n/);
    assert.match(text.stdout, /^\d+ of \d+ replayed steps matched; first divergence at step 2$/m);
  });

  test("run --fork --at 2: the first two steps are the recording's, then the policy continues; the parent is remembered", async () => {
    server.setScript([thoughtAction('Count the journal tests instead.', 'grep -c "def test_" tests/test_journal.py'), thoughtAction('Done.', 'submit')]);
    const forkedFile = path.join(work, 'forked.json');
    const result = await runCli(runCommand, [
      '--task',
      taskFile,
      '--policy-url',
      server.url,
      '--out',
      forkedFile,
      '--fork',
      recorded(),
      '--at',
      '2',
      '--logprobs',
      '1',
    ]);
    assert.equal(result.code, 0, result.stderr);
    const live = await readTrajectory(recorded());
    const forked = await readTrajectory(forkedFile);
    assert.deepEqual(forked.meta.parent, { id: live.meta.id, forkStep: 1 });
    assert.equal(forked.steps.length, 4);
    for (const i of [0, 1]) {
      assert.deepEqual(forked.steps[i]!.action, live.steps[i]!.action);
      assert.equal(forked.steps[i]!.observation, live.steps[i]!.observation);
      assert.deepEqual(forked.steps[i]!.logprobs, live.steps[i]!.logprobs);
    }
    assert.equal(forked.steps[2]!.action.raw, 'grep -c "def test_" tests/test_journal.py');
    assert.match(forked.steps[2]!.observation, /^\d+$/);
    assert.equal(forked.steps[2]!.logprobs?.[0]?.top?.length, 1);
    assert.equal(server.chatRequests[0]!.messages.length, 2 + 2 * 2);
    assert.equal(server.chatRequests[0]!.messages[1]!.content, live.meta.instructions);
  });

  test('a fork point past the end of the recording is refused before any container starts', async () => {
    const result = runCli(runCommand, [
      '--task',
      taskFile,
      '--policy-url',
      server.url,
      '--out',
      path.join(work, 'never.json'),
      '--fork',
      recorded(),
      '--at',
      '9',
    ]);
    await assert.rejects(result, /cannot fork at step 9: the recording has 4 steps/);
  });

  test('policy faults: retries exhausted or a hang past the timeout stop the run cleanly, recorded with the reason', async () => {
    const fault = { kind: 'status' as const, status: 500, message: 'worker died' };
    server.setScript([{ fault }, { fault }, { fault }, { fault }]);
    const failed = path.join(work, 'failed.json');
    const first = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', failed]);
    assert.equal(first.code, 1);
    const trajectory = await readTrajectory(failed);
    assert.equal(trajectory.outcome.exitStatus, 'exit_error');
    assert.match(trajectory.outcome.error ?? '', /HTTP 500: worker died \(gave up after 4 attempts\)/);
    assert.equal(first.stderr.match(/^policy: attempt \d failed \(.*HTTP 500: worker died\); retrying in \d+ ms$/gm)?.length, 3);
    assert.equal(await leftoverContainers().then((c) => c.length), 0);

    server.setScript([{ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }]);
    const hung = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', failed, '--timeout-ms', '400']);
    assert.equal(hung.code, 1);
    assert.match((await readTrajectory(failed)).outcome.error ?? '', /did not answer within 400 ms/);
  });

  test('a stream cut mid-reply and invalid tool-call JSON become marked steps, not crashes', async () => {
    server.setScript([
      { ...thoughtAction('Look first.', 'grep -n allocate ledger/money.py'), fault: { kind: 'truncate', afterChunks: 3 } },
      { content: 'Let me open it.', toolCalls: [{ name: 'open', arguments: '{"path": "ledger/money.py"' }] },
      { content: '', toolCalls: [{ name: 'submit', arguments: '{}' }] },
    ]);
    const out = path.join(work, 'faulty.json');
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--scaffold', 'function_calling', '--stream']);
    assert.equal(result.code, 0, result.stderr);
    const steps = (await readTrajectory(out)).steps;
    assert.deepEqual(steps[0]!.flags, ['stream-interrupted']);
    assert.match(steps[0]!.formatError ?? '', /the reply stream broke after 3 chunk\(s\)/);
    assert.equal(steps[1]!.formatError, 'Tool call arguments are not valid JSON.');
    assert.equal(steps[1]!.observation, 'Your action could not be parsed properly: Tool call arguments are not valid JSON..');
    assert.equal(steps[2]!.action.tool, 'submit');
    const offered = (server.chatRequests[0]!.tools ?? []).map((t) => t.function.name);
    assert.ok(
      ['bash', 'open', 'str_replace_editor', 'submit'].every((name) => offered.includes(name)),
      offered.join(', '),
    );
  });

  test('function calling against a vLLM started without --enable-auto-tool-choice: the run stops and says how to fix it', async () => {
    const strict = await startPolicyServer([{ content: 'never' }], { autoToolChoice: false });
    try {
      const out = path.join(work, 'no-tools.json');
      const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', strict.url, '--out', out, '--scaffold', 'function_calling']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /only when started with --enable-auto-tool-choice --tool-call-parser <name>/);
      assert.match((await readTrajectory(out)).outcome.error ?? '', /enable-auto-tool-choice/);
      assert.equal(strict.chatRequests.length, 1);
    } finally {
      await strict.close();
    }
  });

  test('a task file with a missing field is refused with the file and the JSON path', async () => {
    const bad = path.join(work, 'bad-task.json');
    await writeFile(bad, JSON.stringify({ image: TEST_IMAGE, repo: repo.dir, problemStatement: 'x', baseCommit: 'not-a-sha' }));
    await assert.rejects(runCli(runCommand, ['--task', bad, '--policy-url', server.url, '--out', path.join(work, 'never.json')]), (err: Error) => {
      assert.equal(err.message, `${bad}: $.baseCommit: expected a commit sha (7 to 40 hex digits)`);
      return true;
    });
  });
});
