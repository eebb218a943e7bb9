import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PolicyReply } from '../../../extension/core/policy/policyClient';
import { createMiniSweAgent, miniSettings, submissionOf } from '../../../extension/core/scaffolds/mini-swe-agent';
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
    const mini = createMiniSweAgent('2.x');
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
    const parsed = createMiniSweAgent('1.x').parseReply(reply('```bash\nls\n```\n```bash\npwd\n```'));
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
    assert.equal(createMiniSweAgent('2.x', own).parseReply(reply('Go.\n<cmd>ls</cmd>')).action.raw, 'ls');
    assert.deepEqual([settings.cwd, settings.env, settings.timeoutS], ['/testbed', { A: '1' }, 60]);
    const defaults = miniSettings('1.x');
    assert.deepEqual([defaults.cwd, defaults.env.PAGER, defaults.timeoutS], [undefined, 'cat', 30]);
  });

  test('the submission is what follows the marker line', () => {
    assert.equal(submissionOf('COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\ndiff --git a/x b/x\n'), 'diff --git a/x b/x\n');
    assert.equal(submissionOf('\n  MINI_SWE_AGENT_FINAL_OUTPUT  \n'), '');
    assert.equal(submissionOf('ok\nCOMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n'), undefined);
  });
});
