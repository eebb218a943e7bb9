import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadTrajectory, rawRecords } from '../../../extension/core/trajectory/load';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const tools = (steps: ReadonlyArray<{ action: { tool: string | null } }>) => steps.map((s) => s.action.tool);

describe('SWE-agent .traj files', () => {
  thirdPartyFiles.test('a history-only demonstration becomes one step per assistant function call', async () => {
    const { trajectory: t, format } = await loadTrajectory(thirdParty('swe-agent/function_calling_simple.traj'));
    assert.equal(format, 'swe-agent');
    assert.deepEqual(tools(t.steps), ['find_file', 'open', 'edit', 'bash', 'submit']);
    assert.deepEqual(t.steps[0]!.action.args, { file_name: 'missing_colon.py' });
    assert.equal(t.steps[0]!.action.toolCallId, 'call_PbWErNIge3YTrli3fiVvmIid');
    assert.deepEqual(t.steps[2]!.action.args, { search: 'def division(a: float, b: float) -> float', replace: 'def division(a: float, b: float) -> float:' });
    assert.deepEqual(t.steps[3]!.action.args, { command: 'python tests/missing_colon.py' });
    assert.match(t.steps[3]!.observation, /^8\.2\n\(Open file: \/SWE-agent__test-repo\/tests\/missing_colon\.py\)/);
    assert.deepEqual(t.steps[1]!.source?.pointers, ['/history/4', '/history/5']);
    assert.match(t.meta.systemPrompt ?? '', /^SETTING: You are an autonomous programmer/);
  });

  thirdPartyFiles.test('the windowed 0.7 demo: string state, line commands read with the tools, a lint-rejected edit', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.windowed.traj'));
    assert.equal(t.steps.length, 11);
    assert.deepEqual(tools(t.steps), ['create', 'edit', 'bash', 'bash', 'find_file', 'open', 'edit', 'edit', 'bash', 'bash', 'submit']);
    assert.deepEqual(t.steps[5]!.action.args, { path: 'src/marshmallow/fields.py', line_number: 1474 });
    assert.equal(t.steps[5]!.action.raw, 'open src/marshmallow/fields.py 1474\n');
    const edit = t.steps[6]!.action.args;
    assert.equal(edit.start_line, 1475);
    assert.equal(edit.end_line, 1475);
    assert.equal(edit.replacement_text, 'return int(round(value.total_seconds() / base_unit.total_seconds()))  # round to nearest int');
    assert.deepEqual(t.steps[6]!.flags, ['lint-rejected']);
    assert.equal(t.steps[7]!.flags, undefined);
    assert.deepEqual(t.steps[0]!.state, { openFile: null, workingDir: '/marshmallow-code__marshmallow' });
    assert.equal(t.steps[1]!.state?.openFile, '/marshmallow-code__marshmallow/reproduce.py');
    assert.equal(t.steps[8]!.observation, '345\n');
    assert.equal(t.outcome.exitStatus, 'submitted');
    assert.match(t.outcome.submission ?? '', /^\ndiff --git a\/src\/marshmallow\/fields\.py b\/src\/marshmallow\/fields\.py\n/);
    assert.equal(t.meta.parseFunction, 'thought_action');
    assert.deepEqual(t.meta.toolBundles, ['tools/defaults', 'tools/search', 'tools/edit_linting', 'tools/submit']);
    assert.equal(t.meta.pty, false);
    assert.equal(t.meta.model, 'gpt-4o');
    assert.equal(t.task.instanceId, 'marshmallow-code__marshmallow-1867');
    assert.equal(t.task.baseCommit, 'bfd2593d4b416122e30cdefe0c72d322ef471611');
    assert.equal(t.task.repoPath, '/marshmallow-code__marshmallow');
  });

  thirdPartyFiles.test('a function-calling run takes tools and arguments from the history tool calls', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-agent/marshmallow-1867.function_calling.traj'));
    assert.equal(t.steps.length, 11);
    assert.equal(t.steps[1]!.action.tool, 'insert');
    assert.match(String(t.steps[1]!.action.args.text), /^from marshmallow\.fields import TimeDelta\nfrom datetime import timedelta\n/);
    assert.deepEqual(t.steps[4]!.action.args, { file_name: 'fields.py', dir: 'src' });
    assert.deepEqual(t.steps[5]!.action.args, { path: 'src/marshmallow/fields.py', line_number: 1474 });
    assert.equal(t.steps[10]!.action.tool, 'submit');
    assert.ok(t.steps.every((s) => typeof s.executionTime === 'number'));
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 11 });
    assert.equal(t.meta.parseFunction, 'function_calling');
    assert.equal(t.task.image, 'swebench/sweb.eval.x86_64.marshmallow-code_1776_marshmallow-1867:latest');
    assert.equal(t.task.repoPath, '/testbed');
    assert.match(t.task.problemStatement ?? '', /^TimeDelta serialization precision/);
  });

  thirdPartyFiles.test('the test-repo run: model stats, a GitHub repository, and a final submit missing from history', async () => {
    const loaded = await loadTrajectory(thirdParty('swe-agent/sweagenttestrepo-1c2844.traj'));
    const t = loaded.trajectory;
    assert.deepEqual(tools(t.steps), ['find_file', 'open', 'edit', 'bash', 'submit']);
    assert.deepEqual(t.steps[1]!.action.args, { path: '/SWE-agent__test-repo/tests/missing_colon.py' });
    assert.deepEqual(t.steps[4]!.source?.pointers, ['/trajectory/4']);
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.019520000000000006, tokensSent: 7141, tokensReceived: 243, apiCalls: 5 });
    assert.equal(t.task.repo, 'SWE-agent/test-repo');
    assert.equal(t.task.instanceId, 'SWE-agent__test-repo-i1');
    assert.equal(t.meta.pty, true);
    assert.equal(t.steps[3]!.observation, '8.2');
    const raw = rawRecords(loaded, t.steps[3]!)[0] as Record<string, unknown>;
    assert.deepEqual(Object.keys(raw), ['action', 'observation', 'response', 'thought', 'execution_time', 'state']);
    assert.equal(raw.action, 'python3 /SWE-agent__test-repo/tests/missing_colon.py');
  });

  thirdPartyFiles.test("SWE-smith's 1.0.1 trajectory: `messages` in steps, replay_config as a JSON string", async () => {
    const loaded = await loadTrajectory(thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    const t = loaded.trajectory;
    assert.equal(t.steps.length, 17);
    assert.deepEqual(t.steps[1]!.action.args, { command: 'view', path: '/testbed/pandas/io/sql.py' });
    assert.deepEqual(t.steps[3]!.action.args, { command: 'view', path: '/testbed/pandas/io/sql.py', view_range: [1030, 1074] });
    assert.equal(t.steps[8]!.action.args.command, 'pip install duckdb-engine');
    assert.deepEqual(tools(t.steps.slice(14)), ['submit', 'bash', 'submit']);
    assert.equal(t.meta.formatVersion, '1.0.1');
    assert.equal(t.meta.model, 'claude-3-7-sonnet-20250219');
    assert.deepEqual(t.meta.toolBundles, ['tools/registry', 'tools/edit_anthropic', 'tools/review_on_submit_m']);
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.24830985, tokensSent: 157229, tokensReceived: 797, apiCalls: 17 });
    assert.equal(t.task.image, 'swesmith.x86_64.pandas-dev__pandas.95280573');
    const raw = rawRecords(loaded, t.steps[0]!)[0] as { messages: unknown[]; action: string };
    assert.equal(raw.messages.length, 4);
    assert.equal(raw.action, t.steps[0]!.action.raw);
    const [step, assistant] = rawRecords(loaded, t.steps[0]!) as Array<{ role?: string }>;
    assert.equal(step, raw);
    assert.equal(assistant?.role, 'assistant');
  });
});

