import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import { failureLabel } from '../../../extension/core/rollouts/failureTaxonomy';
import { indexRollouts, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import { repoRoot, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const MAIN = path.join(repoRoot, 'extension/cli/main.ts');
const GOLDEN = 'harbor/golden/terminus_2';
const JOB = 'jobs/2026-11-26__10-00-00';

interface Trial {
  name: string;
  task: string;
  trajectory: string;
  rewards?: Record<string, number> | null;
  exception?: { exception_type: string; exception_message: string };
}

/** Harbor's folders: two tasks, two trials each; real Terminus-2 ATIF recordings as the trajectories. */
const TRIALS: Trial[] = [
  { name: 'hello-world__Ab3xYz1', task: 'hello-world', trajectory: 'hello-world-context-summarization.trajectory.json', rewards: { reward: 1 } },
  { name: 'hello-world__Qr9tUv2', task: 'hello-world', trajectory: 'hello-world-context-summarization-linear-history.trajectory.json', rewards: { reward: 0 } },
  {
    name: 'fix-git__Kd7mNp3',
    task: 'fix-git',
    trajectory: 'hello-world-context-summarization.trajectory.json',
    rewards: null,
    exception: { exception_type: 'AgentTimeoutError', exception_message: 'Agent execution timed out after 900.0 seconds' },
  },
  { name: 'fix-git__Zw4bHc5', task: 'fix-git', trajectory: 'hello-world-context-summarization-linear-history.trajectory.json' },
];

function trialResult(t: Trial): unknown {
  return {
    id: '6f1c2a4e-0000-4000-8000-000000000000',
    task_name: t.task,
    trial_name: t.name,
    trial_uri: `file:///runs/${JOB}/${t.name}`,
    task_checksum: 'abc123',
    agent_info: { name: 'terminus-2', version: '2.0.0', model_info: { name: 'gpt-5', provider: 'openai' } },
    agent_result: { n_input_tokens: 1200, n_output_tokens: 300, cost_usd: null },
    verifier_result: t.rewards === undefined ? null : { rewards: t.rewards },
    exception_info: t.exception ? { ...t.exception, exception_traceback: 'Traceback ...', occurred_at: '2026-11-26T10:15:00Z' } : null,
    started_at: '2026-11-26T10:00:00Z',
    finished_at: '2026-11-26T10:15:00Z',
  };
}

function writeJob(root: string): void {
  const job = path.join(root, JOB);
  mkdirSync(job, { recursive: true });
  writeFileSync(path.join(job, 'config.json'), JSON.stringify({ job_name: 'j', agents: [{ name: 'terminus-2' }], orchestrator: { n_concurrent_trials: 2 } }));
  writeFileSync(path.join(job, 'result.json'), JSON.stringify({ id: 'x', n_total_trials: 4, stats: { n_trials: 4, n_errors: 1 } }));
  for (const t of TRIALS) {
    const dir = path.join(job, t.name);
    mkdirSync(path.join(dir, 'agent'), { recursive: true });
    copyFileSync(thirdParty(`${GOLDEN}/${t.trajectory}`), path.join(dir, 'agent/trajectory.json'));
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ task: { path: `tasks/${t.task}` }, trial_name: t.name, agent: { name: 'terminus-2' } }));
    writeFileSync(path.join(dir, 'result.json'), JSON.stringify(trialResult(t)));
    if (t.rewards) {
      mkdirSync(path.join(dir, 'verifier'));
      writeFileSync(path.join(dir, 'verifier/reward.txt'), String(t.rewards.reward));
      writeFileSync(path.join(dir, 'verifier/reward.json'), JSON.stringify(t.rewards));
      writeFileSync(path.join(dir, 'verifier/test-stdout.txt'), '1 passed\n');
    }
  }
}

