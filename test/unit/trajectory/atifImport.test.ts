import '../../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import { detectFormat } from '../../../extension/core/trajectory/detectFormat';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { agentSteps } from '../../../extension/core/trajectory/copiedContext';
import { needsShared } from '../../helpers/sharedFolder';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** Every ATIF file among Harbor's test recordings. */
const HARBOR_ATIF = [
  'harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json',
  'harbor/golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-summary.json',
  'harbor/golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-questions.json',
  'harbor/golden/terminus_2/hello-world-context-summarization.trajectory.summarization-1-answers.json',
  'harbor/golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.json',
  'harbor/golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.cont-1.json',
  'harbor/golden/openhands/hello-world.trajectory.json',
];

type Json = Record<string, any>;
const readJson = (file: string): Json => JSON.parse(readFileSync(file, 'utf8'));
const isMessageStep = (s: Step) => s.flags?.includes('atif-system') || s.flags?.includes('atif-user');
const callsOf = (s: Step) => s.calls ?? (s.action.tool === null ? [] : [{ action: s.action, observation: s.observation }]);

/**
 * The calls of an agent step as Harbor recorded them: its tool_calls, or, where it kept the
 * model's raw Terminus-2 JSON reply as the message (raw-content mode), the commands that reply
 * holds and the completion it asks for, as Harbor's function-calling files write them.
 */
function recordedCalls(src: Json): Array<[string, unknown, string | undefined]> {
  if (src.tool_calls) return src.tool_calls.map((c: Json) => [c.function_name, c.arguments, c.tool_call_id]);
  let reply: Json;
  try {
    reply = JSON.parse(src.message);
  } catch {
    return [];
  }
  return [
    ...reply.commands.map((c: Json) => ['bash_command', { keystrokes: c.keystrokes, duration: c.duration }, undefined]),
    ...(reply.task_complete ? [['mark_task_complete', {}, undefined]] : []),
  ];
}

