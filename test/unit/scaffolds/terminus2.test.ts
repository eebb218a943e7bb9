/**
 * Terminus-2's pure parts: how keystrokes become tmux commands, what counts as new terminal
 * output, the 10,000-byte cut, its prompts, how a reply becomes a step and a recorded step a
 * replay, and the normalisers that forgive what Harbor's recordings rewrite.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PolicyReply } from '../../../extension/core/policy/policyClient';
import { terminus2Family } from '../../../extension/core/scaffolds/terminus-2';
import { completionConfirmation, limitOutputLength, promptTemplate, renderPrompt, timeoutMessage } from '../../../extension/core/scaffolds/terminus-2/prompts';
import { shlexQuote } from '../../../extension/core/parsing/pythonText';
import { findNewContent, prepareKeys, sendKeysCommands } from '../../../extension/core/scaffolds/terminus-2/tmuxKeys';
import { compareObservations, DEFAULT_NORMALISERS } from '../../../extension/core/session/divergence';
import type { Step } from '../../../extension/core/trajectory/model';

const reply = (content: string): PolicyReply => ({ content, toolCalls: [], retries: [] }) as unknown as PolicyReply;

describe('keystrokes', () => {
  test('a send ending in Enter or a newline blocks only when asked, with the completion signal in place of the Enter', () => {
    assert.deepEqual(prepareKeys(['ls', 'Enter'], false), { keys: ['ls', 'Enter'], blocking: false });
    assert.deepEqual(prepareKeys(['ls', 'Enter'], true), { keys: ['ls', '; tmux wait -S done', 'Enter'], blocking: true });
    assert.deepEqual(prepareKeys('make\r\n', true), { keys: ['make', '; tmux wait -S done', 'Enter'], blocking: true });
    assert.deepEqual(prepareKeys(['C-c'], true), { keys: ['C-c'], blocking: false }, 'nothing runs a command: no wait');
    assert.deepEqual(prepareKeys(['\n'], true), { keys: ['; tmux wait -S done', 'Enter'], blocking: true });
  });

  test('keys are quoted as shlex.quote quotes them, and split so no send-keys passes 16,000 characters', () => {
    assert.equal(shlexQuote(''), "''");
    assert.equal(shlexQuote('C-c'), 'C-c');
    assert.equal(shlexQuote("it's"), `'it'"'"'s'`);
    assert.deepEqual(sendKeysCommands('terminus-2', ['echo hi', 'Enter']), ["tmux send-keys -t terminus-2 'echo hi' Enter"]);
    const long = 'y'.repeat(40_000);
    const commands = sendKeysCommands('terminus-2', ['printf', long, 'Enter']);
    assert.ok(commands.length >= 3);
    for (const c of commands) assert.ok(c.length <= 16_000, `${c.length} characters`);
    const keys = commands.flatMap((c) => c.slice('tmux send-keys -t terminus-2 '.length).split(' '));
    assert.deepEqual([keys[0], keys.at(-1)], ['printf', 'Enter']);
    assert.equal(keys.slice(1, -1).join(''), long, 'the long key is cut into pieces sent in order');
  });
});

describe('new terminal output', () => {
  test('the text from the previous capture’s last line break on, that position taken in the previous capture', () => {
    assert.equal(findNewContent(undefined, 'root@h:/app#\n\n'), 'root@h:/app#\n\n');
    const before = 'root@h:/app# ls\na\nroot@h:/app#\n\n\n';
    const after = 'root@h:/app# ls\na\nroot@h:/app# pwd\n/app\nroot@h:/app#\n\n';
    assert.equal(findNewContent(before, after), '\nroot@h:/app# pwd\n/app\nroot@h:/app#\n\n');
    // Found further down, Harbor still cuts at the previous capture's own offset: more than what is new.
    assert.equal(findNewContent('b\nc\n', 'a\nb\nc\nd\n'), '\nb\nc\nd\n');
    assert.equal(findNewContent('gone\nline\n', 'cleared\n'), undefined, 'a redrawn screen: the caller shows the screen instead');
  });

  test('output over 10,000 bytes keeps its two halves around a marker, never splitting a character', () => {
    assert.equal(limitOutputLength('short'), 'short');
    const text = 'é'.repeat(6000);
    const cut = limitOutputLength(text);
    const [first, last] = cut.split(/\n\[\.\.\. output limited to 10000 bytes; \d+ interior bytes omitted \.\.\.\]\n/);
    assert.equal(first, 'é'.repeat(2500));
    assert.equal(last, 'é'.repeat(2500));
    assert.match(cut, /; 2000 interior bytes omitted/);
    const odd = limitOutputLength(`x${'é'.repeat(6000)}`);
    assert.match(odd, /^xé{2499}\n\[\.\.\. output limited to 10000 bytes; 2002 interior bytes omitted \.\.\.\]\né{2500}$/);
  });
});

describe('prompts', () => {
  test("the first prompt is Harbor's template with the task and the screen, braces as str.format leaves them", () => {
    const prompt = renderPrompt(promptTemplate('json'), 'Do {x}.', 'Current Terminal Screen:\nroot@h:/app#\n');
    assert.match(prompt, /^You are an AI assistant tasked with solving command-line tasks/);
    assert.match(prompt, /\n\{\n {2}"analysis": "Analyze the current state/);
    assert.match(prompt, /Task Description:\nDo \{x\}\.\n\nCurrent terminal state:\nCurrent Terminal Screen:\nroot@h:\/app#\n\n$/);
    assert.match(renderPrompt(promptTemplate('xml'), 't', 's'), /<keystrokes duration="0\.1">ls -la\n<\/keystrokes>/);
  });

  test('the timeout message and the completion question', () => {
    assert.equal(
      timeoutMessage('make\n', 5, 'SCREEN'),
      'Previous command:\nmake\n\n\nThe previous command timed out after 5.0 seconds\n\nIt is possible that the command is not yet finished executing. If that is the case, then do nothing. It is also possible that you have entered an interactive shell and should continue sending keystrokes as normal.\n\nHere is the current state of the terminal:\n\nSCREEN ',
    );
    assert.equal(
      completionConfirmation('xml', 'OUT'),
      "Current terminal state:\nOUT\n\nAre you sure you want to mark the task as complete? This will trigger your solution to be graded and you won't be able to make any further corrections. If so, include <task_complete>true</task_complete> again.",
    );
  });
});

describe('replies and recorded steps', () => {
  const scaffold = terminus2Family.create('2.0.0');

  test('a reply is one step: its commands in order, then mark_task_complete; warnings are kept for the observation', () => {
    const parsed = scaffold.parseReply(
      reply(`ok ${JSON.stringify({ analysis: 'A', plan: 'P', commands: [{ keystrokes: 'ls\n', duration: 90 }, { keystrokes: 'C-c' }], task_complete: true })}`),
    );
    assert.equal(parsed.thought, 'Analysis: A\nPlan: P');
    assert.deepEqual(
      parsed.calls?.map((c) => [c.tool, c.args]),
      [
        ['bash_command', { keystrokes: 'ls\n', duration: 60 }],
        ['bash_command', { keystrokes: 'C-c', duration: 1 }],
        ['mark_task_complete', {}],
      ],
    );
    assert.equal(parsed.feedback, 'WARNINGS: - Extra text detected before JSON object\n- Command 2: Missing duration field, using default 1.0');
    const none = scaffold.parseReply(reply(JSON.stringify({ analysis: '', plan: '', commands: [] })));
    assert.deepEqual([none.thought, none.action.tool, none.calls, none.formatError], ['', null, undefined, undefined]);
  });

  test('an unreadable reply runs nothing and the model is told why, in the format’s words', () => {
    const bad = scaffold.parseReply(reply('no json here'));
    assert.equal(bad.formatError, 'No valid JSON found in response');
    assert.equal(
      bad.errorMessage,
      'Previous response had parsing errors:\nERROR: No valid JSON found in response\nWARNINGS: - No valid JSON object found\n\nPlease fix these issues and provide a proper JSON response.',
    );
    assert.equal(bad.thought, 'no json here');
  });

  const step = (over: Partial<Step>): Step => ({ index: 0, thought: '', action: { raw: '', tool: null, args: {} }, observation: '', ...over });
  const read = (s: Step) => (scaffold.tools as unknown as { readRecorded(s: Step): unknown }).readRecorded(s);

  test('recorded steps without a tool: an error turn, a raw reply, a turn without a command, a turn with nothing', () => {
    const error = 'Previous response had parsing errors:\nERROR: Missing required fields: plan\n\nPlease fix these issues and provide a proper JSON response.';
    assert.deepEqual(read(step({ thought: '{}', observation: error })), {
      action: { raw: '', tool: null, args: {} },
      formatError: 'Missing required fields: plan',
      errorMessage: error,
    });
    const raw = JSON.stringify({ analysis: 'a', plan: 'p', commands: [{ keystrokes: 'cat x\n', duration: 0.1 }], task_complete: false });
    assert.deepEqual(read(step({ thought: raw, observation: 'New Terminal Output:\n\nroot@CONTAINER_ID:/app# cat x\n' })), {
      action: { raw: '{"keystrokes":"cat x\\n","duration":0.1}', tool: 'bash_command', args: { keystrokes: 'cat x\n', duration: 0.1 } },
    });
    assert.deepEqual(read(step({ thought: 'Analysis: waiting', observation: 'New Terminal Output:\n\nstill running\n' })), {
      action: { raw: '', tool: null, args: {} },
    });
    assert.deepEqual(read(step({ thought: 'I have questions.' })), { action: { raw: '', tool: null, args: {} }, runsNothing: true });
    const warned = step({
      action: { raw: '{}', tool: 'bash_command', args: { keystrokes: 'ls\n', duration: 1 } },
      observation: 'Previous response had warnings:\nWARNINGS: - Command 1: Missing duration field, using default 1.0\n\nNew Terminal Output:\nx',
    });
    assert.equal((read(warned) as { feedback: string }).feedback, 'WARNINGS: - Command 1: Missing duration field, using default 1.0');
  });

  test('the reply goes back to the model as JSON of what it asked for', () => {
    const s = step({
      thought: 'Analysis: A\nPlan: P',
      action: { raw: '', tool: 'bash_command', args: { keystrokes: 'ls\n', duration: 0.1 } },
      calls: [
        { action: { raw: '', tool: 'bash_command', args: { keystrokes: 'ls\n', duration: 0.1 } }, observation: '' },
        { action: { raw: '{}', tool: 'mark_task_complete', args: {} }, observation: '' },
      ],
    });
    assert.deepEqual(JSON.parse(scaffold.context.assistantText!(s)), {
      analysis: 'A',
      plan: 'P',
      commands: [{ keystrokes: 'ls\n', duration: 0.1 }],
      task_complete: true,
    });
    const xml = terminus2Family.create('2.0.0', { meta: { scaffoldConfig: { parser: 'xml' } } } as never);
    assert.equal(xml.replyFormat, 'terminus_xml');
    assert.match(
      xml.context.assistantText!(s),
      /^<response>\n<analysis>\nA\n<\/analysis>[\s\S]*<keystrokes duration="0\.1">ls\n<\/keystrokes>[\s\S]*<task_complete>true<\/task_complete>\n<\/response>$/,
    );
  });
});

describe("normalisers for Harbor's recordings", () => {
  const names = [...terminus2Family.normalisers!, ...DEFAULT_NORMALISERS];
  const replayed = `New Terminal Output:\nroot@8ed7bb11ffe9:/app# cat hello.txt\nHello, world!\nroot@8ed7bb11ffe9:/app#\n${'\n'.repeat(30)}`;

  test("Harbor's rewriting of a screen (host name, idle prompt, blank lines) is forgiven, nothing else", () => {
    assert.equal(compareObservations('New Terminal Output:\n\nroot@CONTAINER_ID:/app# cat hello.txt\nHello, world!\n\n', replayed, names).matched, true);
    assert.equal(compareObservations('New Terminal Output:\n\nroot@CONTAINER_ID:/app# cat hello.txt\nHello, world\n\n', replayed, names).matched, false);
    assert.equal(
      compareObservations('New Terminal Output:\n\nroot@CONTAINER_ID:/app# cat hello.txt\nHello, world!\n\n', replayed).matched,
      false,
      'off by default',
    );
    assert.equal(
      compareObservations(
        'Current Terminal Screen:\nbash: no job control in this shell\nuser@CONTAINER_ID:/app$\n\n',
        'Current Terminal Screen:\nuser@0123456789ab:/app$\n\n\n',
        names,
      ).matched,
      true,
    );
  });
});
