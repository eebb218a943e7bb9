import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importTrajectory, loadTrajectory, rawRecords } from '../../../extension/core/trajectory/load';
import { sampleTrajectory } from '../../helpers/trajectoryFiles';

describe('R2E-Gym JSONL', () => {
  test('the first line: XML function calls, token usage, reward and patch', async () => {
    const loaded = await loadTrajectory(sampleTrajectory('r2e-gym.deepswe.jsonl'));
    const t = loaded.trajectory;
    assert.equal(loaded.format, 'r2e-gym');
    assert.deepEqual([loaded.record, loaded.line, loaded.records], [0, 1, 2]);
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['search', 'file_editor', 'execute_bash', 'finish'],
    );
    assert.deepEqual(t.steps[0]!.action.args, { search_term: 'class TimeDelta', path: '/testbed/src/marshmallow' });
    // R2E-Gym's agent strips every parameter (Action.from_string), first-line indentation included.
    assert.equal(t.steps[1]!.action.args.new_str, 'return int(round(value.total_seconds() / base_unit.total_seconds()))');
    assert.deepEqual(t.steps[1]!.tokens, { prompt: 2900, completion: 210, total: 3110 });
    assert.equal(t.steps[2]!.executionTime, 0.41);
    assert.deepEqual(t.steps[2]!.source, { pointers: ['/trajectory_steps/2'], line: 1 });
    assert.equal(t.outcome.reward, 1);
    assert.equal(t.outcome.exitStatus, 'agent');
    assert.match(t.outcome.submission ?? '', /^diff --git a\/src\/marshmallow\/fields\.py/);
    assert.equal(t.task.image, 'namanjain12/marshmallow_final:bfd2593d4b416122e30cdefe0c72d322ef471611');
    assert.equal(t.meta.model, 'agentica-org/DeepSWE-Preview');
    assert.equal((rawRecords(loaded, t.steps[3]!)[0] as { done: boolean }).done, true);
  });

  test('the second line: an action without a function call is a format error', async () => {
    const loaded = await loadTrajectory(sampleTrajectory('r2e-gym.deepswe.jsonl'), { record: 1 });
    const t = loaded.trajectory;
    assert.equal(loaded.line, 2);
    assert.equal(t.steps.length, 2);
    assert.deepEqual(t.steps[0]!.action, { raw: 'I will look around first.', tool: null, args: {} });
    assert.equal(t.steps[0]!.formatError, 'no <function=...> call in the action');
    assert.deepEqual(t.steps[1]!.action.args, { cmd: 'ls /testbed' });
    assert.equal(t.outcome.exitStatus, 'max_step_limit');
    assert.equal(t.outcome.reward, 0);
  });
});

describe('rLLM episodes', () => {
  test('steps with logprobs aligned to response ids, and a tool-call action', async () => {
    const { trajectory: t, format } = await loadTrajectory(sampleTrajectory('rllm.episode.json'));
    assert.equal(format, 'rllm');
    assert.deepEqual(t.steps[0]!.action.args, { cmd: "grep -n 'base_unit.total_seconds' -r src" });
    assert.deepEqual(
      t.steps[0]!.logprobs?.map((l) => [l.token, l.logprob]),
      [
        ['40', -0.012],
        ['686', -0.53],
        ['1477', -1.204],
        ['279', -0.0003],
      ],
    );
    assert.equal(t.steps[1]!.action.tool, 'finish');
    assert.equal(t.steps[1]!.action.toolCallId, 'call_sub_1');
    assert.deepEqual(t.steps[1]!.action.args, { command: 'submit' });
    assert.equal(t.steps[1]!.observation, '{"exit_code":0,"output":"submitted"}');
    assert.deepEqual(t.outcome, { exitStatus: 'ENV_DONE', reward: 1, resolved: true });
    assert.equal(t.meta.id, 'marshmallow-code__marshmallow-1867:3');
    assert.equal(t.task.baseCommit, 'bfd2593d4b416122e30cdefe0c72d322ef471611');
  });
});

