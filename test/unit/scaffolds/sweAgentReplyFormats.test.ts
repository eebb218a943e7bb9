import '../../helpers/families';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseReply } from '../../../extension/core/scaffolds/swe-agent/replyFormats';
import { splitThoughtAction } from '../../../extension/core/parsing/thoughtAction';
import { buildMessages } from '../../../extension/core/policy/context';
import type { PolicyReply } from '../../../extension/core/policy/policyClient';
import { ToolRegistry } from '../../../extension/core/scaffolds/swe-agent/tools/sweAgentToolSet';
import { windowedTools } from '../../../extension/core/scaffolds/swe-agent/tools/windowedTools';
import { searchTools } from '../../../extension/core/scaffolds/swe-agent/tools/searchTools';
import path from 'node:path';
import type { Step } from '../../../extension/core/trajectory/model';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { anAction, aStep } from '../../builders/trajectory';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

const repoRoot = path.resolve(__dirname, '../../..');
const tools = new ToolRegistry().register(...windowedTools, ...searchTools).toolSet(['windowed', 'search']);

function reply(content: string, toolCalls: PolicyReply['toolCalls'] = []): PolicyReply {
  return { model: 'm', content, toolCalls, finishReason: 'stop', sampling: {}, retries: [] };
}

describe('scaffolds: thought_action', () => {
  test('the last fenced block is the command, the text around it the thought', () => {
    const parsed = parseReply(reply('Let me look at the ledger.\n\n```\nopen "ledger/core.py" 40\n```\nThen I will decide.'), 'thought_action', tools);
    assert.equal(parsed.formatError, undefined);
    assert.equal(parsed.action.raw, 'open "ledger/core.py" 40');
    assert.equal(parsed.action.tool, 'open');
    assert.deepEqual(parsed.action.args, { path: 'ledger/core.py', line_number: 40 });
    assert.equal(parsed.thought, 'Let me look at the ledger.\n\nThen I will decide.');
  });

  test('a shell command in the block is a bash action', () => {
    const parsed = parseReply(reply('Run the tests.\n```bash\npython -m pytest -q && echo done\n```'), 'thought_action', tools);
    assert.equal(parsed.action.tool, 'bash');
    assert.deepEqual(parsed.action.args, { command: 'python -m pytest -q && echo done' });
  });

  test('a nested fence stays inside its outer block', () => {
    const split = splitThoughtAction('x\n```\necho "```"\n```\n');
    assert.equal(split?.action, 'echo "```"');
  });

  test("no block: a format error with SWE-agent's message, not an exception", () => {
    const parsed = parseReply(reply('I think the bug is in add().'), 'thought_action', tools);
    assert.equal(parsed.formatError, 'no command in a ``` block');
    assert.match(parsed.errorMessage ?? '', /^Your output was not formatted correctly\. You must always include one discussion and one command/);
    assert.equal(parsed.action.tool, null);
  });
});

describe('scaffolds: function_calling', () => {
  test('one tool call with valid arguments', () => {
    const parsed = parseReply(reply('Opening it.', [{ id: 'call_1', name: 'goto', arguments: '{"line_number": 12}' }]), 'function_calling', tools);
    assert.equal(parsed.formatError, undefined);
    assert.deepEqual(
      [parsed.action.tool, parsed.action.args, parsed.action.toolCallId, parsed.thought],
      ['goto', { line_number: 12 }, 'call_1', 'Opening it.'],
    );
  });

  test('invalid JSON arguments: a format error keeping the raw text', () => {
    const parsed = parseReply(reply('', [{ id: 'c', name: 'goto', arguments: '{"line_number": 1' }]), 'function_calling', tools);
    assert.equal(parsed.formatError, 'Tool call arguments are not valid JSON.');
    assert.equal(parsed.errorMessage, 'Your action could not be parsed properly: Tool call arguments are not valid JSON..');
    assert.equal(parsed.action.raw, '{"line_number": 1');
  });

  test('no call, or two calls where one is allowed', () => {
    assert.match(parseReply(reply('done?'), 'function_calling', tools).errorMessage ?? '', /^Your last output did not use any tool calls!/);
    const two = parseReply(
      reply('', [
        { id: 'a', name: 'goto', arguments: '{"line_number": 1}' },
        { id: 'b', name: 'scroll_down', arguments: '{}' },
      ]),
      'function_calling',
      tools,
    );
    assert.equal(two.formatError, '2 tool calls where one is allowed');
    assert.match(two.errorMessage ?? '', /^Your last output included multiple tool calls!/);
  });
});

