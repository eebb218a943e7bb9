import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PolicyReply } from '../../../extension/core/policy/policyClient';
import { miniSweAgentFamily } from '../../../extension/core/scaffolds/mini-swe-agent';
import { miniSettings, submissionOf } from '../../../extension/core/scaffolds/mini-swe-agent/settings';
import type { Trajectory } from '../../../extension/core/trajectory/model';

const reply = (content: string, finishReason = 'stop'): PolicyReply => ({ model: 'm', content, toolCalls: [], finishReason, sampling: {}, retries: [] });
const recording = (config: Record<string, unknown>): Trajectory => ({
  format: 'mini-swe-agent',
  task: {},
  steps: [],
  outcome: {},
  meta: { scaffoldConfig: { mini_version: '2.4.6', config } },
});

describe('mini-swe-agent', () => {
  test('2.x reads the mswea_bash_command fence, and words a format error with its template', () => {
    const mini = miniSweAgentFamily.create('2.x');
    const ok = mini.parseReply(reply('THOUGHT: list.\n\n```mswea_bash_command\nls -la\n```'));
    assert.deepEqual(ok.action, { raw: 'ls -la', tool: 'bash', args: { command: 'ls -la' } });
    assert.equal(ok.thought, 'THOUGHT: list.');
    const wrongFence = mini.parseReply(reply('```bash\nls\n```'));
    assert.equal(wrongFence.formatError, 'expected exactly one action, found 0');
    assert.match(wrongFence.errorMessage ?? '', /^Format error:\n\n<error>\nexpected exactly one action, found 0\n<\/error>\n\nHere is general guidance/);
    assert.match(
      mini.parseReply(reply('I was cut', 'length')).errorMessage ?? '',
      /^Your previous response reached the output token limit \(finish_reason=length\)/,
    );
  });

  test('1.x reads ```bash and says how many actions it found', () => {
    const parsed = miniSweAgentFamily.create('1.x').parseReply(reply('```bash\nls\n```\n```bash\npwd\n```'));
    assert.match(parsed.errorMessage ?? '', /^Please always provide EXACTLY ONE action in triple backticks, found 2 actions\./);
  });

  test("the recording's templates, regex, cwd, env and timeout win over the version's", () => {
    const own = recording({
      agent: { action_regex: '<cmd>(.*?)</cmd>' },
      model: { observation_template: 'OUT {{output.output}}' },
      environment: { cwd: '/testbed', env: { A: 1 }, timeout: 60 },
    });
    const settings = miniSettings('2.x', own);
    assert.equal(settings.observationTemplate, 'OUT {{output.output}}');
    assert.equal(miniSweAgentFamily.create('2.x', own).parseReply(reply('Go.\n<cmd>ls</cmd>')).action.raw, 'ls');
    assert.deepEqual([settings.cwd, settings.env, settings.timeoutS], ['/testbed', { A: '1' }, 60]);
    const defaults = miniSettings('1.x');
    assert.deepEqual([defaults.cwd, defaults.env.PAGER, defaults.timeoutS], [undefined, 'cat', 30]);
  });

  test('2.x tool calling takes every call of a reply, in order; 1.x takes one; a bad call is worded as 2.x words it', () => {
    const toolCalls = (...calls: [string, string][]): PolicyReply => ({
      ...reply('Both.', 'tool_calls'),
      toolCalls: calls.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args })),
    });
    const tools = {
      ...recording({ model: { model_kwargs: { parallel_tool_calls: true } } }),
      meta: { parseFunction: 'tool_calling', scaffoldConfig: { mini_version: '2.4.6', config: { model: { model_kwargs: { parallel_tool_calls: true } } } } },
    };
    const mini2 = miniSweAgentFamily.create('2.x', tools);
    assert.equal(mini2.parallelToolCalls, true);
    const two = mini2.parseReply(toolCalls(['bash', '{"command": "ls"}'], ['bash', '{"command": "pwd"}']));
    assert.deepEqual(
      two.calls?.map((c) => [c.toolCallId, c.args.command]),
      [
        ['c0', 'ls'],
        ['c1', 'pwd'],
      ],
    );
    assert.equal(two.action.args.command, 'ls');
    assert.equal(mini2.parseReply(toolCalls(['bash', '{"command": "ls"}'])).calls, undefined, 'one call is a plain step');
    assert.equal(mini2.parseReply(toolCalls(['str_replace', '{}'])).formatError, "Unknown tool 'str_replace'.Missing 'command' argument in bash tool call.");
    assert.equal(mini2.parseReply(reply('no call')).formatError, 'No tool calls found in the response. Every response MUST include at least one tool call.');
    const mini1 = miniSweAgentFamily.create('1.x', { ...tools, meta: { parseFunction: 'tool_calling' } });
    assert.equal(
      mini1.parseReply(toolCalls(['bash', '{"command": "ls"}'], ['bash', '{"command": "pwd"}'])).formatError,
      'expected exactly one tool call, found 2',
    );
  });

  test("each command goes to the recording's interpreter (2.x), else bash -lc; a malformed one is refused by name", () => {
    assert.deepEqual(miniSettings('2.x', recording({ environment: { interpreter: ['bash', '-c'] } })).interpreter, ['bash', '-c']);
    assert.deepEqual(miniSettings('2.x').interpreter, ['bash', '-lc']);
    assert.deepEqual(miniSettings('1.x').interpreter, ['bash', '-lc']);
    assert.throws(
      () => miniSettings('2.x', recording({ environment: { interpreter: 'bash -c' } })),
      /info\.config\.environment\.interpreter: expected a non-empty list of strings/,
    );
  });

  test('the submission is what follows the marker line', () => {
    assert.equal(submissionOf('COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a/x b/x\n'), 'diff --git a/x b/x\n');
    assert.equal(submissionOf('\n  MINI_SWE_AGENT_FINAL_OUTPUT  \n'), '');
    assert.equal(submissionOf('ok\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n'), undefined);
  });
});
