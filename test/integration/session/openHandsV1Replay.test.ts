/**
 * An OpenHands V1 conversation folder replayed through `swe-workbench replay` in a container with
 * V1's tools: the editor's `create`, `view`, a refusal, `str_replace`, `insert` and `undo_edit`,
 * `think`, `task_tracker`'s plan and view, a command in the terminal and `finish`,
 * then a reply that called no tool, which runs nothing.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';

let work: string;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'swb-ohv1-replay-'));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

const id = (n: number) => `cccccccc-0000-4000-8000-${String(n).padStart(12, '0')}`;
const text = (t: string) => [{ type: 'text', text: t }];

/** One tool call and its observation, as the SDK writes them, events `n` and `n + 1`. */
function call(n: number, tool: string, args: Record<string, unknown>, observation: Record<string, unknown>, parent = n - 1) {
  return [
    {
      id: id(n),
      source: 'agent',
      parent_id: id(parent),
      thought: [],
      action: { ...args, kind: 'Action' },
      tool_name: tool,
      tool_call_id: `c${n}`,
      tool_call: { id: `c${n}`, name: tool, arguments: JSON.stringify(args), origin: 'completion' },
      llm_response_id: `r${n}`,
      kind: 'ActionEvent',
    },
    { id: id(n + 1), source: 'environment', parent_id: id(n), tool_name: tool, tool_call_id: `c${n}`, observation, action_id: id(n), kind: 'ObservationEvent' },
  ];
}