describe('SkyRL-Agent results', () => {
  test('tool calls paired by id, finish reason and reward', async () => {
    const { trajectory: t, format } = await loadTrajectory(sampleTrajectory('skyrl.result.json'));
    assert.equal(format, 'skyrl');
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['str_replace_editor', 'execute_bash', null],
    );
    assert.deepEqual(t.steps[0]!.action.args, { command: 'view', path: '/workspace/marshmallow/src/marshmallow/fields.py', view_range: [1470, 1476] });
    assert.equal(t.steps[1]!.observation, '1 failed in 0.31s\n[The command completed with exit code 1.]');
    assert.equal(t.steps[2]!.observation, 'Maximum number of iterations reached.');
    assert.deepEqual(t.outcome, { exitStatus: 'max_iterations_reached', reward: 0 });
    assert.equal(t.meta.id, '17');
  });
});

describe('OpenHands evaluation output.jsonl', () => {
  test('events from history, with the instance, patch and cost of the line', async () => {
    const { trajectory: t, format } = await loadTrajectory(sampleTrajectory('openhands.output.jsonl'));
    assert.equal(format, 'openhands');
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['run', 'edit', 'finish'],
    );
    assert.equal(t.steps[0]!.thought, 'Let me look.');
    assert.equal(t.steps[0]!.exitCode, 0);
    assert.match(t.steps[0]!.observation, /^236:    def _serialize\(/);
    assert.deepEqual(t.steps[0]!.source, { pointers: ['/history/3', '/history/4'], line: 1 });
    assert.equal(t.steps[1]!.action.raw, JSON.stringify(t.steps[1]!.action.args));
    assert.equal(t.steps[1]!.action.args.old_str, 'return int(value.total_seconds() / base_unit.total_seconds())');
    assert.equal(t.steps[2]!.action.raw, 'The precision bug is fixed.');
    assert.equal(t.task.instanceId, 'marshmallow-code__marshmallow-1867');
    assert.equal(t.task.repo, 'marshmallow-code/marshmallow');
    assert.equal(t.outcome.exitStatus, 'finished');
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.1423 });
    assert.match(t.outcome.submission ?? '', /^diff --git a\/src\/marshmallow\/fields\.py/);
    assert.equal(t.meta.model, 'litellm_proxy/claude-3-5-sonnet-20241022');
    assert.equal(t.meta.systemPrompt, 'You are OpenHands agent, a helpful AI assistant.');
  });
});

describe('mini-swe-agent 1.1', () => {
  test('actions from extra.actions, tool results by id, a FormatError and the exit message', async () => {
    const { trajectory: t, format } = await loadTrajectory(sampleTrajectory('mini-swe-agent-1.1.tool-calls.traj.json'));
    assert.equal(format, 'mini-swe-agent');
    assert.equal(t.steps.length, 4);
    assert.deepEqual(t.steps[0]!.action, {
      raw: "grep -n 'total_seconds' src/marshmallow/fields.py",
      tool: 'bash',
      args: { command: "grep -n 'total_seconds' src/marshmallow/fields.py" },
      toolCallId: 'call_m1',
    });
    assert.equal(t.steps[0]!.exitCode, 0);
    assert.equal(t.steps[0]!.timestamp, new Date(1761000001250).toISOString());
    assert.equal(t.steps[1]!.action.tool, null);
    assert.equal(t.steps[1]!.formatError, 'FormatError: Please always provide EXACTLY ONE action in triple backticks, found 0 actions.');
    assert.equal(t.outcome.exitStatus, 'Submitted');
    assert.match(t.outcome.submission ?? '', /^diff --git a\/src\/marshmallow\/fields\.py/);
    assert.equal(t.steps[3]!.observation, t.outcome.submission, 'the submitting command wrote no tool message: the exit message is its result');
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.0312, apiCalls: 4 });
    assert.equal(t.meta.formatVersion, 'mini-swe-agent-1.1');
    assert.equal(t.meta.model, 'anthropic/claude-sonnet-4-5-20250929');
    assert.equal(t.meta.parseFunction, 'tool_calling');
    assert.equal(t.task.instanceId, 'marshmallow-code__marshmallow-1867');
  });
});