describe('ATIF files Harbor wrote', () => {
  for (const file of HARBOR_ATIF) {
    thirdPartyFiles.test(`${file.split('/').pop()} opens with every agent step, its calls and their results`, async () => {
      const raw = readJson(thirdParty(file));
      const { format, trajectory: t } = await loadTrajectory(thirdParty(file), { alone: true });
      assert.equal(format, 'atif');
      assert.equal(t.meta.formatVersion, raw.schema_version);
      assert.equal(t.meta.scaffold, `${raw.agent.name}@${raw.agent.version}`);
      const agentSteps = raw.steps.filter((s: Json) => s.source === 'agent');
      const ours = t.steps.filter((s) => !isMessageStep(s));
      assert.equal(ours.length, agentSteps.length);
      ours.forEach((step, k) => {
        const src = agentSteps[k];
        assert.equal(step.source?.pointers[0], `/steps/${raw.steps.indexOf(src)}`);
        assert.deepEqual(
          callsOf(step).map((c) => [c.action.tool, c.action.args, c.action.toolCallId]),
          recordedCalls(src),
        );
        const results = (src.observation?.results ?? []).filter((r: Json) => typeof r.content === 'string').map((r: Json) => r.content);
        assert.equal(step.observation, results.join('\n'));
        assert.equal(step.tokens?.prompt, src.metrics?.prompt_tokens);
        assert.equal(step.tokens?.costUsd, src.metrics?.cost_usd);
      });
    });
  }

  thirdPartyFiles.test("Terminus-2's run: keystroke calls, token ids and logprobs, the summarisation handed to a subagent", async () => {
    const file = thirdParty('harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json');
    const { trajectory: t } = await loadTrajectory(file);
    assert.deepEqual([t.meta.formatVersion, t.meta.scaffold, t.meta.model], ['ATIF-v1.6', 'terminus-2@2.0.0', 'openai/gpt-4o']);
    assert.deepEqual(t.meta.scaffoldConfig, { parser: 'json', temperature: 0.7 });
    assert.match(t.meta.instructions ?? '', /^You are an AI assistant tasked with solving command-line tasks/);
    assert.equal(t.meta.systemPrompt, undefined, 'Terminus-2 writes no system step');
    const first = t.steps[0]!;
    assert.deepEqual(first.action, {
      raw: JSON.stringify({ keystrokes: 'mkdir test_dir\n', duration: 0.1 }),
      tool: 'bash_command',
      args: { keystrokes: 'mkdir test_dir\n', duration: 0.1 },
      toolCallId: 'call_0_1',
    });
    assert.equal(first.observation, 'New Terminal Output:\n\nroot@CONTAINER_ID:/app# mkdir test_dir\n\n');
    assert.deepEqual(first.tokens, { prompt: 682, completion: 60, costUsd: 0.002305 });
    assert.equal(first.tokenIds?.completion?.length, 60);
    assert.equal(first.logprobs?.length, 60);
    assert.equal(first.logprobs![0]!.token, String(first.tokenIds!.completion![0]), 'a logprob without token text names its token id');
    const handoff = t.steps[3]!;
    assert.deepEqual(handoff.flags, ['atif-system']);
    assert.deepEqual(handoff.action, { raw: '', tool: null, args: {} });
    assert.match(handoff.thought, /summariz/i);
    assert.match(
      handoff.observation,
      /^\[subagent trajectory: trajectory\.summarization-1-summary\.json, session test-session-context-summarization-summarization-1-summary\]/,
    );
    assert.deepEqual(t.steps[4]!.flags, ['atif-user'], 'the question handed back after the summary is a step of its own');
    assert.deepEqual(
      t.steps.slice(7).map((s) => s.action.tool),
      ['mark_task_complete', 'mark_task_complete'],
    );
    assert.match(t.steps[7]!.observation, /Are you sure you want to mark the task as complete\?/);
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.029804999999999998, tokensSent: 7802, tokensReceived: 1030 });
  });

  thirdPartyFiles.test("a reply kept as Terminus-2's raw JSON reads as the calls Harbor's function-calling file of the same run records", async () => {
    const golden = (name: string) => thirdParty(`harbor/golden/terminus_2/hello-world-context-summarization${name}.json`);
    const { trajectory: raw } = await loadTrajectory(golden('-linear-history.trajectory'), { alone: true });
    const { trajectory: cont } = await loadTrajectory(golden('-linear-history.trajectory.cont-1'), { alone: true });
    const { trajectory: calls } = await loadTrajectory(golden('.trajectory'), { alone: true });
    const actions = (t: typeof raw) => agentSteps(t.steps).map((s) => callsOf(s).map((c) => [c.action.tool, c.action.args]));
    assert.deepEqual([...actions(raw), ...actions(cont)], actions(calls));
    assert.equal(raw.meta.parseFunction, 'terminus_json');
    const first = raw.steps[0]!;
    assert.equal(first.thought, 'Analysis: Terminal is ready. Let me create a test directory first.\nPlan: Create test_dir to set up some context.');
    assert.match(first.observation, /root@CONTAINER_ID:\/app# mkdir test_dir/);
    assert.equal(first.formatError, undefined);
    // The questions a summarising subagent asked, copied in, were not written as a Terminus-2 reply: no action, and no format error.
    const questions = cont.steps[2]!;
    assert.deepEqual([questions.action.tool, questions.formatError, questions.flags], [null, undefined, ['atif-copied-context']]);
  });

  thirdPartyFiles.test('steps copied from an earlier trajectory are marked as such', async () => {
    const { trajectory: t } = await loadTrajectory(
      thirdParty('harbor/golden/terminus_2/hello-world-context-summarization-linear-history.trajectory.cont-1.json'),
    );
    assert.deepEqual(
      t.steps.map((s) => s.flags ?? []),
      [
        ['atif-user', 'atif-copied-context'],
        ['atif-user', 'atif-copied-context'],
        ['atif-copied-context'],
        ['atif-user', 'atif-copied-context'],
        [],
        [],
        [],
        [],
      ],
    );
  });

  thirdPartyFiles.test("OpenHands' run: system prompt, task and context before the agent's turns, a call paired by source_call_id", async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('harbor/golden/openhands/hello-world.trajectory.json'));
    assert.equal(t.meta.formatVersion, 'ATIF-v1.5');
    assert.match(t.meta.systemPrompt ?? '', /^You are OpenHands agent/);
    assert.match(t.meta.instructions ?? '', /hello\.txt/);
    // The two system messages OpenHands adds before its first turn are context, not steps: two agent steps, as the run made two calls.
    assert.deepEqual(
      t.meta.context?.map((c) => [c.source, c.text.split(':', 1)[0]]),
      [
        ['system', 'Retrieving content for'],
        ['system', 'Added workspace context'],
      ],
    );
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['str_replace_editor', 'finish'],
    );
    assert.equal(t.steps[0]!.action.toolCallId, 'call_fake_1');
    assert.equal(t.steps[0]!.observation, 'File created successfully at: /app/hello.txt');
    assert.equal(t.steps[1]!.observation, '');
  });
});

