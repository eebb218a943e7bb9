import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { exportFormats, exportTrajectory, type ExportFormat } from '../../../extension/core/trajectory/exporters';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Action, Step, Trajectory } from '../../../extension/core/trajectory/model';
import { defined } from '../../../extension/core/defined';
import { aBashAction, aStep, aTrajectory } from '../../builders/trajectory';
import { sampleTrajectory, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

type Json = Record<string, any>;

const HARBOR_ATIF = [
  'terminus_2/hello-world-context-summarization.trajectory.json',
  'terminus_2/hello-world-context-summarization.trajectory.summarization-1-summary.json',
  'terminus_2/hello-world-context-summarization.trajectory.summarization-1-questions.json',
  'terminus_2/hello-world-context-summarization.trajectory.summarization-1-answers.json',
  'terminus_2/hello-world-context-summarization-linear-history.trajectory.json',
  'terminus_2/hello-world-context-summarization-linear-history.trajectory.cont-1.json',
  'openhands/hello-world.trajectory.json',
].map((f) => `harbor/golden/${f}`);

/** Our other recordings: the project's samples and the third-party files of the other formats. */
const SAMPLES = [
  'mini-swe-agent-1.1.tool-calls.traj.json',
  'openai-messages.parallel-calls.json',
  'openhands.output.jsonl',
  'r2e-gym.deepswe.jsonl',
  'rllm.episode.json',
  'skyrl.result.json',
  'swe-agent.retry-attempts.traj',
];
const THIRD_PARTY = [
  'swe-agent/function_calling_simple.traj',
  'swe-agent/marshmallow-1867.function_calling.traj',
  'swe-agent/marshmallow-1867.windowed.traj',
  'swe-agent/sweagenttestrepo-1c2844.traj',
  'mini-swe-agent/github_issue.traj.json',
  'mini-swe-agent/local.traj.json',
  'openhands/basic.json',
  'openhands/basic_interactions.json',
  'openhands/wrong_initial_state.json',
];

const parseExport = (text: string): unknown => JSON.parse(text.trim());

/** Every call a trajectory made, in order, each with the result it got. */
function callsOf(t: Trajectory): Array<{ action: Action; observation: string }> {
  return t.steps.flatMap((s) => s.calls ?? (s.action.tool === null ? [] : [{ action: s.action, observation: s.observation }]));
}

/** Observations of steps that made no call (a reply the agent sent without one), in order. */
const callFreeObservations = (t: Trajectory) => t.steps.filter((s) => s.action.tool === null && !s.calls && s.observation !== '').map((s) => s.observation);

/** R2E-Gym names these tools its own way (`r2eGymExport.ts`); OpenHands runs a shell command as `run`. */
const RENAMED: Partial<Record<ExportFormat, Record<string, string>>> = {
  'r2e-gym': { str_replace_editor: 'file_editor', bash: 'execute_bash', submit: 'finish' },
  openhands: { bash: 'run', submit: 'finish' },
};

const valueTexts = (args: Record<string, unknown>) => Object.values(args).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)).trim());

/**
 * The calls of `back` are those of `original`. Exactly so where the format holds a call as JSON;
 * R2E-Gym's XML holds each argument as text its parser strips, and OpenHands names some
 * arguments its own way (finish's `message` is `final_thought`): there every argument's value
 * is still there, under the format's name for the tool.
 */
function assertSameCalls(original: Trajectory, back: Trajectory, via: ExportFormat): void {
  const [a, b] = [callsOf(original), callsOf(back)];
  assert.equal(b.length, a.length, `${via}: as many calls`);
  a.forEach((call, k) => {
    const got = b[k]!;
    assert.equal(got.observation, call.observation, `${via}: call ${k + 1}'s result`);
    const renamed = RENAMED[via];
    if (!renamed) {
      assert.deepEqual([got.action.tool, got.action.args], [call.action.tool, call.action.args], `${via}: call ${k + 1}`);
      return;
    }
    assert.equal(got.action.tool, renamed[call.action.tool!] ?? call.action.tool, `${via}: call ${k + 1}'s tool`);
    const kept = valueTexts(got.action.args);
    for (const v of valueTexts(call.action.args)) assert.ok(kept.includes(v), `${via}: call ${k + 1} keeps the argument ${v}`);
  });
  assert.deepEqual(callFreeObservations(back), callFreeObservations(original), `${via}: what followed replies without a call`);
}

function atifOf(t: Trajectory): Json {
  return JSON.parse(exportTrajectory(t, 'atif'));
}