describe('mini-swe-agent legacy message lists', () => {
  thirdPartyFiles.test('fenced commands, return codes and the submission after the final command', async () => {
    const { trajectory: t, format } = await loadTrajectory(thirdParty('mini-swe-agent/github_issue.traj.json'));
    assert.equal(format, 'mini-swe-agent');
    assert.equal(t.steps.length, 10);
    assert.deepEqual(t.steps[0]!.action, {
      raw: 'cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py',
      tool: 'bash',
      args: { command: 'cat /Users/fuchur/Documents/24/git_sync/swe-agent-test-repo/tests/./missing_colon.py' },
    });
    assert.equal(t.steps[0]!.exitCode, 1);
    assert.equal(t.steps[1]!.exitCode, 0);
    assert.equal(t.steps[0]!.thought, "I'll help you solve this issue. Let me first examine the content of the file that's causing the syntax error.");
    assert.equal(t.steps[6]!.observation, '<returncode>0</returncode>\n<output>\n8.2\n</output>');
    assert.equal(t.steps[9]!.action.args.command, 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached');
    assert.equal(t.outcome.exitStatus, 'Submitted');
    assert.match(t.outcome.submission ?? '', /^diff --git a\/tests\/missing_colon\.py b\/tests\/missing_colon\.py\n/);
    assert.match(t.meta.systemPrompt ?? '', /^You are a helpful assistant that can interact with a computer\./);
    assert.equal(t.meta.pty, false);
  });

  thirdPartyFiles.test('the two-step local run', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('mini-swe-agent/local.traj.json'));
    assert.deepEqual(
      t.steps.map((s) => s.action.args.command),
      ["echo 'hello world'", 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT'],
    );
    assert.equal(t.steps[0]!.observation, '<returncode>0</returncode>\n<output>\nhello world\n</output>');
    assert.equal(t.outcome.exitStatus, 'Submitted');
  });
});