describe('OpenHands V1 replay', () => {
  test('a persisted conversation replays with every step matched, in V1 tools', async () => {
    const repo = path.join(work, 'repo');
    await mkdir(repo);
    await writeFile(path.join(repo, 'README'), 'nothing here\n');
    const events = [
      { id: id(0), source: 'user', llm_message: { role: 'user', content: text('Add a note.') }, kind: 'MessageEvent' },
      ...call(
        1,
        'file_editor',
        { command: 'create', path: '/repo/note.txt', file_text: 'one\ntwo\n' },
        { content: text('File created successfully at: /repo/note.txt'), is_error: false, kind: 'FileEditorObservation' },
      ),
      ...call(
        3,
        'file_editor',
        { command: 'view', path: '/repo/note.txt' },
        {
          content: text("Here's the result of running `cat -n` on /repo/note.txt:\n     1\tone\n     2\ttwo\n     3\t\n"),
          is_error: false,
          kind: 'FileEditorObservation',
        },
      ),
      ...call(
        5,
        'file_editor',
        { command: 'create', path: '/repo/note.txt', file_text: 'x' },
        {
          content: text('Invalid `path` parameter: /repo/note.txt. File already exists at: /repo/note.txt. Cannot overwrite files using command `create`.'),
          is_error: true,
          kind: 'FileEditorObservation',
        },
      ),
      ...call(
        7,
        'file_editor',
        { command: 'str_replace', path: '/repo/note.txt', old_str: 'two', new_str: 'TWO\nthree' },
        {
          content: text(
            "The file /repo/note.txt has been edited. Here's the result of running `cat -n` on a snippet of /repo/note.txt:\n     1\tone\n     2\tTWO\n     3\tthree\n     4\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
          ),
          is_error: false,
          kind: 'FileEditorObservation',
        },
      ),
      ...call(
        9,
        'file_editor',
        { command: 'insert', path: '/repo/note.txt', insert_line: 1, new_str: 'x' },
        {
          content: text(
            "The file /repo/note.txt has been edited. Here's the result of running `cat -n` on a snippet of the edited file:\n     1\tone\n     2\tx\n     3\tTWO\n     4\tthree\n     5\t\nReview the changes and make sure they are as expected (correct indentation, no duplicate lines, etc). Edit the file again if necessary.",
          ),
          is_error: false,
          kind: 'FileEditorObservation',
        },
      ),
      ...call(
        11,
        'file_editor',
        { command: 'undo_edit', path: '/repo/note.txt' },
        {
          content: text(
            "Last edit to /repo/note.txt undone successfully. Here's the result of running `cat -n` on /repo/note.txt:\n     1\tone\n     2\tTWO\n     3\tthree\n     4\t\n",
          ),
          is_error: false,
          kind: 'FileEditorObservation',
        },
      ),
      // old_str not found as given is tried again stripped; one found twice is refused with its line.
      ...call(
        21,
        'file_editor',
        { command: 'str_replace', path: '/repo/note.txt', old_str: '  three ', new_str: 'THREE' },
        {
          content: text(
            "The file /repo/note.txt has been edited. Here's the result of running `cat -n` on a snippet of /repo/note.txt:\n     1\tone\n     2\tTWO\n     3\tTHREE\n     4\t\nReview the changes and make sure they are as expected. Edit the file again if necessary.",
          ),
          is_error: false,
          kind: 'FileEditorObservation',
        },
        12,
      ),
      ...call(
        23,
        'file_editor',
        { command: 'str_replace', path: '/repo/note.txt', old_str: 'E', new_str: 'e' },
        {
          content: text('No replacement was performed. Multiple occurrences of old_str `E` in lines [3]. Please ensure it is unique.'),
          is_error: true,
          kind: 'FileEditorObservation',
        },
      ),
      ...call(
        13,
        'think',
        { thought: 'The note is there.' },
        { content: text('Your thought has been logged.'), is_error: false, kind: 'ThinkObservation' },
        24,
      ),
      ...call(
        25,
        'task_tracker',
        {
          command: 'plan',
          task_list: [
            { title: 'Write note', notes: 'the note file', status: 'todo' },
            { title: 'Check', status: 'done' },
          ],
        },
        { content: text('Task list has been updated with 2 item(s).'), is_error: false, kind: 'TaskTrackerObservation' },
        14,
      ),
      ...call(
        27,
        'task_tracker',
        { command: 'view' },
        {
          content: text('# Task List\n\n1. ⏳ Write note\n   the note file\n\n2. ✅ Check'),
          is_error: false,
          kind: 'TaskTrackerObservation',
        },
      ),
      ...call(
        15,
        'terminal',
        { command: 'wc -l < /repo/note.txt' },
        {
          content: text('3'),
          is_error: false,
          // The PS1 metadata of the test image's shell: no `python` on its PATH.
          metadata: { exit_code: 0, working_dir: '/repo', py_interpreter_path: null, prefix: '', suffix: '\n[The command completed with exit code 0.]' },
          kind: 'TerminalObservation',
        },
        28,
      ),
      { id: id(17), source: 'agent', parent_id: id(16), llm_message: { role: 'assistant', content: text('Shall I finish?') }, kind: 'MessageEvent' },
      { id: id(18), source: 'user', parent_id: id(17), llm_message: { role: 'user', content: text('Yes.') }, kind: 'MessageEvent' },
      ...call(19, 'finish', { message: 'Added note.txt.' }, { content: text('Added note.txt.'), is_error: false, kind: 'FinishObservation' }),
    ];
    const folder = path.join(work, 'conversation');
    await mkdir(path.join(folder, 'events'), { recursive: true });
    for (const [i, e] of events.entries()) await writeFile(path.join(folder, 'events', `event-${String(i).padStart(5, '0')}-${e.id}.json`), JSON.stringify(e));
    const result = await runCli(replayCommand, [folder, '--image', TEST_IMAGE, '--repo', repo, '--workdir', '/repo', '--json']);
    assert.match(result.stderr, /scaffold openhands-v1@1 \(an OpenHands V1 conversation/);
    const lines = result.stdout.trim().split('\n');
    const summary = (JSON.parse(lines.at(-1)!) as { summary: Record<string, unknown> }).summary;
    // Every step that runs something matches; the reply that called no tool (step 13) runs nothing and is not compared.
    assert.deepEqual([summary.matched, summary.recorded, summary.firstDivergence, summary.stop], [13, 14, null, 'submitted'], result.stdout + result.stderr);
    const compared = lines.slice(0, -1).map((l) => (JSON.parse(l) as { index: number }).index);
    assert.deepEqual(compared, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]);
  });
});