describe('ATIF files converted to every format we write and back', () => {
  for (const file of HARBOR_ATIF) {
    thirdPartyFiles.test(`${file.split('/').pop()} keeps every call and observation through ${exportFormats().join(', ')}`, async () => {
      const { trajectory: t } = await loadTrajectory(thirdParty(file));
      for (const via of exportFormats()) {
        const middle = importTrajectory(parseExport(exportTrajectory(t, via)), { file: `as ${via}` });
        const back = importTrajectory(atifOf(middle), { file: `back from ${via}` });
        assert.equal(back.format, 'atif');
        assertSameCalls(t, back, via);
      }
    });
  }

  thirdPartyFiles.test('ATIF to ATIF keeps the steps themselves: sources, copied context, metrics and token ids', async () => {
    for (const file of HARBOR_ATIF) {
      const { trajectory: t } = await loadTrajectory(thirdParty(file));
      const back = importTrajectory(atifOf(t), { file: 'back' });
      const strip = ({ source: _, ...s }: Step) => s;
      // A call read from the reply's text (Terminus-2's raw JSON) had no id: written as a tool call, it gets one.
      const invented = ({ action, calls, ...s }: Step, k: number) => {
        const was = t.steps[k]!;
        const idOf = (a: Step['action'], had: Step['action'] | undefined) => (had?.toolCallId === undefined ? { ...a, toolCallId: undefined } : a);
        return defined({ ...s, action: idOf(action, was.action), calls: calls?.map((c, j) => ({ ...c, action: idOf(c.action, was.calls?.[j]?.action) })) });
      };
      assert.deepEqual(back.steps.map(strip).map(invented), t.steps.map(strip).map(invented), file);
      assert.deepEqual(
        [back.meta.systemPrompt, back.meta.instructions, back.meta.scaffold, back.meta.model],
        [t.meta.systemPrompt, t.meta.instructions, t.meta.scaffold, t.meta.model],
      );
      assert.deepEqual(back.outcome, t.outcome);
    }
  });
});