const harborOracle = needsShared('oracles/harbor');

describe("the RFC's own example", () => {
  harborOracle.test('two parallel calls each get their own result; token ids and logprobs on the final answer', () => {
    const rfc = readFileSync(harborOracle.path('docs/rfcs/0001-trajectory-format.md'), 'utf8');
    const example = /## \*\*IV\. Example ATIF Trajectory Log[\s\S]*?```json\n([\s\S]*?)\n```/.exec(rfc)![1]!;
    const t = importTrajectory(JSON.parse(example), { file: 'rfc.json' });
    assert.equal(t.meta.formatVersion, 'ATIF-v1.5');
    assert.equal(t.meta.instructions, 'What is the current trading price of Alphabet (GOOGL)?');
    assert.equal(t.steps.length, 2);
    const [search, answer] = t.steps as [Step, Step];
    assert.deepEqual(
      search.calls?.map((c) => [c.action.toolCallId, c.action.args.metric, c.observation]),
      [
        ['call_price_1', 'price', 'GOOGL is currently trading at $185.35 (Close: 10/11/2025)'],
        ['call_volume_2', 'volume', 'GOOGL volume: 1.5M shares traded.'],
      ],
    );
    assert.equal(search.action.toolCallId, 'call_price_1');
    assert.equal(search.observation, 'GOOGL is currently trading at $185.35 (Close: 10/11/2025)\nGOOGL volume: 1.5M shares traded.');
    assert.match(search.reasoning ?? '', /two data points/);
    assert.deepEqual(search.sampling, { reasoning_effort: 'medium' });
    assert.deepEqual(answer.action, { raw: '', tool: null, args: {} });
    assert.equal(answer.logprobs?.length, 44);
    assert.equal(answer.tokenIds?.completion?.length, 37);
    assert.equal(answer.logprobs![40]!.token, '', 'a logprob past the recorded ids has no token to name');
    assert.deepEqual(t.outcome.modelStats, { instanceCost: 0.00078, tokensSent: 1120, tokensReceived: 124 });
  });
});

/** A small valid ATIF v1.6 trajectory, each rule's test breaking one thing in it. */
function valid(): Json {
  return {
    schema_version: 'ATIF-v1.6',
    session_id: 's-1',
    agent: { name: 'probe', version: '1.0', model_name: 'm' },
    steps: [
      { step_id: 1, source: 'user', message: 'Fix the bug.' },
      {
        step_id: 2,
        timestamp: '2025-10-11T10:30:02Z',
        source: 'agent',
        message: 'Looking.',
        tool_calls: [{ tool_call_id: 'c1', function_name: 'bash', arguments: { command: 'ls' } }],
        observation: { results: [{ source_call_id: 'c1', content: 'a.py' }] },
        metrics: { prompt_tokens: 10, completion_tokens: 2 },
      },
    ],
  };
}

function refusal(value: Json): InputError {
  try {
    importTrajectory(value, { file: 'run.json' });
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    return err;
  }
  assert.fail('expected the file to be refused');
}

function refused(change: (t: Json) => void, where: string, problem: RegExp): void {
  const t = valid();
  change(t);
  const err = refusal(t);
  assert.equal(err.where, where, err.message);
  assert.match(err.problem, problem);
  assert.ok(err.message.startsWith(`run.json: ${where}: `));
}

