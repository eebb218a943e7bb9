import '../../helpers/families';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { command as convert } from '../../../extension/cli/convert';
import { command as inspect } from '../../../extension/cli/inspect';
import { chooseScaffold, detectScaffold } from '../../../extension/core/scaffolds/registry';
import { editorEntry, isRecordingFolder, loadTrajectory } from '../../../extension/core/trajectory/load';
import { openSteps } from '../../../extension/core/trajectory/stepSource';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { runCli } from '../../helpers/cliRunner';
import { needsShared } from '../../helpers/sharedFolder';

const oracle = needsShared('oracles/openhands-v1');
const ORACLE_CONVERSATION = 'tests/fixtures/conversations/v1_11_5_cli_default';

const work = mkdtempSync(path.join(tmpdir(), 'swe-workbench-ohv1-'));
after(() => rmSync(work, { recursive: true, force: true }));

const id = (n: number) => `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const text = (t: string) => [{ type: 'text', text: t }];

function action(n: number, parent: number, tool: string, args: Record<string, unknown> | null, call: string, response: string, thought = '') {
  return {
    id: id(n),
    timestamp: `2026-07-20T10:00:${String(n).padStart(2, '0')}`,
    source: 'agent',
    parent_id: id(parent),
    thought: thought ? text(thought) : [],
    action: args === null ? null : { ...args, kind: 'X' },
    tool_name: tool,
    tool_call_id: call,
    tool_call: { id: call, name: tool, arguments: JSON.stringify(args ?? { bad: true }), origin: 'completion' },
    llm_response_id: response,
    security_risk: 'UNKNOWN',
    kind: 'ActionEvent',
  };
}

function observation(n: number, parent: number, tool: string, call: string, actionId: number, body: Record<string, unknown>) {
  return {
    id: id(n),
    timestamp: `2026-07-20T10:00:${String(n).padStart(2, '0')}`,
    source: 'environment',
    parent_id: id(parent),
    tool_name: tool,
    tool_call_id: call,
    observation: body,
    action_id: id(actionId),
    kind: 'ObservationEvent',
  };
}

const terminalOut = (out: string, exit: number) => ({
  content: text(out),
  is_error: false,
  command: 'x',
  exit_code: exit,
  timeout: false,
  metadata: {
    exit_code: exit,
    pid: -1,
    working_dir: '/workspace',
    py_interpreter_path: '/usr/bin/python',
    prefix: '',
    suffix: `\n[The command completed with exit code ${exit}.]`,
  },
  kind: 'TerminalObservation',
});

/**
 * A conversation with a fork: events 0-8 shared, 9-10 an abandoned branch (a rejected action),
 * 11-17 the branch in use (an action the SDK could not build, an edit, finish), each event
 * written as the SDK writes it.
 */
function conversationEvents(): Array<Record<string, unknown>> {
  return [
    {
      id: id(0),
      timestamp: '2026-07-20T10:00:00',
      source: 'agent',
      system_prompt: { type: 'text', text: 'You are OpenHands agent.' },
      tools: [{ name: 'terminal' }, { name: 'file_editor' }, { name: 'finish' }],
      kind: 'SystemPromptEvent',
    },
    {
      id: id(1),
      timestamp: '2026-07-20T10:00:01',
      source: 'user',
      parent_id: id(0),
      llm_message: { role: 'user', content: text('Fix calc.py') },
      activated_skills: [],
      extended_content: [],
      kind: 'MessageEvent',
    },
    {
      id: id(2),
      timestamp: '2026-07-20T10:00:02',
      source: 'agent',
      parent_id: id(1),
      prompt_token_ids: [11, 12, 13],
      response_token_ids: [21, 22],
      kind: 'TokenEvent',
    },
    action(3, 2, 'terminal', { command: 'ls' }, 'c1', 'r1', 'Look around first.'),
    observation(4, 3, 'terminal', 'c1', 3, terminalOut('calc.py', 0)),
    action(5, 4, 'file_editor', { command: 'view', path: '/workspace/calc.py' }, 'c2', 'r2', 'Read it two ways.'),
    action(6, 5, 'terminal', { command: 'cat calc.py; false' }, 'c3', 'r2'),
    observation(7, 6, 'file_editor', 'c2', 5, { content: text('     1\tx = 1\n'), is_error: false, command: 'view', kind: 'FileEditorObservation' }),
    observation(8, 7, 'terminal', 'c3', 6, terminalOut('x = 1', 1)),
    // The abandoned branch: the user rejected the action.
    action(9, 8, 'terminal', { command: 'rm -rf /' }, 'c4', 'r3'),
    {
      id: id(10),
      timestamp: '2026-07-20T10:00:10',
      source: 'user',
      parent_id: id(9),
      tool_name: 'terminal',
      tool_call_id: 'c4',
      rejection_reason: 'no',
      action_id: id(9),
      kind: 'UserRejectObservation',
    },
    // The branch in use, from event 8 again.
    action(11, 8, 'nonexistent', null, 'c5', 'r4'),
    {
      id: id(12),
      timestamp: '2026-07-20T10:00:12',
      source: 'agent',
      parent_id: id(11),
      tool_name: 'nonexistent',
      tool_call_id: 'c5',
      error: "Tool 'nonexistent' not found.",
      kind: 'AgentErrorEvent',
    },
    action(13, 12, 'file_editor', { command: 'create', path: '/workspace/new.py', file_text: 'y = 2\n' }, 'c6', 'r5'),
    observation(14, 13, 'file_editor', 'c6', 13, {
      content: text('File created successfully at: /workspace/new.py'),
      is_error: false,
      command: 'create',
      kind: 'FileEditorObservation',
    }),
    action(15, 14, 'finish', { message: 'Done.' }, 'c7', 'r6'),
    observation(16, 15, 'finish', 'c7', 15, { content: text('Done.'), is_error: false, kind: 'FinishObservation' }),
    { id: id(17), timestamp: '2026-07-20T10:00:17', source: 'environment', key: 'execution_status', value: 'finished', kind: 'ConversationStateUpdateEvent' },
  ];
}

function writeFolder(name: string, events: Array<Record<string, unknown>>, state: Record<string, unknown> | undefined): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'events'), { recursive: true });
  if (state) writeFileSync(path.join(dir, 'base_state.json'), JSON.stringify(state, null, 2));
  events.forEach((e, i) => writeFileSync(path.join(dir, 'events', `event-${String(i).padStart(5, '0')}-${String(e.id)}.json`), JSON.stringify(e, null, 2)));
  return dir;
}

const STATE = {
  id: 'conv-1',
  agent: { llm: { model: 'gpt-4o-mini' }, tools: [{ name: 'terminal' }, { name: 'file_editor' }] },
  workspace: { working_dir: '/workspace' },
  execution_status: 'finished',
  leaf_event_id: id(16),
};

/** What a reader shows of each step, without where it came from (which differs between a folder and a file). */
const shown = (t: Trajectory) => t.steps.map(({ source: _source, ...s }) => s);

describe('OpenHands V1 conversations', () => {
  const folder = writeFolder('conversation', conversationEvents(), STATE);

  test('a persisted folder opens as its branch in use: one step per response, parallel calls in one step, tokens on the step', async () => {
    const { trajectory: t, format } = await loadTrajectory(folder);
    assert.equal(format, 'openhands-v1');
    assert.equal(t.meta.model, 'gpt-4o-mini');
    assert.equal(t.meta.systemPrompt, 'You are OpenHands agent.');
    assert.equal(t.meta.instructions, 'Fix calc.py');
    assert.equal(t.task.repoPath, '/workspace');
    assert.equal(t.outcome.exitStatus, 'finished');
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['terminal', 'file_editor', 'nonexistent', 'file_editor', 'finish'],
    );
    const [first, parallel, unbuilt, create, finish] = t.steps;
    assert.equal(first!.thought, 'Look around first.');
    assert.equal(first!.action.raw, 'ls');
    // TerminalObservation as the model read it (`to_llm_content`): output, suffix, directory, interpreter, exit code.
    assert.equal(
      first!.observation,
      'calc.py\n[The command completed with exit code 0.]\n[Current working directory: /workspace]\n[Python interpreter: /usr/bin/python]\n[Command finished with exit code 0]',
    );
    assert.equal(first!.exitCode, 0);
    assert.deepEqual(first!.tokenIds, { prompt: [11, 12, 13], completion: [21, 22] });
    assert.equal(parallel!.calls?.length, 2);
    assert.deepEqual(
      parallel!.calls!.map((c) => [c.action.tool, c.action.toolCallId]),
      [
        ['file_editor', 'c2'],
        ['terminal', 'c3'],
      ],
    );
    assert.equal(parallel!.calls![0]!.observation, '     1\tx = 1\n');
    assert.match(parallel!.calls![1]!.observation, /^x = 1\n\[The command completed with exit code 1\.\]/);
    assert.equal(unbuilt!.formatError, "Tool 'nonexistent' not found.");
    assert.equal(unbuilt!.observation, "Tool 'nonexistent' not found.");
    assert.deepEqual(create!.action.args, { command: 'create', path: '/workspace/new.py', file_text: 'y = 2\n' });
    assert.equal(finish!.observation, 'Done.');
    // Each step points at the event files' records, action first.
    assert.deepEqual(first!.source?.pointers, ['/events/3', '/events/4']);
  });

  test('the other branch is listed as a fork: its leaf, the steps it shares and its own', async () => {
    const { trajectory: t } = await loadTrajectory(folder);
    assert.deepEqual(t.meta.forks, [{ id: id(10), sharedSteps: 2, steps: 3 }]);
    // The state's leaf chooses the branch: pointing it at the fork opens that one.
    const other = writeFolder('conversation-fork', conversationEvents(), { ...STATE, leaf_event_id: id(10) });
    const fork = (await loadTrajectory(other)).trajectory;
    assert.deepEqual(
      fork.steps.map((s) => s.action.raw),
      ['ls', '{"command":"view","path":"/workspace/calc.py"}', 'rm -rf /'],
    );
    assert.equal(fork.steps[2]!.observation, 'Action rejected: no');
    assert.deepEqual(fork.meta.forks, [{ id: id(16), sharedSteps: 2, steps: 5 }]);
  });

  test('events.jsonl, a JSON list and the agent server export read as the folder does', async () => {
    const events = conversationEvents();
    const expected = shown((await loadTrajectory(folder)).trajectory);
    const jsonl = path.join(work, 'events.jsonl');
    writeFileSync(jsonl, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const list = path.join(work, 'events.json');
    writeFileSync(list, JSON.stringify(events));
    const server = path.join(work, 'search.json');
    writeFileSync(server, JSON.stringify({ items: events, next_page_id: null }));
    for (const file of [jsonl, list, server]) {
      const loaded = await loadTrajectory(file);
      assert.equal(loaded.format, 'openhands-v1', file);
      // Without the state, the last tree event is the leaf: the same branch here.
      assert.deepEqual(shown(loaded.trajectory), expected, file);
      assert.equal(loaded.records, undefined, `${file} is one recording, not one a line`);
    }
    assert.deepEqual((await loadTrajectory(jsonl)).trajectory.steps[0]!.source, { pointers: ['/3', '/4'] });
    assert.deepEqual((await loadTrajectory(server)).trajectory.steps[0]!.source?.pointers, ['/items/3', '/items/4']);
  });

  test('events written before the tree (no parent_id) are one line of events', async () => {
    const legacy = conversationEvents()
      .filter((e) => ![9, 10].includes(Number.parseInt(String(e.id).slice(-4), 16)))
      .map(({ parent_id: _parent, ...e }) => e);
    const { trajectory: t } = await loadTrajectory(writeFolder('legacy', legacy, { ...STATE, leaf_event_id: undefined }));
    assert.equal(t.steps.length, 5);
    assert.equal(t.meta.forks, undefined);
  });

  test('the scaffold is named from the conversation, and a conversation folder is one recording', async () => {
    const { trajectory } = await loadTrajectory(folder);
    const choice = detectScaffold(trajectory);
    assert.equal(`${choice.name}@${choice.version}`, 'openhands-v1@1');
    assert.equal(await isRecordingFolder(folder), true);
    assert.equal(await isRecordingFolder(work), false);
  });

  test('an event file or the state file opens its whole conversation, as an editor opens the folder', async () => {
    const eventFile = path.join(folder, 'events', `event-00007-${id(7)}.json`);
    for (const file of [eventFile, path.join(folder, 'base_state.json')]) {
      const source = await openSteps(file);
      assert.equal(source.format, 'openhands-v1', file);
      assert.equal(source.stepCount, 5, file);
    }
    assert.equal(await editorEntry(folder), path.join(folder, 'base_state.json'));
    const stateless = writeFolder('stateless', conversationEvents(), undefined);
    assert.equal(await editorEntry(stateless), path.join(stateless, 'events', `event-00000-${id(0)}.json`));
    // An event file outside a conversation folder is not a recording of its own.
    const loose = path.join(work, `event-00000-${id(0)}.json`);
    writeFileSync(loose, JSON.stringify(conversationEvents()[0]));
    await assert.rejects(loadTrajectory(loose), /not a trajectory/);
  });

  test('inspect DIR prints the steps, the scaffold and the forks', async () => {
    const { code, stdout } = await runCli(inspect, [folder]);
    assert.equal(code, 0);
    const lines = stdout.split('\n');
    assert.equal(lines[0], folder);
    assert.equal(lines[1], 'format   openhands-v1 (function_calling)');
    assert.equal(lines[5], 'steps    5');
    assert.equal(lines[6], `forks    1 other branch: ${id(10)} (3 steps, steps 1-2 shared)`);
    assert.match(lines[7]!, /^scaffold openhands-v1@1 \(an OpenHands V1 conversation/);
    assert.match(stdout, /^ {3}1 {2}terminal +ls /m);
    assert.match(stdout, /^ {3}2 {2}file_editor .*2 calls$/m);
  });

  test('V1 -> ATIF -> V1 keeps every step, and V1 events convert back to the same steps', async () => {
    const atif = path.join(work, 'conv.atif.json');
    const back = path.join(work, 'back.json');
    assert.equal((await runCli(convert, [folder, '--to', 'atif', '--out', atif])).code, 0);
    assert.equal((await runCli(convert, [atif, '--to', 'openhands-v1', '--out', back])).code, 0);
    const original = (await loadTrajectory(folder)).trajectory;
    const viaAtif = await loadTrajectory(back);
    assert.equal(viaAtif.format, 'openhands-v1');
    const pick = (t: Trajectory) => t.steps.map((s) => [s.action.tool, s.action.args, s.observation, s.tokenIds, s.calls?.length]);
    assert.deepEqual(pick(viaAtif.trajectory), pick(original));
    assert.equal(viaAtif.trajectory.meta.instructions, 'Fix calc.py');
    // And V1 written from V1 reads back to the same steps.
    const direct = path.join(work, 'direct.json');
    assert.equal((await runCli(convert, [folder, '--to', 'openhands-v1', '--out', direct])).code, 0);
    assert.deepEqual(pick((await loadTrajectory(direct)).trajectory), pick(original));
  });
});

describe('broken V1 conversations say which event file and where', () => {
  const broken = async (name: string, change: (events: Array<Record<string, unknown>>) => void, state: Record<string, unknown> | undefined = STATE) => {
    const events = conversationEvents();
    change(events);
    return loadTrajectory(writeFolder(name, events, state)).then(
      () => assert.fail('expected an error'),
      (err: Error) => err.message,
    );
  };

  test('an event that is not JSON names its file, line and column', async () => {
    const dir = writeFolder('badjson', conversationEvents(), STATE);
    const file = path.join(dir, 'events', `event-00004-${id(4)}.json`);
    writeFileSync(file, '{\n  "id": ,\n}');
    const message = await loadTrajectory(dir).then(
      () => '',
      (err: Error) => err.message,
    );
    assert.match(message, new RegExp(`^${escape(file)}: line 2`));
  });

  test('an event without its id, or with a parent nobody is, names its file and JSON path', async () => {
    const dir = writeFolder('noid', conversationEvents(), STATE);
    const { id: _id, ...noId } = conversationEvents()[5]!;
    writeFileSync(path.join(dir, 'events', `event-00005-${id(5)}.json`), JSON.stringify(noId));
    await assert.rejects(
      loadTrajectory(dir),
      (err: Error) => err.message === `${dir}/events/event-00005-${id(5)}.json: $.id: expected a string, got undefined`,
    );
    assert.match(
      await broken('orphan', (e) => (e[13]!.parent_id = id(99))),
      new RegExp(`event-00013-${id(13)}\\.json: \\$\\.parent_id: no event has the id '${id(99)}'`),
    );
    assert.match(
      await broken('leaf', () => undefined, { ...STATE, leaf_event_id: 'nope' }),
      /base_state\.json: \$\.leaf_event_id: event 'nope' is not one of the conversation's 18 events/,
    );
  });

  test('a missing event file is named by its index', async () => {
    const dir = writeFolder('gap', conversationEvents(), STATE);
    rmSync(path.join(dir, 'events', `event-00006-${id(6)}.json`));
    const message = await loadTrajectory(dir).then(
      () => '',
      (err: Error) => err.message,
    );
    assert.match(message, /events: event 6 is missing: the files go from index 5 to 7/);
  });

  test('a broken line of events.jsonl is named by its line', async () => {
    const events = conversationEvents();
    events[3]!.tool_call = 'oops';
    const file = path.join(work, 'broken.jsonl');
    writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
    await assert.rejects(loadTrajectory(file), (err: Error) => err.message === `${file}: line 4: $.tool_call: expected an object, got string`);
  });

  test('a folder that is no conversation says so', async () => {
    const empty = path.join(work, 'plain');
    mkdirSync(empty);
    await assert.rejects(loadTrajectory(empty), (err: Error) => err.message === `${empty}: is a folder, not a file, and not a recording folder (openhands-v1)`);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe("the reference SDK's persisted CLI conversation", () => {
  oracle.test('its folder opens: no step yet, the model and tools its state names', async () => {
    const { trajectory: t, format } = await loadTrajectory(oracle.path(ORACLE_CONVERSATION));
    assert.equal(format, 'openhands-v1');
    assert.equal(t.steps.length, 0);
    assert.equal(t.meta.id, '11111111-2222-3333-4444-555555555555');
    assert.equal(t.meta.model, 'gpt-4o-mini');
    assert.deepEqual(t.meta.scaffoldConfig, { tools: ['terminal', 'file_editor', 'task_tracker'] });
    assert.equal(detectScaffold(t).name, 'openhands-v1');
  });

  oracle.test('its state with events written after it: the state names the model and the branch', async () => {
    const dir = writeFolder('with-oracle-state', conversationEvents(), undefined);
    copyFileSync(oracle.path(ORACLE_CONVERSATION, 'base_state.json'), path.join(dir, 'base_state.json'));
    const { trajectory: t } = await loadTrajectory(dir);
    assert.equal(t.meta.model, 'gpt-4o-mini');
    assert.equal(t.task.repoPath, '/workspace/project/software-agent-sdk/.agent_tmp/repro/persistence');
    // The reference state names no leaf (a conversation saved before the tree): the last event's branch is used.
    assert.equal(t.steps.length, 5);
  });
});

describe('a V1 reply that called no tool', () => {
  test("is a step without an action whose observation is the user's answer, and replays as running nothing", async () => {
    const events = [
      ...conversationEvents().slice(0, 5),
      { id: id(30), source: 'agent', parent_id: id(4), llm_message: { role: 'assistant', content: text('Which file?') }, kind: 'MessageEvent' },
      { id: id(31), source: 'user', parent_id: id(30), llm_message: { role: 'user', content: text('calc.py') }, kind: 'MessageEvent' },
    ];
    const { trajectory: t } = await loadTrajectory(writeFolder('asks', events, { ...STATE, leaf_event_id: id(31) }));
    assert.equal(t.steps.length, 2);
    assert.deepEqual([t.steps[1]!.action.tool, t.steps[1]!.thought, t.steps[1]!.observation], [null, 'Which file?', 'calc.py']);
    const { scaffold } = chooseScaffold({ recording: t });
    assert.deepEqual((scaffold.tools as { readRecorded?(s: Step): unknown }).readRecorded?.(t.steps[1]!), { action: t.steps[1]!.action, runsNothing: true });
    assert.equal((scaffold.tools as { readRecorded?(s: Step): unknown }).readRecorded?.(t.steps[0]!), undefined);
  });
});
