/**
 * An OpenHands V1 conversation folder replayed through `swe-workbench replay` in a container with
 * V1's tools: the editor's `create`, `view`, a refusal, `str_replace`, `insert` and `undo_edit`,
 * `think`, `task_tracker`'s plan and view, commands in the terminal, `grep`, `glob`,
 * `apply_patch`, a reply that called no tool (which runs nothing) and `finish`. The same
 * conversation replayed on a repository with one line changed diverges at the first step that
 * reads it; and a fork of it continues live against the scripted policy in V1's function
 * calling, with V1's tools offered and their observations sent back as tool results.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { command as runCommand } from '../../../extension/cli/run';
import { TrajectorySchema } from '../../../extension/core/trajectory/model';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';

let work: string;
let repo: string;
let folder: string;
let server: PolicyServer;
before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'swb-ohv1-replay-'));
  repo = path.join(work, 'repo');
  await mkdir(repo);
  await writeFile(path.join(repo, 'README'), 'nothing here\n');
  folder = await writeConversation(path.join(work, 'conversation'));
  server = await startPolicyServer([]);
});
after(async () => {
  await server.close();
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

/** The terminal's observation as the SDK stores it, for a command run in /repo in the test image (no `python` on its PATH). */
function terminalObservation(output: string, exitCode = 0) {
  return {
    content: text(output),
    is_error: false,
    metadata: {
      exit_code: exitCode,
      working_dir: '/repo',
      py_interpreter_path: null,
      prefix: '',
      suffix: `\n[The command completed with exit code ${exitCode}.]`,
    },
    kind: 'TerminalObservation',
  };
}

/** The conversation, written as the SDK persists one (`events/event-NNNNN-<id>.json`) into `folder`. */
async function writeConversation(folder: string): Promise<string> {
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
    ...call(13, 'think', { thought: 'The note is there.' }, { content: text('Your thought has been logged.'), is_error: false, kind: 'ThinkObservation' }, 24),
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
    ...call(15, 'terminal', { command: 'wc -l < /repo/note.txt' }, terminalObservation('3'), 28),
    // The first step that reads README.
    ...call(
      29,
      'grep',
      { pattern: 'NOTHING' },
      { content: text("Found 1 file(s) containing pattern 'NOTHING' in '/repo':\n/repo/README"), is_error: false, kind: 'GrepObservation' },
      16,
    ),
    ...call(
      31,
      'glob',
      { pattern: '*.txt' },
      { content: text("Found 1 file(s) matching pattern '*.txt' in '/repo':\n/repo/note.txt"), is_error: false, kind: 'GlobObservation' },
    ),
    ...call(
      33,
      'apply_patch',
      { patch: '*** Begin Patch\n*** Update File: note.txt\n@@\n one\n-TWO\n+two\n*** End Patch' },
      { content: text('Done!'), is_error: false, kind: 'ApplyPatchObservation' },
    ),
    ...call(
      35,
      'apply_patch',
      { patch: '*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch' },
      { content: text('Delete File Error: Missing File: gone.txt'), is_error: true, kind: 'ApplyPatchObservation' },
    ),
    ...call(37, 'terminal', { command: 'cat note.txt' }, terminalObservation('one\ntwo\nTHREE')),
    { id: id(17), source: 'agent', parent_id: id(38), llm_message: { role: 'assistant', content: text('Shall I finish?') }, kind: 'MessageEvent' },
    { id: id(18), source: 'user', parent_id: id(17), llm_message: { role: 'user', content: text('Yes.') }, kind: 'MessageEvent' },
    ...call(19, 'finish', { message: 'Added note.txt.' }, { content: text('Added note.txt.'), is_error: false, kind: 'FinishObservation' }),
  ];
  await mkdir(path.join(folder, 'events'), { recursive: true });
  for (const [i, e] of events.entries()) await writeFile(path.join(folder, 'events', `event-${String(i).padStart(5, '0')}-${e.id}.json`), JSON.stringify(e));
  return folder;
}

async function replay(repoDir: string) {
  const result = await runCli(replayCommand, [folder, '--image', TEST_IMAGE, '--repo', repoDir, '--workdir', '/repo', '--json']);
  const lines = result.stdout.trim().split('\n');
  const summary = (JSON.parse(lines.at(-1)!) as { summary: Record<string, unknown> }).summary;
  const compared = lines.slice(0, -1).map((l) => (JSON.parse(l) as { index: number }).index);
  return { result, summary, compared };
}