describe('scaffolds: xml_function_calling', () => {
  thirdPartyFiles.test('one call in the text; the words before it are the thought', () => {
    const parsed = parseReply(
      reply('Find the file.\n<function=find_file>\n<parameter=file_name>core.py</parameter>\n</function>'),
      'xml_function_calling',
      tools,
    );
    assert.equal(parsed.thought, 'Find the file.');
    assert.equal(parsed.action.tool, 'find_file');
    assert.deepEqual(parsed.action.args, { file_name: 'core.py' });
  });

  test('an unknown function is a format error', () => {
    const parsed = parseReply(reply('<function=teleport>\n</function>'), 'xml_function_calling', tools);
    assert.match(parsed.formatError ?? '', /Command 'teleport' not found/);
  });
});

function step(index: number, observation: string, extra: Partial<Step> = {}): Step {
  return aStep({
    index,
    thought: `thought ${index}`,
    action: anAction({ raw: `goto ${index + 1}`, tool: 'goto', args: { line_number: index + 1 } }),
    observation,
    ...extra,
  });
}

describe('context of a recording made by SWE-agent with function calling', () => {
  thirdPartyFiles.test('continuing it sends each recorded call with its id, tool and arguments, answered by its observation', async () => {
    const file = thirdPartyFiles.path('swe-agent/marshmallow-1867.function_calling.traj');
    const { trajectory } = await loadTrajectory(file);
    const messages = buildMessages(trajectory.steps.slice(0, 3), { replyFormat: 'function_calling', systemPrompt: 's', instructions: 'i' });
    assert.equal(messages.length, 2 + 3 * 2);
    assert.deepEqual(messages[2], {
      role: 'assistant',
      content: trajectory.steps[0]!.thought,
      tool_calls: [{ id: 'call_cyI71DYnRdoLHWwtZgIaW2wr', type: 'function', function: { name: 'create', arguments: '{"filename":"reproduce.py"}' } }],
    });
    assert.deepEqual(messages[3], {
      role: 'tool',
      tool_call_id: 'call_cyI71DYnRdoLHWwtZgIaW2wr',
      content: `OBSERVATION:\n${trajectory.steps[0]!.observation}`,
    });
    const bash = messages[6] as { tool_calls: Array<{ function: { name: string; arguments: string } }> };
    assert.deepEqual(bash.tool_calls[0]!.function, { name: 'bash', arguments: '{"command":"python reproduce.py"}' });
  });
});

describe('context', () => {
  const base = { systemPrompt: 'You are an engineer.', instructions: 'Fix the ledger.' };

  test('full history by default: system, task, then each action and its observation', () => {
    const messages = buildMessages([step(0, 'a\nb'), step(1, 'c')], { ...base, replyFormat: 'thought_action' });
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.equal(messages[2]!.content, 'thought 0\n\n```\ngoto 1\n```\n');
    assert.equal(messages[3]!.content, 'OBSERVATION:\na\nb');
  });

  test('the observation window folds older observations as SWE-agent words it', () => {
    const messages = buildMessages([step(0, 'one\ntwo\nthree'), step(1, 'x'), step(2, 'y')], { ...base, replyFormat: 'thought_action', observationWindow: 2 });
    assert.equal(messages[3]!.content, 'OBSERVATION:\nOld environment output: (3 lines omitted)');
    assert.equal(messages[5]!.content, 'OBSERVATION:\nx');
  });

  test('function calling: tool calls answered by tool messages with the same id; format errors as user text', () => {
    const ok = step(0, 'window', { action: { raw: '{"line_number": 3}', tool: 'goto', args: { line_number: 3 }, toolCallId: 'call_9' } });
    const bad = step(1, 'Your last output did not use any tool calls!', {
      action: { raw: '', tool: null, args: {} },
      formatError: 'no tool call in the reply',
    });
    const messages = buildMessages([ok, bad], { ...base, replyFormat: 'function_calling' });
    assert.deepEqual(messages[2], {
      role: 'assistant',
      content: 'thought 0',
      tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'goto', arguments: '{"line_number": 3}' } }],
    });
    assert.deepEqual(messages[3], { role: 'tool', tool_call_id: 'call_9', content: 'OBSERVATION:\nwindow' });
    assert.deepEqual(messages[5], { role: 'user', content: 'Your last output did not use any tool calls!' });
  });
});