describe('OpenHands event lists', () => {
  thirdPartyFiles.test('an edit paired with its observation by cause, then finish', async () => {
    const { trajectory: t, format } = await loadTrajectory(thirdParty('openhands/basic.json'));
    assert.equal(format, 'openhands');
    assert.deepEqual(tools(t.steps), ['edit', 'finish']);
    assert.equal(t.steps[0]!.action.args.path, '/workspace/game_2048.py');
    assert.equal(t.steps[0]!.action.toolCallId, 'toolu_017nBp7UfiGqyrA7j77HgtFP');
    assert.match(t.steps[0]!.thought, /^I'll help you create a simple 2048 game in Python/);
    assert.match(t.steps[0]!.observation, /^--- \/workspace\/game_2048\.py\n\+\+\+ \/workspace\/game_2048\.py\n/);
    assert.deepEqual(t.steps[0]!.source?.pointers, ['/1', '/2']);
    assert.equal(t.meta.instructions, 'Please create a simple 2048 game. No need to run it. Please finish the interaction after your finish coding.');
    assert.equal(t.outcome.exitStatus, 'finished');
  });

  thirdPartyFiles.test('agent messages are steps; user messages are not', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('openhands/basic_interactions.json'));
    assert.deepEqual(tools(t.steps), ['message', 'message', 'finish']);
    assert.equal(t.steps[0]!.action.raw, '1 + 1 equals 2.');
    assert.equal(t.meta.instructions, "what's 1+1?");
  });

  thirdPartyFiles.test('run with its exit code, and reads', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('openhands/wrong_initial_state.json'));
    assert.deepEqual(tools(t.steps), ['read', 'run', 'read', 'finish']);
    assert.equal(t.steps[1]!.action.raw, 'mv /workspace/game_2048.py /workspace/2048.py');
    assert.equal(t.steps[1]!.action.args.command, 'mv /workspace/game_2048.py /workspace/2048.py');
    assert.equal(t.steps[1]!.exitCode, 0);
    assert.match(t.steps[2]!.observation, /\/workspace\/2048\.py$/);
    assert.equal(t.steps[2]!.thought, 'Let me verify that the file was renamed successfully:');
  });
});

describe('files that are not trajectories', () => {
  for (const [file, looksLike] of [
    ['swe-bench/swe-bench-lite-test.instances.json', 'a list of 5 SWE-bench task instances'],
    ['swe-smith/pandas-dev__pandas.95280573.pr_53652.instance.json', 'a SWE-bench task instance'],
    ['swe-smith/run_evaluation/pandas-dev__pandas.95280573.pr_53652/report.json', 'a SWE-bench evaluation report.json'],
    ['swe-smith/run_evaluation/report.json', 'a SWE-bench run report'],
    ['swe-smith/run_validation/report.json', 'a SWE-smith validation report'],
  ] as const) {
    thirdPartyFiles.test(`${file} is refused as ${looksLike}`, async () => {
      await assert.rejects(loadTrajectory(thirdParty(file)), (err: Error) => {
        assert.ok(err.message.startsWith(`${thirdParty(file)}: $: not a trajectory: it looks like ${looksLike}`), err.message);
        assert.match(
          err.message,
          /tried swe-agent, mini-swe-agent, r2e-gym, openhands, openhands-v1, rllm, skyrl, harbor-traces, openai-messages, atif, canonical$/,
        );
        return true;
      });
    });
  }
});