describe('OpenAI chat messages', () => {
  test('parallel tool calls become calls[] paired by id; malformed arguments are kept and marked', async () => {
    const { trajectory: t, format } = await loadTrajectory(sampleTrajectory('openai-messages.parallel-calls.json'));
    assert.equal(format, 'openai-messages');
    assert.equal(t.steps.length, 4);
    const calls = t.steps[0]!.calls!;
    assert.deepEqual(
      calls.map((c) => [c.action.toolCallId, c.action.args.path]),
      [
        ['call_p1', 'tests/test_math.py'],
        ['call_p2', 'mathlib/core.py'],
      ],
    );
    // The results came back in the other order; each pairs with its own call.
    assert.match(calls[0]!.observation, /^from mathlib\.core import add/);
    assert.equal(calls[1]!.observation, 'def add(a, b):\n    return a - b\n');
    assert.equal(t.steps[0]!.observation, `${calls[0]!.observation}\n${calls[1]!.observation}`);
    const broken = t.steps[1]!;
    assert.equal(broken.action.tool, 'apply_patch');
    assert.deepEqual(broken.action.args, {});
    assert.equal(JSON.parse(broken.action.raw).arguments, '{"path": "mathlib/core.py", "old": "a - b", "new": "a + b"');
    assert.match(broken.formatError ?? '', /^apply_patch: arguments are not valid JSON/);
    assert.equal(t.steps[3]!.thought, '`add` subtracted instead of adding; fixed.');
    assert.equal(t.meta.instructions, 'Why does tests/test_math.py fail?');
  });
});

describe('SWE-agent retry agents', () => {
  test('the best attempt is read when the file holds only attempts[], with XML actions', async () => {
    const loaded = await loadTrajectory(sampleTrajectory('swe-agent.retry-attempts.traj'));
    const t = loaded.trajectory;
    assert.equal(loaded.format, 'swe-agent');
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['str_replace_editor', 'str_replace_editor', 'submit'],
    );
    assert.deepEqual(t.steps[1]!.action.args, {
      command: 'str_replace',
      path: '/testbed/tests/missing_colon.py',
      old_str: 'def division(a: float, b: float) -> float',
      new_str: 'def division(a: float, b: float) -> float:',
    });
    assert.deepEqual(t.steps[1]!.source?.pointers, ['/attempts/1/trajectory/1', '/attempts/1/history/4']);
    assert.equal(t.outcome.exitStatus, 'submitted');
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.42, tokensSent: 3000, tokensReceived: 150, apiCalls: 3 });
    assert.equal(t.meta.parseFunction, 'xml_function_calling');
    assert.deepEqual(t.meta.toolBundles, ['tools/registry', 'tools/edit_anthropic', 'tools/submit']);
    assert.deepEqual(t.steps[0]!.sampling, { temperature: 0.6, top_p: 0.95 });
    assert.equal(t.meta.formatVersion, '1.1.0');
    assert.equal((rawRecords(loaded, t.steps[2]!)[0] as { query: unknown[] }).query.length, 1);
  });
});

describe('mini-swe-agent 1', () => {
  test('fenced commands in a wrapped run; the final user message carrying the exit status ends it', () => {
    const t = importTrajectory(
      {
        trajectory_format: 'mini-swe-agent-1',
        info: { exit_status: 'Submitted', submission: 'diff --git a/a.py b/a.py\n', mini_version: '1.0.0', model_stats: { instance_cost: 0.01, api_calls: 2 } },
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: 'Fix a.py' },
          { role: 'assistant', content: 'THOUGHT: look.\n\n```bash\ncat a.py\n```' },
          { role: 'user', content: '<returncode>0</returncode>\n<output>\nx = 1\n</output>' },
          { role: 'assistant', content: 'THOUGHT: done.\n\n```bash\necho MINI_SWE_AGENT_FINAL_OUTPUT && git diff\n```' },
          { role: 'user', content: 'diff --git a/a.py b/a.py\n', extra: { exit_status: 'Submitted', submission: 'diff --git a/a.py b/a.py\n' } },
        ],
      },
      { file: 'run.traj.json' },
    );
    assert.equal(t.format, 'mini-swe-agent');
    assert.deepEqual(
      t.steps.map((s) => s.action.args.command),
      ['cat a.py', 'echo MINI_SWE_AGENT_FINAL_OUTPUT && git diff'],
    );
    assert.equal(t.steps[0]!.thought, 'THOUGHT: look.');
    assert.equal(t.steps[0]!.exitCode, 0);
    assert.equal(t.steps[1]!.observation, 'diff --git a/a.py b/a.py\n', "the exit message is the submitting command's result");
    assert.deepEqual(t.outcome, { exitStatus: 'Submitted', submission: 'diff --git a/a.py b/a.py\n', modelStats: { instanceCost: 0.01, apiCalls: 2 } });
    assert.equal(t.meta.formatVersion, 'mini-swe-agent-1');
  });
});