describe('Harbor job folders open as rollouts', () => {
  let root: string;
  let index: RolloutIndex;
  const row = (trial: string) => index.rollouts.find((r) => r.path === `${JOB}/${trial}/agent/trajectory.json`)!;

  thirdPartyFiles.before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'swe-workbench-harbor-'));
    writeJob(root);
    index = await indexRollouts(root);
  });
  thirdPartyFiles.after(() => rmSync(root, { recursive: true, force: true }));

  thirdPartyFiles.test('each trial is one rollout, grouped by its task, attempts numbered from 1', () => {
    assert.deepEqual(index.errors, []);
    assert.equal(index.rollouts.length, 4);
    assert.deepEqual(
      index.rollouts.map((r) => [r.path.split('/')[2], r.instance, r.instanceSource, r.attempt, r.format]),
      [
        ['fix-git__Kd7mNp3', 'fix-git', 'harbor-trial', 1, 'atif'],
        ['fix-git__Zw4bHc5', 'fix-git', 'harbor-trial', 2, 'atif'],
        ['hello-world__Ab3xYz1', 'hello-world', 'harbor-trial', 1, 'atif'],
        ['hello-world__Qr9tUv2', 'hello-world', 'harbor-trial', 2, 'atif'],
      ],
    );
    for (const r of index.rollouts) {
      assert.ok(r.steps > 0, r.path);
      assert.equal(r.evaluation?.agent, 'terminus-2@2.0.0 (openai/gpt-5)');
    }
  });

  thirdPartyFiles.test("the verifier's reward decides pass and fail", () => {
    const pass = row('hello-world__Ab3xYz1');
    assert.equal(pass.reward, 1);
    assert.equal(pass.resolved, true);
    assert.equal(pass.failure, 'resolved');
    const fail = row('hello-world__Qr9tUv2');
    assert.equal(fail.reward, 0);
    assert.equal(fail.resolved, false);
    assert.notEqual(fail.failure, 'resolved');
  });

  thirdPartyFiles.test("an agent exception is the failure's reason; no verifier result is not graded, never 0", () => {
    const crashed = row('fix-git__Kd7mNp3');
    assert.equal(crashed.resolved, null);
    assert.equal(crashed.reward, undefined);
    assert.equal(crashed.failure, 'infra-error');
    assert.match(crashed.evidence.detail, /fix-git__Kd7mNp3\/result\.json: AgentTimeoutError: Agent execution timed out after 900\.0 seconds/);
    const ungraded = row('fix-git__Zw4bHc5');
    assert.equal(ungraded.resolved, null);
    assert.equal(ungraded.reward, undefined);
    assert.equal(failureLabel(ungraded), 'not graded');
    assert.equal(ungraded.evidence.detail, `${JOB}/fix-git__Zw4bHc5/result.json: no verifier result: not graded`);
  });

  thirdPartyFiles.test('a malformed result.json is a located error, and its trajectory is still listed', async () => {
    const broken = mkdtempSync(path.join(tmpdir(), 'swe-workbench-harbor-bad-'));
    try {
      const dir = path.join(broken, 'jobs/j/hello-world__Bad0001');
      mkdirSync(path.join(dir, 'agent'), { recursive: true });
      copyFileSync(thirdParty(`${GOLDEN}/${TRIALS[0]!.trajectory}`), path.join(dir, 'agent/trajectory.json'));
      const result = trialResult(TRIALS[0]!) as Record<string, unknown>;
      result.verifier_result = { rewards: { reward: 'high' } };
      writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result));
      const bad = await indexRollouts(broken);
      assert.equal(bad.errors.length, 1);
      assert.equal(bad.errors[0]!.file, 'jobs/j/hello-world__Bad0001/result.json');
      assert.match(bad.errors[0]!.where ?? bad.errors[0]!.message, /verifier_result\.rewards\.reward/);
      assert.equal(bad.rollouts.length, 1);
      assert.equal(bad.rollouts[0]!.resolved, null);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  thirdPartyFiles.test('swe-workbench rollouts prints the trials, their groups and the agent as JSON', () => {
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', MAIN, 'rollouts', ...args], { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
    const table = cli([root]);
    assert.equal(table.status, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    const cells = (trial: string) => lines.find((l) => l.startsWith(`${JOB}/${trial}/`))!.split(/ {2,}/);
    assert.deepEqual(cells('hello-world__Ab3xYz1').slice(1, 4), ['hello-world', '1', 'atif']);
    assert.deepEqual(cells('hello-world__Ab3xYz1').slice(6, 9), ['true', '1', 'resolved']);
    assert.deepEqual(cells('fix-git__Kd7mNp3').slice(6, 9), ['-', '-', 'infra-error']);
    assert.equal(lines.at(-1), '4 rollouts, 2 instances, 1/2 evaluated resolved, 1 mixed groups');

    const grouped = cli([root, '--group']);
    const hello = grouped.stdout
      .split('\n')
      .find((l) => l.startsWith('hello-world '))!
      .split(/ {2,}/);
    assert.deepEqual(hello.slice(0, 4), ['hello-world', '2', '2', '1']);

    const json = cli([root, '--json', '--filter', "agent='terminus-2@2.0.0 (openai/gpt-5)'"]);
    assert.equal(json.status, 0, json.stderr);
    const records = (JSON.parse(json.stdout) as { rollouts: Array<{ agent: string; evaluationFile: string }> }).rollouts;
    assert.equal(records.length, 4);
    assert.ok(records.every((r) => r.agent === 'terminus-2@2.0.0 (openai/gpt-5)' && r.evaluationFile.endsWith('/result.json')));
  });
});
