import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeForeignJson, detectFormat } from '../../../extension/core/trajectory/detectFormat';

describe('detectFormat', () => {
  const cases: Array<[string, unknown, string | undefined]> = [
    ['a SWE-agent trajectory', { trajectory: [], history: [], info: {} }, 'swe-agent'],
    ['a history-only SWE-agent demo', { history: [{ role: 'system', content: 'x', message_type: 'system_prompt' }] }, 'swe-agent'],
    ['a retry agent with attempts only', { attempts: [{ trajectory: [] }] }, 'swe-agent'],
    ['mini-swe-agent by trajectory_format', { trajectory_format: 'mini-swe-agent-1', messages: [] }, 'mini-swe-agent'],
    ['mini-swe-agent by info', { info: { mini_version: '1.0.0' }, messages: [{ role: 'user', content: 'x' }] }, 'mini-swe-agent'],
    ['a bare list with a fenced mswea block', [{ role: 'assistant', content: 'go\n```mswea_bash_command\nls\n```' }], 'mini-swe-agent'],
    [
      'a bare list with tool calls',
      [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] }],
      'openai-messages',
    ],
    ['wrapped chat messages', { messages: [{ role: 'user', content: 'hi' }] }, 'openai-messages'],
    ['OpenHands events', [{ id: 0, source: 'user', action: 'message', args: {} }], 'openhands'],
    ['an OpenHands output.jsonl line', { instance_id: 'x', history: [{ id: 1, source: 'agent', observation: 'run' }] }, 'openhands'],
    ['an R2E-Gym line', { trajectory_steps: [] }, 'r2e-gym'],
    ['an rLLM episode', { id: 't:0', trajectories: [{ steps: [] }] }, 'rllm'],
    ['an rLLM trajectory', { uid: 'u', steps: [], reward: 0 }, 'rllm'],
    ['a SkyRL result', { trajectory_id: 3, messages: [], finish_reason: 'FINISH_TOOL' }, 'skyrl'],
    ['canonical JSON', { format: 'swe-agent', task: {}, steps: [], outcome: {}, meta: {} }, 'canonical'],
    ['a number', 42, undefined],
    ['an empty object', {}, undefined],
  ];
  for (const [name, value, format] of cases) test(`${name} -> ${format ?? 'none'}`, () => assert.equal(detectFormat(value), format));
});

describe('describeForeignJson', () => {
  test('names the tools whose files people open by mistake', () => {
    assert.equal(describeForeignJson({ name: 'x', version: '1.0.0', dependencies: {} }), 'an npm package.json');
    assert.equal(
      describeForeignJson({ 'django__django-11099': { patch_is_None: false, resolved: true, tests_status: {} } }),
      'a SWE-bench evaluation report.json (per-instance test results)',
    );
    assert.equal(describeForeignJson([{ instance_id: 'a', model_patch: '' }]), 'a list of predictions (instance_id, model_patch)');
    assert.equal(describeForeignJson({ compilerOptions: {} }), 'a tsconfig.json');
    assert.equal(describeForeignJson({ a: 1, b: 2 }), 'a JSON object with keys a, b');
    assert.equal(describeForeignJson('text'), 'a JSON string');
  });
});
