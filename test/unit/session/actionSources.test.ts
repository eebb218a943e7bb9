import '../../helpers/families';
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { PersonSource, RecordingSource, typedAction } from '../../../extension/core/session/actionSources';
import { forkOf } from '../../../extension/core/session/fork';
import { sweAgentFamily } from '../../../extension/core/scaffolds/swe-agent';
import { toolSetFor } from '../../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { CancelledError, InputError } from '../../../extension/core/errors';
import { aBashAction, anAction, aStep, aTrajectory } from '../../builders/trajectory';

const tools = toolSetFor();

describe('recording source', () => {
  const steps = [
    aStep({
      index: 0,
      action: anAction({ raw: 'open "a.py" 3', tool: null, args: {} }),
      logprobs: [{ token: 'open', logprob: -0.5 }],
      sampling: { temperature: 0 },
    }),
    aStep({
      index: 1,
      action: anAction({ raw: 'nonsense', tool: null, args: {} }),
      observation: 'Your output was not formatted correctly.',
      formatError: 'no command',
    }),
    aStep({ index: 2 }),
  ];

  test("an action the importer left unparsed is read with the session's tools; logprobs and sampling travel along", async () => {
    const next = await new RecordingSource(steps, tools).next([]);
    assert.deepEqual([next?.action.tool, next?.action.args], ['open', { path: 'a.py', line_number: 3 }]);
    assert.deepEqual(next?.logprobs, [{ token: 'open', logprob: -0.5 }]);
    assert.deepEqual(next?.sampling, { temperature: 0 });
    assert.equal(next?.recorded, steps[0]);
  });

  test('a recorded format error is replayed as one, with the recorded message', async () => {
    const next = await new RecordingSource(steps, tools).next(steps.slice(0, 1));
    assert.deepEqual([next?.formatError, next?.errorMessage], ['no command', 'Your output was not formatted correctly.']);
  });

  test('an ATIF system or user turn in the middle of a run is shown as recorded and runs nothing, whatever the scaffold', async () => {
    const turns = [aStep({ index: 0, thought: 'Performed context summarization.', observation: '[subagent trajectory]', flags: ['atif-system', 'edited'] })];
    const next = await new RecordingSource(turns, tools).next([]);
    assert.deepEqual([next?.runsNothing, next?.flags, next?.formatError], [true, ['atif-system'], undefined]);
  });

  test('a step copied in for context runs nothing when the run took it in an earlier file; read alone, its file replays it', async () => {
    const copied = aStep({ index: 0, action: aBashAction('mkdir test_dir'), flags: ['atif-copied-context'] });
    const joined = { ...copied, flags: ['atif-copied-context', 'atif-continuation-1'] };
    const again = await new RecordingSource([joined], tools).next([]);
    assert.deepEqual([again?.runsNothing, again?.flags], [true, ['atif-copied-context']]);
    const alone = await new RecordingSource([copied], tools).next([]);
    assert.deepEqual([alone?.runsNothing, alone?.action.tool], [undefined, 'bash']);
  });

  test('stops at the end of the recording, or before `until`', async () => {
    assert.equal(await new RecordingSource(steps, tools).next(steps), undefined);
    assert.equal(await new RecordingSource(steps, tools, 2).next(steps.slice(0, 2)), undefined);
  });
});

describe('person source', () => {
  test('actions typed ahead are taken in order; `end` finishes', async () => {
    const person = new PersonSource(tools);
    person.type('goto 4');
    person.type('edit 1:x\nend_of_edit');
    assert.equal((await person.next([]))?.action.tool, 'goto');
    assert.match((await person.next([]))?.formatError ?? '', /./);
    const waiting = person.next([]);
    person.end();
    assert.equal(await waiting, undefined);
  });

  test('waiting for a person can be cancelled', async () => {
    const controller = new AbortController();
    const waiting = new PersonSource(tools).next([], controller.signal);
    controller.abort();
    await assert.rejects(waiting, CancelledError);
  });

  test("a tool call is checked against the tool's arguments", () => {
    assert.deepEqual(typedAction({ tool: 'goto', args: { line_number: 7 } }, tools).action, {
      raw: '{"line_number":7}',
      tool: 'goto',
      args: { line_number: 7 },
    });
    assert.equal(typedAction({ tool: 'goto', args: { line: 7 } }, tools).formatError, 'Required argument(s) missing: line_number');
  });

  test('typed text that names no tool is a bash command', () => {
    assert.deepEqual(typedAction('ls -la | head', tools).action, { raw: 'ls -la | head', tool: 'bash', args: { command: 'ls -la | head' } });
  });
});

describe('fork', () => {
  test('replays steps 0..at-1 then hands over; the parent is the recording and its last replayed step', async () => {
    const recording = aTrajectory({ meta: { id: 'rec-1' } });
    const live = new PersonSource(tools);
    const fork = forkOf(recording, 'rec.json', 2, tools, live);
    assert.deepEqual(fork.parent, { id: 'rec-1', forkStep: 1 });
    assert.equal(fork.sources[1], live);
    assert.equal(await fork.sources[0]!.next(recording.steps.slice(0, 2)), undefined);
  });

  test('a fork point outside the recording names the file and the range', () => {
    const recording = aTrajectory();
    assert.throws(
      () => forkOf(recording, 'rec.json', recording.steps.length + 1, tools, new PersonSource(tools)),
      (err: InputError) => {
        assert.equal(
          err.message,
          `rec.json: cannot fork at step ${recording.steps.length + 1}: the recording has ${recording.steps.length} steps (fork at 0..${recording.steps.length})`,
        );
        return true;
      },
    );
  });

  test("a recording's parse function names its scaffold", () => {
    const replyFormatOf = (parseFunction: string | undefined) =>
      sweAgentFamily.create('1.1.0', aTrajectory({ meta: parseFunction === undefined ? {} : { parseFunction } })).replyFormat;
    assert.equal(replyFormatOf('function_calling'), 'function_calling');
    assert.equal(replyFormatOf('xml_function_calling'), 'xml_function_calling');
    assert.equal(replyFormatOf(undefined), 'thought_action');
  });
});