describe('OpenHands V1 replay', () => {
  test('a persisted conversation replays with every step matched, in V1 tools', async () => {
    const { result, summary, compared } = await replay(repo);
    assert.match(result.stderr, /scaffold openhands-v1@1 \(an OpenHands V1 conversation/);
    // Every step that runs something matches; the reply that called no tool (step 18) runs nothing and is not compared.
    assert.deepEqual([summary.matched, summary.recorded, summary.firstDivergence, summary.stop], [18, 19, null, 'submitted'], result.stdout + result.stderr);
    assert.deepEqual(compared, [...Array.from({ length: 17 }, (_, i) => i), 18]);
  });

  test('a one-line change in the repository is caught at the first step that reads it', async () => {
    const changed = path.join(work, 'changed');
    await mkdir(changed, { recursive: true });
    await writeFile(path.join(changed, 'README'), 'something here\n');
    const { result, summary } = await replay(changed);
    // Step 13 (index 12) is the grep that reads README: it alone differs, the steps before and after it match.
    assert.deepEqual([summary.matched, summary.firstDivergence], [17, 12], result.stdout + result.stderr);
    assert.equal(result.code, 1);
  });

  test("a fork continues live in V1's function calling: its tools offered, observations sent back as tool results", async () => {
    server.setScript([
      { content: 'Which files mention two?', toolCalls: [{ id: 'live_1', name: 'grep', arguments: JSON.stringify({ pattern: 'two' }) }] },
      {
        content: '',
        toolCalls: [
          { id: 'live_2', name: 'apply_patch', arguments: JSON.stringify({ patch: '*** Begin Patch\n*** Add File: docs/more.txt\n+more\n*** End Patch' }) },
        ],
      },
      { content: '', toolCalls: [{ id: 'live_3', name: 'glob', arguments: JSON.stringify({ pattern: 'docs/*' }) }] },
      { content: '', toolCalls: [{ id: 'live_4', name: 'file_editor', arguments: JSON.stringify({ command: 'view', path: 'docs/more.txt' }) }] },
      { content: '', toolCalls: [{ id: 'live_5', name: 'finish', arguments: JSON.stringify({ message: 'More docs.' }) }] },
    ]);
    const taskFile = path.join(work, 'fork.task.json');
    await writeFile(taskFile, JSON.stringify({ image: TEST_IMAGE, repo, repoPath: '/repo', problemStatement: 'Add a note.' }));
    const out = path.join(work, 'fork.json');
    // From step 12 on (index 11, the terminal's `wc -l`) the policy answers; the first eleven steps are the recording's.
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--fork', folder, '--at', '11']);
    assert.equal(result.code, 0, result.stderr);
    const t = TrajectorySchema.parse(JSON.parse(await readFile(out, 'utf8')));
    assert.equal(t.meta.scaffold, 'openhands-v1@1');
    assert.deepEqual(
      t.steps.slice(11).map((s) => [s.action.tool, s.observation]),
      [
        ['grep', "Found 1 file(s) containing pattern 'two' in '/repo':\n/repo/note.txt"],
        ['apply_patch', 'Done!'],
        ['glob', "Found 1 file(s) matching pattern 'docs/*' in '/repo':\n/repo/docs/more.txt"],
        [
          'file_editor',
          '[An error occurred during execution.]\nInvalid `path` parameter: docs/more.txt. The path should be an absolute path. Maybe you meant /repo/docs/more.txt?',
        ],
        ['finish', 'More docs.'],
      ],
    );
    const first = server.chatRequests.at(-5)!;
    assert.deepEqual(
      (first.tools ?? []).map((x) => x.function.name),
      ['terminal', 'file_editor', 'task_tracker', 'glob', 'grep', 'apply_patch', 'think', 'finish'],
    );
    const second = server.chatRequests.at(-4)!.messages as unknown as { role: string; content: string; tool_call_id?: string }[];
    assert.deepEqual(second.at(-1), { role: 'tool', tool_call_id: 'live_1', content: "Found 1 file(s) containing pattern 'two' in '/repo':\n/repo/note.txt" });
  });
});