describe("ATIF's rules, each named with the JSON path that breaks it", () => {
  test('a valid file opens, and is detected as ATIF rather than refused as closest to rllm', () => {
    assert.equal(detectFormat(valid()), 'atif');
    const t = importTrajectory(valid(), { file: 'run.json' });
    assert.equal(t.format, 'atif');
    assert.equal(t.steps[0]!.observation, 'a.py');
  });

  test('schema_version is ATIF-v1.0 to ATIF-v1.7 (a newer v1 too, atifVersions.test.ts); left out, it is v1.7 as Harbor assumes', () => {
    refused((t) => (t.schema_version = 'ATIF-v2.0'), '$.schema_version', /ATIF-v2\.0 is a newer major version of ATIF/);
    for (const v of ['ATIF-v1.0', 'ATIF-v1.3', 'ATIF-v1.7'])
      assert.equal(importTrajectory({ ...valid(), schema_version: v }, { file: 'x' }).meta.formatVersion, v);
    const { schema_version: _, ...unversioned } = valid();
    assert.equal(detectFormat(unversioned), 'atif');
    assert.equal(importTrajectory(unversioned, { file: 'x' }).meta.formatVersion, 'ATIF-v1.7');
  });

  test("session_id may be left out, as Harbor's v1.7 models allow (convert refuses to write v1.6 or earlier without one)", () => {
    const { session_id: _, ...anonymous } = valid();
    assert.equal(importTrajectory({ ...anonymous, trajectory_id: 't-1' }, { file: 'x' }).meta.id, 't-1');
  });

  test('the agent names itself and its version', () => {
    refused((t) => delete t.agent.version, '$.agent.version', /expected a string, got undefined/);
  });

  test('there is at least one step', () => {
    refused((t) => (t.steps = []), '$.steps', /at least one step/);
  });

  test('step ids are sequential from 1', () => {
    refused((t) => (t.steps[1].step_id = 3), '$.steps[1].step_id', /expected 2 \(step ids are sequential from 1\), got 3/);
    refused((t) => (t.steps[0].step_id = 0), '$.steps[0].step_id', /count from 1/);
  });

  test('a step comes from the system, the user or the agent', () => {
    refused((t) => (t.steps[0].source = 'tool'), '$.steps[0].source', /expected one of "system", "user", "agent", got "tool"/);
  });

  test('every step has a message (an empty string will do)', () => {
    refused((t) => delete t.steps[0].message, '$.steps[0].message', /expected a string or an array, got undefined/);
    importTrajectory({ ...valid(), steps: [{ step_id: 1, source: 'agent', message: '' }] }, { file: 'x' });
  });

  test('model_name, reasoning_effort, reasoning_content, tool_calls and metrics belong to agent steps only', () => {
    for (const [field, value] of [
      ['model_name', 'm'],
      ['reasoning_effort', 'low'],
      ['reasoning_content', 'r'],
      ['tool_calls', []],
      ['metrics', {}],
    ] as const)
      refused((t) => (t.steps[0][field] = value), `$.steps[0].${field}`, new RegExp(`only an agent step may have ${field}; this step's source is "user"`));
    // Harbor checks for a value: null is no value.
    importTrajectory({ ...valid(), steps: [{ step_id: 1, source: 'user', message: 'x', metrics: null }] }, { file: 'x' });
  });

  test("a result's source_call_id names a tool call of its own step", () => {
    refused(
      (t) => (t.steps[1].observation.results[0].source_call_id = 'c9'),
      '$.steps[1].observation.results[0].source_call_id',
      /'c9' names no tool call of step 2 \(its calls are c1\)/,
    );
    refused(
      (t) => (t.steps[0].observation = { results: [{ source_call_id: 'c1', content: 'x' }] }),
      '$.steps[0].observation.results[0].source_call_id',
      /names no tool call of step 1 \(it has none\)/,
    );
  });

  test('a tool call has an id, a function name and an arguments object', () => {
    refused((t) => delete t.steps[1].tool_calls[0].function_name, '$.steps[1].tool_calls[0].function_name', /expected a string, got undefined/);
    refused((t) => (t.steps[1].tool_calls[0].arguments = '{"command":"ls"}'), '$.steps[1].tool_calls[0].arguments', /expected an object, got string/);
  });

  test('an observation holds a results array', () => {
    refused((t) => (t.steps[1].observation = { content: 'a.py' }), '$.steps[1].observation.results', /expected an array, got undefined/);
  });

  test('a field the RFC does not name is refused where it is; custom data goes in extra', () => {
    refused((t) => (t.steps[1].reward = 1), '$.steps[1].reward', /not a field of ATIF's step .*anything else belongs in extra/);
    refused((t) => (t.agent.temperature = 0.7), '$.agent.temperature', /not a field of ATIF's agent/);
    refused((t) => (t.steps[1].metrics.reasoning_tokens = 3), '$.steps[1].metrics.reasoning_tokens', /not a field of ATIF's metrics/);
    const t = valid();
    t.steps[1].extra = { reward: 1 };
    t.extra = { note: 'x' };
    importTrajectory(t, { file: 'x' });
  });

  test('a timestamp is ISO 8601', () => {
    refused((t) => (t.steps[1].timestamp = '11/10/2025 10:30'), '$.steps[1].timestamp', /not an ISO 8601 timestamp/);
    refused((t) => (t.steps[1].timestamp = '2025-02-30T10:00:00Z'), '$.steps[1].timestamp', /not an ISO 8601 timestamp/);
    for (const stamp of ['2025-10-11', '2025-10-11T10:30:00.123456+02:00', '2025-10-11 10:30', '20251011T103000Z'])
      importTrajectory({ ...valid(), steps: [{ step_id: 1, source: 'user', message: 'x', timestamp: stamp }] }, { file: stamp });
  });

  test('token counts and ids are integers; logprobs numbers', () => {
    refused((t) => (t.steps[1].metrics.prompt_tokens = 1.5), '$.steps[1].metrics.prompt_tokens', /expected an integer, got number/);
    refused((t) => (t.steps[1].metrics.completion_token_ids = [1, 'x']), '$.steps[1].metrics.completion_token_ids[1]', /expected a number, got string/);
  });

  test('final_metrics.total_steps is not negative', () => {
    refused((t) => (t.final_metrics = { total_steps: -1 }), '$.final_metrics.total_steps', /cannot be negative/);
  });

  test('a text part has text and no source; an image part a source and no text', () => {
    const part = (p: Json) => (t: Json) => (t.steps[1].message = [p]);
    refused(part({ type: 'text' }), '$.steps[1].message[0].text', /a text part needs 'text'/);
    refused(part({ type: 'text', text: 'a', source: { media_type: 'image/png', path: 'a.png' } }), '$.steps[1].message[0].source', /may not have 'source'/);
    refused(part({ type: 'image' }), '$.steps[1].message[0].source', /an image part needs 'source'/);
    refused(part({ type: 'image', text: 'a', source: { media_type: 'image/png', path: 'a.png' } }), '$.steps[1].message[0].text', /may not have 'text'/);
    refused(
      part({ type: 'image', source: { media_type: 'image/bmp', path: 'a.bmp' } }),
      '$.steps[1].message[0].source.media_type',
      /expected one of .*"image\/webp", got "image\/bmp"/,
    );
    refused(part({ type: 'audio' }), '$.steps[1].message[0].type', /expected one of "text", "image", got "audio"/);
  });

  test('a subagent reference names its session up to v1.6 (v1.7 resolves by trajectory_id or trajectory_path: atifVersions.test.ts)', () => {
    refused(
      (t) => (t.steps[1].observation.results[0].subagent_trajectory_ref = [{ trajectory_path: 'sub.json' }]),
      '$.steps[1].observation.results[0].subagent_trajectory_ref[0].session_id',
      /a subagent reference needs session_id up to ATIF-v1\.6 \(this file says ATIF-v1\.6\)/,
    );
  });
});

describe('multimodal content and subagents as text', () => {
  test('an image is a placeholder with its path and type, never its bytes', () => {
    const t = valid();
    t.steps[1].message = [
      { type: 'text', text: 'The screen:' },
      { type: 'image', source: { media_type: 'image/png', path: 'images/step_2.png' } },
    ];
    t.steps[1].observation.results[0].content = [{ type: 'image', source: { media_type: 'image/jpeg', path: 'https://example.com/shot.jpg' } }];
    const step = importTrajectory(t, { file: 'x' }).steps[0]!;
    assert.equal(step.thought, 'The screen:\n[image: images/step_2.png (image/png)]');
    assert.equal(step.observation, '[image: https://example.com/shot.jpg (image/jpeg)]');
  });

  test("a delegated subagent's result names its session and file beside any summary", () => {
    const t = valid();
    t.steps[1].observation.results[0].subagent_trajectory_ref = [{ session_id: 'sub-1', trajectory_path: 's3://runs/sub-1.json' }, { session_id: 'sub-2' }];
    const step: Step = importTrajectory(t, { file: 'x' }).steps[0]!;
    assert.equal(step.observation, 'a.py\n[subagent trajectory: s3://runs/sub-1.json, session sub-1]\n[subagent trajectory: session sub-2]');
  });

  test('results with no source_call_id go to the calls in order; one call keeps every result', () => {
    const t = valid();
    t.steps[1].tool_calls.push({ tool_call_id: 'c2', function_name: 'bash', arguments: { command: 'pwd' } });
    t.steps[1].observation.results = [{ content: 'first' }, { source_call_id: 'c1', content: 'for c1' }, { content: 'second' }];
    const tr: Trajectory = importTrajectory(t, { file: 'x' });
    assert.deepEqual(
      tr.steps[0]!.calls?.map((c) => c.observation),
      ['for c1', 'first\nsecond'],
    );
  });
});
