import '../../helpers/families';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, test } from 'node:test';
import { toSweAgentTraj } from '../../../extension/core/scaffolds/swe-agent/trajExporter';
import { aTrajectory } from '../../builders/trajectory';
import { repoRoot, sampleTrajectory, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

function inspect(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), 'inspect', ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('swe-workbench inspect', () => {
  thirdPartyFiles.test('prints the format, task, outcome and one line a step', () => {
    const { code, stdout } = inspect(thirdParty('swe-agent/marshmallow-1867.windowed.traj'));
    assert.equal(code, 0);
    const lines = stdout.split('\n');
    assert.equal(lines[1], 'format   swe-agent (thought_action)');
    assert.match(
      lines[2]!,
      /^task     marshmallow-code__marshmallow-1867  @ bfd2593d4b41  image swebench\/sweb\.eval\.x86_64\.marshmallow-code_1776_marshmallow-1867:latest$/,
    );
    assert.equal(lines[3], 'model    gpt-4o');
    assert.match(lines[4]!, /^outcome  submitted · submission 564 B/);
    assert.equal(lines[5], 'steps    11');
    assert.match(
      lines[6]!,
      /^scaffold swe-agent@0\.2 \(.*; step 7 \(`edit 1475:1475`\) words its lint rejection "\.\.\.retry your edit commmand\." \(sic\), as SWE-agent 0\.2 does\)$/,
    );
    // Steps numbered from 1, as the stepper's "Step 6 of 11" (the JSON keeps the 0-based index).
    assert.match(stdout, /^ {3}1 {2}\S/m);
    assert.doesNotMatch(stdout, /^ {3}0 {2}/m);
    assert.match(stdout, /^ {3}6 {2}open +open src\/marshmallow\/fields\.py 1474 +4\.1 kB$/m);
    assert.match(stdout, /^ {3}7 {2}edit .* 1\.9 kB {2}lint-rejected$/m);
  });

  test('a cost nobody counted prints as unknown, never $0.0000; a counted one as itself', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-inspect-'));
    try {
      // As older exports wrote it: every counter 0 beside steps that ran.
      const uncounted = path.join(dir, 'uncounted.traj');
      writeFileSync(
        uncounted,
        toSweAgentTraj(aTrajectory({ outcome: { exitStatus: 'submitted', modelStats: { instanceCost: 0, tokensSent: 0, tokensReceived: 0 } } })),
      );
      const counted = path.join(dir, 'counted.traj');
      writeFileSync(
        counted,
        toSweAgentTraj(aTrajectory({ outcome: { exitStatus: 'submitted', modelStats: { instanceCost: 0.0312, tokensSent: 900, tokensReceived: 40 } } })),
      );
      assert.equal(inspect(uncounted).stdout.split('\n')[4], 'outcome  submitted · cost unknown');
      assert.equal(inspect(counted).stdout.split('\n')[4], 'outcome  submitted · cost $0.0312');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  thirdPartyFiles.test('an ATIF file is named as ATIF with its version and the agent that wrote it', () => {
    const { code, stdout } = inspect(thirdParty('harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json'));
    assert.equal(code, 0);
    const lines = stdout.split('\n');
    assert.equal(lines[1], 'format   atif ATIF-v1.6 (agent terminus-2@2.0.0)');
    assert.equal(lines[3], 'model    openai/gpt-4o');
    assert.match(lines[4]!, /cost \$0\.0298/);
    assert.equal(
      lines[5],
      'steps    9 (7 agent steps; the rest are messages or copied context)',
      'the handoff and the answers handed back are not agent steps, as Harbor counts them',
    );
    assert.match(stdout, /^ {3}1 {2}bash_command +keystrokes=mkdir test_dir +62 B$/m);
    assert.match(stdout, /^ {3}4 {2}system +system message: Performed context summarization and handoff to continue task\. +396 B {2}atif-system$/m);
    assert.match(stdout, /^ {3}9 {2}mark_task_complete +mark_task_complete +22 B$/m);
  });

  test('--json prints the canonical trajectory', () => {
    const { code, stdout } = inspect(sampleTrajectory('openai-messages.parallel-calls.json'), '--json');
    assert.equal(code, 0);
    const t = JSON.parse(stdout);
    assert.equal(t.format, 'openai-messages');
    assert.equal(t.steps.length, 4);
    assert.deepEqual(
      t.steps.map((s: { index: number }) => s.index),
      [0, 1, 2, 3],
    );
    assert.deepEqual(t.steps[0].action.args, { path: 'tests/test_math.py' });
    assert.equal(t.steps[0].thought, "I'll read the test and the module together.");
    assert.equal(t.steps[2].observation, '1 passed in 0.01s');
    assert.match(t.steps[1].formatError, /^apply_patch: arguments are not valid JSON/);
    assert.deepEqual(t.outcome, {});
  });

  test('--record picks a JSONL line and --format skips detection', () => {
    const { code, stdout } = inspect(sampleTrajectory('r2e-gym.deepswe.jsonl'), '--record', '1', '--format', 'r2e-gym', '--json');
    assert.equal(code, 0);
    const t = JSON.parse(stdout);
    assert.equal(t.outcome.exitStatus, 'max_step_limit');
    assert.equal(t.steps[0].formatError, 'no <function=...> call in the action');
  });

  test('--line picks a JSONL record by its line, as rollouts list names it; the header counts records from 1', () => {
    const byLine = inspect(sampleTrajectory('r2e-gym.deepswe.jsonl'), '--line', '2', '--format', 'r2e-gym');
    assert.equal(byLine.code, 0, byLine.stderr);
    assert.match(byLine.stdout, /^.*r2e-gym\.deepswe\.jsonl:2 \(record 2 of \d+\)$/m);
    const both = inspect(sampleTrajectory('r2e-gym.deepswe.jsonl'), '--line', '2', '--record', '1');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--line and --record both pick a record: give one/);
  });

  thirdPartyFiles.test('a file that is not a trajectory exits 1 naming the file and what it looks like', () => {
    const file = thirdParty('swe-smith/run_evaluation/pandas-dev__pandas.95280573.pr_53652/report.json');
    const { code, stdout, stderr } = inspect(file);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(
      stderr,
      new RegExp(`^swe-workbench: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: \\$: not a trajectory: it looks like a SWE-bench evaluation report\\.json`),
    );
  });

  test('a wrong type exits 1 with the JSON path', () => {
    const file = sampleTrajectory('malformed/wrong-types.traj');
    const { code, stderr } = inspect(file, '--json');
    assert.equal(code, 1);
    assert.equal(stderr, `swe-workbench: ${file}: $.trajectory[3].observation: expected a string, got number\n`);
  });

  test('a SkyRL run whose finish reason masks its loss says so', () => {
    const { code, stdout } = inspect(sampleTrajectory('skyrl.result.json'));
    assert.equal(code, 0);
    assert.match(stdout, /^outcome  max_iterations_reached · loss masked in training · reward 0$/m);
  });

  test('an unknown --format is a usage error (exit 2)', () => {
    const { code, stderr } = inspect(sampleTrajectory('skyrl.result.json'), '--format', 'langchain');
    assert.equal(code, 2);
    assert.match(
      stderr,
      /--format: expected one of swe-agent, mini-swe-agent, r2e-gym, openhands, openhands-v1, rllm, skyrl, harbor-traces, openai-messages, atif, canonical, got 'langchain'/,
    );
  });
});