describe('what convert --to atif writes', () => {
  const run = (): Trajectory =>
    aTrajectory({
      format: 'swe-agent',
      task: { instanceId: 'ledger__allocate-1', repo: 'ledger', problemStatement: 'Money.allocate must keep every cent.' },
      steps: [
        aStep({
          index: 0,
          thought: 'Find the method.',
          action: { ...aBashAction('grep -n allocate money.py'), toolCallId: 'call_a' },
          observation: '75:    def allocate(self, ratios):',
          exitCode: 0,
          timestamp: '2026-01-02T03:04:05.000Z',
          tokens: { prompt: 120, completion: 14, total: 134, costUsd: 0.001 },
          tokenIds: { prompt: [1, 2], completion: [7, 8] },
          logprobs: [
            { token: 'gre', logprob: -0.1 },
            { token: 'p', logprob: -0.2 },
          ],
        }),
        aStep({
          index: 1,
          thought: 'I will look around',
          action: { raw: 'I will look around', tool: null, args: {} },
          observation: 'Please always provide EXACTLY ONE action',
          formatError: 'expected exactly one bash code block, found 0',
          timestamp: 'Tue, 02 Jan 2026 03:05:00 GMT',
        }),
        aStep({ index: 2, thought: 'Done.', action: { raw: 'submit', tool: 'submit', args: {} }, observation: '', tokens: { prompt: 1.5 } }),
      ],
      outcome: {
        exitStatus: 'submitted',
        submission: 'diff --git a/x b/x\n',
        reward: 1,
        modelStats: { instanceCost: 0.02, tokensSent: 300, tokensReceived: 40 },
      },
      meta: { formatVersion: '1.0.1', model: 'test-policy', systemPrompt: 'You are careful.', instructions: 'Fix allocate.', id: 'demo-run' },
    });

  test('the system prompt and task first, then an agent step a step; calls named by their results', () => {
    const out = atifOf(run());
    assert.equal(out.schema_version, 'ATIF-v1.7');
    assert.equal(out.session_id, 'demo-run');
    assert.deepEqual(out.agent, { name: 'swe-agent', version: '1.0.1', model_name: 'test-policy' });
    assert.deepEqual(
      out.steps.map((s: Json) => [s.step_id, s.source]),
      [
        [1, 'system'],
        [2, 'user'],
        [3, 'agent'],
        [4, 'agent'],
        [5, 'agent'],
      ],
    );
    const grep = out.steps[2];
    assert.deepEqual(grep.tool_calls, [{ tool_call_id: 'call_a', function_name: 'bash', arguments: { command: 'grep -n allocate money.py' } }]);
    assert.deepEqual(grep.observation, { results: [{ source_call_id: 'call_a', content: '75:    def allocate(self, ratios):' }] });
    assert.deepEqual(grep.metrics, {
      prompt_tokens: 120,
      completion_tokens: 14,
      cost_usd: 0.001,
      prompt_token_ids: [1, 2],
      completion_token_ids: [7, 8],
      logprobs: [-0.1, -0.2],
      extra: { total_tokens: 134 },
    });
    assert.deepEqual(grep.extra, { exit_code: 0 });
    assert.equal(out.steps[4].tool_calls[0].tool_call_id, 'call_3_1', 'a call without an id gets one its result could name');
    assert.deepEqual(out.final_metrics, { total_prompt_tokens: 300, total_completion_tokens: 40, total_cost_usd: 0.02 });
  });

  test('a reply with no call is a message with what answered it; its format error rides in extra', () => {
    const step = atifOf(run()).steps[3];
    assert.equal(step.tool_calls, undefined);
    assert.equal(step.message, 'I will look around');
    assert.deepEqual(step.observation, { results: [{ content: 'Please always provide EXACTLY ONE action' }] });
    assert.deepEqual(step.extra, { format_error: 'expected exactly one bash code block, found 0' });
  });

  test('a time that is not ISO 8601 is written as one; a token count that is not an integer is left out', () => {
    const out = atifOf(run());
    assert.equal(out.steps[2].timestamp, '2026-01-02T03:04:05.000Z');
    assert.equal(out.steps[3].timestamp, '2026-01-02T03:05:00.000Z');
    assert.equal(out.steps[4].metrics, undefined);
  });

  test('read back, the task, outcome, exit codes and format errors are what they were', () => {
    const t = run();
    const back = importTrajectory(atifOf(t), { file: 'x' });
    assert.deepEqual(back.task, t.task);
    assert.deepEqual(back.outcome, t.outcome);
    assert.deepEqual(
      back.steps.map((s) => [s.exitCode, s.formatError, s.observation, s.thought]),
      t.steps.map((s) => [s.exitCode, s.formatError, s.observation, s.thought]),
    );
    assert.deepEqual(back.steps[0]!.tokenIds, t.steps[0]!.tokenIds);
  });

  test('several calls in one reply stay one step, each result naming its call', async () => {
    const { trajectory: t } = await loadTrajectory(sampleTrajectory('openai-messages.parallel-calls.json'));
    const parallel = t.steps.find((s) => s.calls)!;
    const out = atifOf(t);
    const step = out.steps.find((s: Json) => s.tool_calls?.length > 1);
    assert.deepEqual(
      step.tool_calls.map((c: Json) => c.tool_call_id),
      parallel.calls!.map((c) => c.action.toolCallId),
    );
    assert.deepEqual(
      step.observation.results.map((r: Json) => [r.source_call_id, r.content]),
      parallel.calls!.filter((c) => c.observation !== '').map((c) => [c.action.toolCallId, c.observation]),
    );
  });

  test('a run with no steps and no prompt is still one step long, as ATIF requires', () => {
    const out = atifOf(aTrajectory({ task: {}, steps: [], meta: {} }));
    assert.deepEqual(out.steps, [{ step_id: 1, source: 'user', message: '' }]);
    importTrajectory(out, { file: 'x' });
  });
});

// Harbor's and NVIDIA's v1.7 validators read what is written here in test/conformance/atifValidator.test.ts.
describe('every format we read, written as ATIF, keeps its calls', () => {
  async function writes(file: string): Promise<void> {
    const { trajectory: t } = await loadTrajectory(file);
    const text = exportTrajectory(t, 'atif');
    // Read with the format named, so a rule it broke could not pass as another format.
    const back = importTrajectory(JSON.parse(text), { file, format: 'atif' });
    // OpenHands records a reply that called nothing as a `message` action: ATIF says it as the step's message.
    const calls = callsOf(t).filter((c) => !(t.format === 'openhands' && c.action.tool === 'message'));
    assert.deepEqual(
      callsOf(back).map((c) => [c.action.tool, c.action.args, c.observation]),
      calls.map((c) => [c.action.tool, c.action.args, c.observation]),
    );
    assert.equal(back.steps.length, t.steps.length);
  }

  for (const file of SAMPLES) test(file, () => writes(sampleTrajectory(file)));
  for (const file of THIRD_PARTY) thirdPartyFiles.test(file, () => writes(thirdParty(file)));
});
