/**
 * Shapes whose size once made an importer scan a list per step or per call: each file is
 * 100,000 steps, calls or events, which a scan per item turns into minutes. The tests assert
 * what is read (the step count, what pairs with what), never how long it takes.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { pairWithHistory, type HistoryItem } from '../../../extension/core/scaffolds/swe-agent/trajImporter';

const N = 100_000;

describe('100,000 steps, calls or events are read without a scan per item', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-large-shapes-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a SWE-agent .traj whose history disagrees with its trajectory on every other step: each step pairs with its own message or none', async () => {
    // Even steps have their message (two calls, each answered); odd steps' messages hold another action.
    const trajectory = Array.from({ length: N }, (_, i) => ({ action: `ls dir_${i}`, observation: `out ${i}` }));
    const history: unknown[] = [
      { role: 'system', content: 'You are an agent.' },
      { role: 'user', content: 'Fix the bug.' },
    ];
    const messageOf = new Map<number, number>();
    for (let i = 0; i < N; i++) {
      if (i % 2 === 1) {
        history.push({ role: 'assistant', content: '', action: `cat other_${i}` }, { role: 'user', content: `other ${i}` });
        continue;
      }
      messageOf.set(i, history.length);
      history.push(
        {
          role: 'assistant',
          content: '',
          action: `ls dir_${i}`,
          tool_calls: [
            { id: `a${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `ls dir_${i}` }) } },
            { id: `b${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: `pwd ${i}` }) } },
          ],
        },
        { role: 'tool', content: `listing ${i}`, tool_call_ids: [`a${i}`] },
        { role: 'tool', content: `cwd ${i}`, tool_call_ids: [`b${i}`] },
      );
    }
    const file = join(dir, 'disagreeing.traj');
    writeFileSync(file, JSON.stringify({ trajectory, history, info: { exit_status: 'submitted' } }));

    const { trajectory: read } = await loadTrajectory(file);
    assert.equal(read.format, 'swe-agent');
    assert.equal(read.steps.length, N);
    const wrong: string[] = [];
    read.steps.forEach((step, i) => {
      const h = messageOf.get(i);
      const pointers = step.source?.pointers ?? [];
      const expected = h === undefined ? [`/trajectory/${i}`] : [`/trajectory/${i}`, `/history/${h}`];
      if (pointers.join(' ') !== expected.join(' ')) wrong.push(`step ${i + 1}: ${pointers.join(' ')}`);
      const calls = step.calls?.map((c) => `${c.action.args.command} -> ${c.observation}`);
      const expectedCalls = h === undefined ? undefined : [`ls dir_${i} -> listing ${i}`, `pwd ${i} -> cwd ${i}`];
      if (JSON.stringify(calls) !== JSON.stringify(expectedCalls)) wrong.push(`step ${i + 1} calls: ${JSON.stringify(calls)}`);
      if (step.observation !== `out ${i}`) wrong.push(`step ${i + 1} observation: ${step.observation}`);
    });
    assert.deepEqual(wrong.slice(0, 5), []);
  });

  test('a SWE-agent history message with 100,000 function calls: each call gets the tool message that answered it', async () => {
    const calls = Array.from({ length: N }, (_, k) => ({
      id: `c${k}`,
      type: 'function',
      function: { name: 'bash', arguments: JSON.stringify({ command: `echo ${k}` }) },
    }));
    // Answered last call first, so each answer sits far from its call; the first call has two answers, the first one counts.
    const answers = Array.from({ length: N }, (_, k) => ({ role: 'tool', content: `said ${N - 1 - k}`, tool_call_ids: [`c${N - 1 - k}`] }));
    answers.push({ role: 'tool', content: 'said 0 again', tool_call_ids: ['c0'] });
    const file = join(dir, 'many-calls.traj');
    writeFileSync(
      file,
      JSON.stringify({
        trajectory: [{ action: 'echo all', observation: 'all said' }],
        history: [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', action: 'echo all', tool_calls: calls }, ...answers],
      }),
    );
    const { trajectory } = await loadTrajectory(file);
    assert.equal(trajectory.steps.length, 1);
    const read = trajectory.steps[0]!.calls!;
    assert.equal(read.length, N);
    const unpaired = read.flatMap((c, k) =>
      c.action.args.command === `echo ${k}` && c.observation === `said ${k}` ? [] : [`call ${k + 1}: ${c.observation}`],
    );
    assert.deepEqual(unpaired.slice(0, 5), []);
  });

  test('an OpenAI-messages file whose one assistant message holds 100,000 tool calls: each call pairs with its reply by id', async () => {
    const calls = Array.from({ length: N }, (_, k) => ({
      id: `call_${k}`,
      type: 'function',
      function: { name: 'bash', arguments: JSON.stringify({ command: `ls ${k}` }) },
    }));
    // Replies in reverse order, one reply to no call (kept, as the observation of the first call left without a reply), the last call unanswered.
    const replies: unknown[] = [];
    for (let k = N - 2; k >= 0; k--) replies.push({ role: 'tool', tool_call_id: `call_${k}`, content: `reply ${k}` });
    replies.push({ role: 'tool', tool_call_id: 'call_unknown', content: 'a reply to no call' });
    const file = join(dir, 'many-calls.json');
    writeFileSync(
      file,
      JSON.stringify([
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'task' },
        { role: 'assistant', content: 'thinking', tool_calls: calls },
        ...replies,
      ]),
    );

    const { trajectory } = await loadTrajectory(file);
    assert.equal(trajectory.format, 'openai-messages');
    assert.equal(trajectory.steps.length, 1);
    const step = trajectory.steps[0]!;
    assert.equal(step.calls!.length, N);
    const wrong = step.calls!.flatMap((c, k) => {
      const expected = k === N - 1 ? 'a reply to no call' : `reply ${k}`;
      return c.action.toolCallId === `call_${k}` && c.observation === expected ? [] : [`call ${k + 1}: ${c.action.toolCallId} -> ${c.observation}`];
    });
    assert.deepEqual(wrong.slice(0, 5), []);
    assert.equal(step.source!.pointers.length, N + 1);
    assert.equal(step.source!.pointers[0], '/2');
  });

  test('an OpenHands event list where 100,000 observations answer one action: all of them are its observation, in order', async () => {
    const events: unknown[] = [
      { id: 0, source: 'user', action: 'message', args: { content: 'task' } },
      { id: 1, source: 'agent', action: 'run', args: { command: 'yes | head' } },
    ];
    for (let k = 0; k < N; k++) events.push({ id: k + 2, source: 'environment', observation: 'run', cause: 1, content: `y${k}` });
    const file = join(dir, 'events.json');
    writeFileSync(file, JSON.stringify(events));
    const { trajectory } = await loadTrajectory(file, { format: 'openhands' });
    assert.equal(trajectory.steps.length, 1);
    const step = trajectory.steps[0]!;
    assert.equal(step.source!.pointers.length, N + 1);
    assert.equal(step.observation, Array.from({ length: N }, (_, k) => `y${k}`).join('\n'));
  });
});

describe('pairing trajectory steps with history messages', () => {
  const assistant = (action: string, extra: Partial<HistoryItem> = {}): HistoryItem => ({ role: 'assistant', content: '', action, ...extra });
  const steps = (...actions: string[]) => actions.map((action) => ({ action }));

  test('in order: a message before the last one paired is not taken, even with the same action', () => {
    const history = [assistant('a'), assistant('b'), assistant('a'), assistant('c')];
    assert.deepEqual(pairWithHistory(steps('b', 'a', 'a', 'c'), history), [1, 2, undefined, 3]);
  });

  test('actions compare trimmed; demonstrations, other roles and messages without an action are never paired', () => {
    const history: HistoryItem[] = [
      assistant('ls', { is_demo: true }),
      { role: 'user', content: 'ls', action: 'ls' },
      { role: 'assistant', content: 'ls' },
      assistant('  ls\n'),
    ];
    assert.deepEqual(pairWithHistory(steps('ls '), history), [3]);
  });

  test('a step whose action no message holds pairs with none and leaves the next steps their messages', () => {
    const history = [assistant('a'), assistant('b'), assistant('c')];
    assert.deepEqual(pairWithHistory(steps('a', 'x', 'c', 'b'), history), [0, undefined, 2, undefined]);
  });
});
