/**
 * Replay, fork and live runs in each scaffold family's own terms: mini-swe-agent's fenced bash
 * in a fresh shell with its templates, R2E-Gym's `<function=...>` XML with its tools, OpenHands'
 * function calls with actions that run nothing, all through `swe-workbench replay` and `run`
 * against the scripted policy server.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { command as runCommand } from '../../../extension/cli/run';
import { TrajectorySchema, type Trajectory } from '../../../extension/core/trajectory/model';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';
import { startPolicyServer, type PolicyServer, type ScriptedReply } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { detectScaffold } from '../../../extension/core/scaffolds/registry';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { ensureR2eTestImage, writeGeneratedRepo } from '../../conformance/r2eOracle';
import { thirdPartyFolder } from '../../helpers/sharedFolder';

const exec = promisify(execFile);
const thirdParty = thirdPartyFolder();
const THIRD_PARTY = thirdParty.dir;

let work: string;
let server: PolicyServer;
let emptyRepo: string;

async function readTrajectory(file: string): Promise<Trajectory> {
  return TrajectorySchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

function summaryOf(stdout: string): Record<string, unknown> {
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { summary: Record<string, unknown> }).summary;
}

/**
 * A mini-swe-agent 1.x run file (`trajectory_format` mini-swe-agent-1) with these commands and
 * the observations it showed, written to `name`; `config` is its `info.config`.
 */
async function miniRun(name: string, config: Record<string, unknown>, steps: [command: string, observation: string][]): Promise<string> {
  const file = path.join(work, name);
  const messages = [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
    ...steps.flatMap(([command, observation]) => [
      { role: 'assistant', content: `\`\`\`bash\n${command}\n\`\`\`` },
      { role: 'user', content: observation },
    ]),
  ];
  await writeFile(file, JSON.stringify({ trajectory_format: 'mini-swe-agent-1', info: { mini_version: '1.17.5', config }, messages }));
  return file;
}

async function task(name: string, fields: Record<string, unknown>): Promise<string> {
  const file = path.join(work, `${name}.task.json`);
  await writeFile(file, JSON.stringify(fields));
  return file;
}

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'swb-scaffolds-'));
  emptyRepo = path.join(work, 'empty');
  await mkdir(emptyRepo);
  await writeFile(path.join(emptyRepo, 'README'), 'nothing here\n');
  await exec('git', ['init', '-q'], { cwd: emptyRepo });
  server = await startPolicyServer([]);
});
after(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

describe('mini-swe-agent', () => {
  const local = path.join(THIRD_PARTY, 'mini-swe-agent/local.traj.json');

  thirdParty.test("mini-swe-agent's own recording replays with every step matched, through its 1.x template", async () => {
    const result = await runCli(replayCommand, [local, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json']);
    const summary = summaryOf(result.stdout);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual([summary.matched, summary.recorded, summary.stop], [2, 2, 'submitted']);
    assert.match(
      result.stderr,
      /scaffold mini-swe-agent@1\.x \(a bare message list without mini_version, fenced with ```mswea_bash_command .*; no step read tells 1\.x, 2\.x apart/,
    );
  });

  test("a recording's own observation template is used, and an unknown --scaffold version says what it falls back to", async () => {
    const file = await miniRun(
      'own-template.traj.json',
      {
        agent: { action_observation_template: 'RC={{output.returncode}} ({{ output.output | length }} chars)\n{{ output.output[:6] }}|' },
        environment: { cwd: '/repo' },
      },
      [['printf "héllo wörld"; exit 3', 'RC=3 (11 chars)\nhéllo |']],
    );
    const detected = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json']);
    assert.equal(summaryOf(detected.stdout).matched, 1, detected.stdout);
    assert.match(detected.stderr, /mini-swe-agent@1\.x \(info\.mini_version is 1\.17\.5\)/);
    const forced = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json', '--scaffold', 'mini-swe-agent@9.0']);
    assert.match(forced.stderr, /mini-swe-agent version 9\.0 is not one we know \(known: 1\.x, 2\.x\); using 2\.x/);
    assert.equal(summaryOf(forced.stdout).matched, 1, 'the recording carries its template, so the version does not change it');
    const unknown = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--scaffold', 'aider@1']).catch((err: Error) => err);
    assert.match(String(unknown), /--scaffold: unknown scaffold 'aider@1'; choose NAME or NAME@VERSION from swe-agent@0\.2, swe-agent@0\.7/);
  });

  test("a command past the recording's timeout is killed and reported with the timeout template", async () => {
    const file = await miniRun('timeout.traj.json', { environment: { timeout: 1 } }, [
      [
        'echo started; sleep 30; echo never',
        'The last command <command>echo started; sleep 30; echo never</command> timed out and has been killed.\nThe output of the command was:\n <output>\nstarted\n\n</output>\nPlease try another command and make sure to avoid those requiring interactive input.',
      ],
    ]);
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json']);
    assert.equal(summaryOf(result.stdout).matched, 1, result.stdout);
  });

  test('a changed repository is caught at the first command that reads the change', async () => {
    const file = await miniRun('three-steps.traj.json', { environment: { cwd: '/repo' } }, [
      ['ls', '<returncode>0</returncode>\n<output>\nREADME\n</output>'],
      ['wc -c README', '<returncode>0</returncode>\n<output>\n13 README\n</output>'],
      ['cat README', '<returncode>0</returncode>\n<output>\nnothing here\n</output>'],
    ]);
    assert.equal(summaryOf((await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json'])).stdout).matched, 3);
    const changed = path.join(work, 'changed-empty');
    await mkdir(changed);
    await writeFile(path.join(changed, 'README'), 'something here\n');
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', changed, '--json']);
    const summary = summaryOf(result.stdout);
    assert.deepEqual([summary.matched, summary.firstDivergence], [1, 1], result.stdout);
    assert.equal(result.code, 1);
  });

  thirdParty.test('a fork continues in fenced bash, each command in a fresh shell, observations in the template', async () => {
    server.setScript([
      { content: 'Go somewhere else.\n\n```bash\ncd /tmp && export FOO=1 && pwd\n```' },
      { content: 'Where am I now?\n\n```bash\npwd; echo "FOO=$FOO"\n```' },
      { content: 'Two blocks.\n```bash\nls\n```\n```bash\npwd\n```' },
      { content: 'Done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```' },
    ]);
    const taskFile = await task('mini', { image: TEST_IMAGE, repo: emptyRepo, repoPath: '/repo', problemStatement: 'Say hello.' });
    const out = path.join(work, 'mini-fork.json');
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--fork', local, '--at', '1']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.equal(t.meta.scaffold, 'mini-swe-agent@1.x');
    assert.equal(t.steps[0]!.observation, '<returncode>0</returncode>\n<output>\nhello world\n</output>');
    assert.equal(t.steps[1]!.observation, '<returncode>0</returncode>\n<output>\n/tmp\n</output>');
    assert.equal(t.steps[2]!.observation, '<returncode>0</returncode>\n<output>\n/repo\nFOO=\n</output>', 'nothing carries over between actions');
    assert.equal(t.steps[3]!.formatError, 'expected exactly one action, found 2');
    assert.match(t.steps[3]!.observation, /^Please always provide EXACTLY ONE action in triple backticks, found 2 actions\./);
    assert.equal(t.steps[4]!.action.args.command, 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT');
    const first = server.chatRequests[0]!;
    assert.equal(first.tools, undefined, 'mini-swe-agent 1.x replies in text');
    const messages = first.messages as unknown as { role: string; content: string }[];
    assert.equal(messages[0]!.content, t.meta.systemPrompt, "the fork keeps the recording's prompts");
    assert.equal(messages[2]!.content, "Here be some dummy command:\n\n```bash\necho 'hello world'\n```");
    assert.equal(messages[3]!.content, '<returncode>0</returncode>\n<output>\nhello world\n</output>');
  });
});

/** mini-swe-agent 2.4.6's `benchmarks/swebench.yaml` templates, as a run with that config keeps them in `info.config`. */
const MINI2_OBSERVATION = `{% if output.exception_info -%}
<exception>{{output.exception_info}}</exception>
{% endif -%}
<returncode>{{output.returncode}}</returncode>
{% if output.output | length < 10000 -%}
<output>
{{ output.output -}}
</output>
{%- else -%}
<warning>
The output of your last command was too long.
</warning>
{%- endif -%}
`;
const MINI2_FORMAT_ERROR = `{% if finish_reason is defined and (finish_reason == "length" or (finish_reason == "tool_calls" and not has_tool_calls)) -%}
Your previous response reached the output token limit (finish_reason={{ finish_reason }}) before you produced a tool call, so it was cut off. Respond more concisely and finish with exactly one bash tool call. If you need to think more, do so briefly.
{%- else -%}
Tool call error:

<error>
{{error}}
</error>

Here is general guidance on how to submit correct toolcalls:

Every response needs to use the 'bash' tool at least once to execute commands.
{%- endif %}
`;
const LOGIN_PROBE = 'shopt -q login_shell && echo login || echo not-login';

/**
 * A mini-swe-agent 2.4.6 run as it writes one with swebench.yaml: `trajectory_format`
 * mini-swe-agent-1.1, tool calls with `extra.actions`, one `role: tool` message per call
 * (rendered by the config's template), several calls in one reply, and the `exit` message.
 */
async function mini2Run(name: string): Promise<string> {
  const observation = (output: string) => `<returncode>0</returncode>\n<output>\n${output}</output>`;
  let id = 0;
  const reply = (thought: string, commands: string[]) => {
    const calls = commands.map((command) => ({ id: `call_${++id}`, command }));
    return {
      message: {
        role: 'assistant',
        content: thought,
        tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: c.command }) } })),
        extra: { actions: calls.map((c) => ({ command: c.command, tool_call_id: c.id })), cost: 0.001, timestamp: 1761000000 + id },
      },
      ids: calls.map((c) => c.id),
    };
  };
  const tool = (toolCallId: string, output: string) => ({
    role: 'tool',
    tool_call_id: toolCallId,
    content: observation(output),
    extra: { raw_output: output, returncode: 0, timestamp: 1761000100, exception_info: '' },
  });
  const first = reply('Look around.', ['cat README']);
  const both = reply('Two things at once.', ['wc -c README', LOGIN_PROBE]);
  const submit = reply('Done.', ['echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat README']);
  const messages = [
    { role: 'system', content: 'You are a helpful assistant that can interact with a computer shell to solve programming tasks.' },
    { role: 'user', content: '<pr_description>\nConsider the following PR description:\nSay hello.\n</pr_description>' },
    first.message,
    tool(first.ids[0]!, 'nothing here\n'),
    both.message,
    tool(both.ids[0]!, '13 README\n'),
    tool(both.ids[1]!, 'not-login\n'),
    submit.message,
    // 2.x writes no tool message for the submitting command: the exit message, the submission, is its result.
    { role: 'exit', content: 'nothing here\n', extra: { exit_status: 'Submitted', submission: 'nothing here\n' } },
  ];
  const config = {
    agent: { step_limit: 250, cost_limit: 3 },
    environment: {
      cwd: '/repo',
      timeout: 60,
      interpreter: ['bash', '-c'],
      env: { PAGER: 'cat', MANPAGER: 'cat', LESS: '-R', PIP_PROGRESS_BAR: 'off', TQDM_DISABLE: '1', BASH_ENV: '/root/.bashrc' },
      environment_class: 'docker',
    },
    model: {
      observation_template: MINI2_OBSERVATION,
      format_error_template: MINI2_FORMAT_ERROR,
      model_name: 'anthropic/claude-sonnet-4-5-20250929',
      model_kwargs: { drop_params: true, parallel_tool_calls: true },
    },
  };
  const file = path.join(work, name);
  await writeFile(
    file,
    JSON.stringify({
      trajectory_format: 'mini-swe-agent-1.1',
      instance_id: 'demo__hello-1',
      info: { mini_version: '2.4.6', exit_status: 'Submitted', submission: 'nothing here\n', config },
      messages,
    }),
  );
  return file;
}

describe('mini-swe-agent 2.x', () => {
  test('a 2.x run with several tool calls in one reply, run by `bash -c`, replays with every step matched', async () => {
    const file = await mini2Run('mini2.traj.json');
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json']);
    const summary = summaryOf(result.stdout);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.deepEqual([summary.matched, summary.recorded, summary.stop], [3, 3, 'submitted']);
    assert.match(result.stderr, /scaffold mini-swe-agent@2\.x \(info\.mini_version is 2\.4\.6\)/);
  });

  test('a one-line change in the repository is caught at the first step that reads it; a submission not what the command prints is caught', async () => {
    const file = await mini2Run('mini2-changed.traj.json');
    const changed = path.join(work, 'changed-mini2');
    await mkdir(changed, { recursive: true });
    await writeFile(path.join(changed, 'README'), 'something here\n');
    const atChange = summaryOf((await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', changed, '--json'])).stdout);
    assert.deepEqual([atChange.matched, atChange.firstDivergence], [0, 0]);
    const run = JSON.parse(await readFile(file, 'utf8')) as { messages: { role: string; content: string }[] };
    run.messages.at(-1)!.content = 'nothing there\n';
    await writeFile(file, JSON.stringify(run));
    const atSubmit = summaryOf((await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json'])).stdout);
    assert.deepEqual([atSubmit.matched, atSubmit.firstDivergence], [2, 2], 'the submitting step compares what it prints with the exit message');
  });

  test("a fork continues with tool calls: several per reply run in order, a reply without one gets 2.x's error, parallel_tool_calls is sent", async () => {
    const file = await mini2Run('mini2-fork.traj.json');
    server.setScript([
      {
        content: 'Where am I, and how?',
        toolCalls: [
          { id: 'live_1', name: 'bash', arguments: JSON.stringify({ command: 'cd /tmp && pwd' }) },
          { id: 'live_2', name: 'bash', arguments: JSON.stringify({ command: `pwd; ${LOGIN_PROBE}` }) },
        ],
      },
      { content: 'I forgot to call anything.' },
      { content: 'Done.', toolCalls: [{ id: 'live_3', name: 'bash', arguments: JSON.stringify({ command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' }) }] },
    ]);
    const taskFile = await task('mini2', { image: TEST_IMAGE, repo: emptyRepo, repoPath: '/repo', problemStatement: 'Say hello.' });
    const out = path.join(work, 'mini2-fork.json');
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--fork', file, '--at', '2']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.equal(t.meta.scaffold, 'mini-swe-agent@2.x');
    assert.deepEqual(
      t.steps[1]!.calls?.map((c) => c.observation),
      ['<returncode>0</returncode>\n<output>\n13 README\n</output>', '<returncode>0</returncode>\n<output>\nnot-login\n</output>'],
    );
    assert.deepEqual(
      t.steps[2]!.calls?.map((c) => [c.action.toolCallId, c.observation]),
      [
        ['live_1', '<returncode>0</returncode>\n<output>\n/tmp\n</output>'],
        ['live_2', '<returncode>0</returncode>\n<output>\n/repo\nnot-login\n</output>'],
      ],
      'each call in a fresh `bash -c` in the recording cwd',
    );
    assert.equal(t.steps[3]!.formatError, 'No tool calls found in the response. Every response MUST include at least one tool call.');
    assert.match(t.steps[3]!.observation, /^Tool call error:\n\n<error>\nNo tool calls found in the response\./);
    assert.equal(t.steps[4]!.action.args.command, 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT');
    assert.equal(t.steps.length, 5);
    const first = server.chatRequests[0]!;
    assert.equal(first.parallel_tool_calls, true, "the recording's model_kwargs");
    assert.deepEqual(
      first.tools?.map((spec) => spec.function.name),
      ['bash'],
    );
    const messages = first.messages as unknown as { role: string; content: string | null; tool_calls?: { id: string }[]; tool_call_id?: string }[];
    assert.deepEqual(
      messages.slice(4, 7).map((m) => [m.role, m.tool_calls?.map((c) => c.id) ?? m.tool_call_id]),
      [
        ['assistant', ['call_2', 'call_3']],
        ['tool', 'call_2'],
        ['tool', 'call_3'],
      ],
      'the recorded reply with two calls goes back as one message and two results',
    );
  });
});

describe('R2E-Gym', () => {
  let image: string;
  let repo: string;
  before(async () => {
    image = await ensureR2eTestImage();
    repo = path.join(work, 'inventory');
    await writeGeneratedRepo(repo);
  });

  test('a live run replies in <function=...> XML, a fork of it continues in R2E-Gym, and its recording replays', async () => {
    const xml = (name: string, params: Record<string, string>) =>
      `<function=${name}>\n${Object.entries(params)
        .map(([k, v]) => `<parameter=${k}>${v}</parameter>`)
        .join('\n')}\n</function>`;
    server.setScript([
      { content: `Find it.\n${xml('search', { search_term: 'def add', path: '/testbed/inventory' })}` },
      { content: `Read it.\n${xml('file_editor', { command: 'view', path: '/testbed/inventory/small.py' })}` },
      { content: 'I will just think about it without calling anything.' },
      { content: `Run it.\n${xml('execute_bash', { cmd: 'python3 -c "print(1 + 1)"' })}` },
      { content: `Done.\n${xml('finish', { command: 'submit' })}` },
    ]);
    const taskFile = await task('r2e', { image, repo, repoPath: '/testbed', problemStatement: 'add() is wrong.' });
    const out = path.join(work, 'r2e-live.json');
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--scaffold', 'r2e-gym']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.equal(t.meta.scaffold, 'r2e-gym@69bc953');
    assert.equal(
      t.steps[0]!.action.raw,
      '<function=search>\n  <parameter=search_term>def add</parameter>\n  <parameter=path>/testbed/inventory</parameter>\n</function>',
    );
    assert.match(
      t.steps[0]!.observation,
      /^Execution output of \[search\]:\nFound 1 matches for "def add" in \/testbed\/inventory:\n\.\/inventory\/small\.py \(1 matches\)\n/,
    );
    assert.match(
      t.steps[1]!.observation,
      /^Execution output of \[file_editor\]:\nHere's the result of running `cat -n` on the file: \/testbed\/inventory\/small\.py:\n     1 def add\(a, b\):/,
    );
    assert.equal(t.steps[2]!.formatError, 'no <function=...> call in the reply');
    assert.equal(t.steps[3]!.observation, 'Exit code: 0\nExecution output of [execute_bash]:\n[STDOUT]\n\n2 \n\n[STDERR]\n\n\n');
    assert.equal(t.steps[4]!.observation, '<<< Finished >>>');
    assert.equal(t.outcome.exitStatus, 'submitted');
    const request = server.chatRequests.at(-5)!;
    assert.equal(request.tools, undefined, 'R2E-Gym gives its tools in the prompt, not as function specs');
    assert.match((request.messages as unknown as { content: string }[])[0]!.content, /---- BEGIN FUNCTION: file_editor ----/);

    const replay = await runCli(replayCommand, [out, '--image', image, '--repo', repo, '--json']);
    assert.equal(summaryOf(replay.stdout).matched, 5, replay.stdout);
    assert.match(replay.stderr, /scaffold r2e-gym@69bc953 \(meta\.scaffold is 'r2e-gym@69bc953'\)/);

    server.setScript([{ content: `Again.\n${xml('execute_bash', { cmd: 'cd /tmp' })}` }, { content: xml('finish', { command: 'submit' }) }]);
    const forkOut = path.join(work, 'r2e-fork.json');
    const fork = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', forkOut, '--fork', out, '--at', '2']);
    assert.equal(fork.code, 0, fork.stderr);
    const forked = await readTrajectory(forkOut);
    assert.deepEqual(
      forked.steps.map((s) => s.action.tool),
      ['search', 'file_editor', 'execute_bash', 'finish'],
    );
    assert.equal(
      forked.steps[2]!.observation,
      "Exit code: Error: Exit code 1\nExecution output of [execute_bash]:\nBash command 'cd' is not allowed. Please use a different command or tool.\n",
    );
    const forkRequest = server.chatRequests.at(-2)!.messages as unknown as { role: string; content: string }[];
    assert.equal(forkRequest.at(-1)!.content, t.steps[1]!.observation, "the observation goes back as R2E-Gym's user message, word for word");
  });
});

describe('OpenHands', () => {
  thirdParty.test('message and finish run nothing: an OpenHands recording of them replays matched', async () => {
    const file = path.join(THIRD_PARTY, 'openhands/basic_interactions.json');
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', emptyRepo, '--json']);
    const summary = summaryOf(result.stdout);
    assert.deepEqual([summary.matched, summary.recorded, summary.stop], [3, 3, 'submitted'], result.stdout);
    assert.match(result.stderr, /scaffold openhands@codeact \(an OpenHands event stream/);
  });

  thirdParty.test("OpenHands' own recording of a read, a shell command and another read replays with every step matched", async () => {
    const workspace = path.join(work, 'workspace');
    await mkdir(workspace);
    await writeFile(path.join(workspace, 'game_2048.py'), 'print("2048")\n');
    const file = path.join(THIRD_PARTY, 'openhands/wrong_initial_state.json');
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', workspace, '--workdir', '/workspace', '--json']);
    const summary = summaryOf(result.stdout);
    assert.deepEqual([summary.matched, summary.recorded, summary.firstDivergence], [4, 4, null], result.stdout);
  });

  thirdParty.test("OpenHands' own recording of a file created with its editor replays matched, the observation being the file's diff", async () => {
    const workspace = path.join(work, 'workspace-2048');
    await mkdir(workspace);
    const file = path.join(THIRD_PARTY, 'openhands/basic.json');
    const result = await runCli(replayCommand, [file, '--image', TEST_IMAGE, '--repo', workspace, '--workdir', '/workspace', '--json']);
    const summary = summaryOf(result.stdout);
    assert.deepEqual([summary.matched, summary.recorded, summary.stop], [2, 2, 'submitted'], result.stdout);
  });

  test('a live run uses function calls; think and a reply without a call run nothing', async () => {
    server.setScript([
      { content: '', toolCalls: [{ name: 'think', arguments: '{"thought": "look at the readme"}' }] },
      { content: '', toolCalls: [{ name: 'execute_bash', arguments: '{"command": "cd /tmp && pwd"}' }] },
      { content: '', toolCalls: [{ name: 'execute_bash', arguments: '{"command": "pwd; cat /repo/README"}' }] },
      { content: '', toolCalls: [{ name: 'str_replace_editor', arguments: '{"command": "view", "path": "/repo/README"}' }] },
      { content: '', toolCalls: [{ name: 'str_replace_editor', arguments: '{"command": "create", "path": "/repo/x", "file_text": "x"}' }] },
      { content: 'The readme says nothing.' },
      { content: '', toolCalls: [{ name: 'finish', arguments: '{}' }] },
    ]);
    const taskFile = await task('openhands', { image: TEST_IMAGE, repo: emptyRepo, repoPath: '/repo', problemStatement: 'Read the readme.' });
    const out = path.join(work, 'openhands-live.json');
    const result = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', out, '--scaffold', 'openhands']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.deepEqual(
      t.steps.map((s) => [s.action.tool, s.observation]),
      [
        ['think', ''],
        ['run', '/tmp'],
        ['run', '/tmp\nnothing here'],
        ['read', "Here's the result of running `cat -n` on /repo/README:\n     1\tnothing here\n     2\t\n"],
        ['edit', '--- /repo/x\n+++ /repo/x\n@@ -1 +1 @@\n-\n+x'],
        ['message', ''],
        ['finish', ''],
      ],
    );
    const offered = (server.chatRequests.at(-7)!.tools ?? []).map((x) => x.function.name);
    assert.deepEqual(offered, ['execute_bash', 'str_replace_editor', 'think', 'finish']);
  });
});

/**
 * `run --out X.traj` writes SWE-agent's format whatever the family, and SWE-agent's detection
 * would claim any such file: the scaffold the file names must win, so a fork reopens, and
 * replays, as the family it was made in.
 */
describe('a fork of each family saved as .traj', () => {
  const xml = (name: string, params: Record<string, string>) =>
    `<function=${name}>\n${Object.entries(params)
      .map(([k, v]) => `<parameter=${k}>${v}</parameter>`)
      .join('\n')}\n</function>`;

  /** A live run in `scaffold` from `first`, then a fork of it after step 1 ending with `last`, saved as .traj; reopened and replayed. */
  async function forkAsTraj(options: { scaffold: string; image: string; repo: string; repoPath: string; first: ScriptedReply; last: ScriptedReply }) {
    const name = options.scaffold.replace(/[^a-z0-9]/gi, '-');
    const taskFile = await task(`${name}-traj`, { image: options.image, repo: options.repo, repoPath: options.repoPath, problemStatement: 'Say hello.' });
    const recording = path.join(work, `${name}-recorded.json`);
    server.setScript([options.first, options.last]);
    const live = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', recording, '--scaffold', options.scaffold]);
    assert.equal(live.code, 0, live.stderr);
    server.setScript([options.last]);
    const saved = path.join(work, `${name}-fork.traj`);
    const fork = await runCli(runCommand, ['--task', taskFile, '--policy-url', server.url, '--out', saved, '--fork', recording, '--at', '1']);
    assert.equal(fork.code, 0, fork.stderr);
    const reopened = await loadTrajectory(saved);
    const replay = await runCli(replayCommand, [saved, '--image', options.image, '--repo', options.repo, '--json']);
    return { format: reopened.format, choice: detectScaffold(reopened.trajectory), steps: reopened.trajectory.steps.length, replay };
  }

  const expectFamily = (got: Awaited<ReturnType<typeof forkAsTraj>>, scaffold: string) => {
    assert.equal(got.format, 'swe-agent', "a .traj is written in SWE-agent's format");
    assert.equal(`${got.choice.name}@${got.choice.version}`, scaffold);
    assert.match(got.choice.reason, /meta\.scaffold is/);
    const summary = summaryOf(got.replay.stdout);
    assert.deepEqual([summary.matched, summary.recorded], [got.steps, got.steps], got.replay.stdout + got.replay.stderr);
    assert.match(got.replay.stderr, new RegExp(`scaffold ${scaffold.replace(/[.]/g, '\\.')} `));
  };

  test('SWE-agent', async () => {
    // submit diffs against the base commit, which the replay of the saved file names.
    const repo = path.join(work, 'committed');
    await mkdir(repo);
    await writeFile(path.join(repo, 'README'), 'nothing here\n');
    await exec('git', ['init', '-q'], { cwd: repo });
    await exec('git', ['add', 'README'], { cwd: repo });
    await exec('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'readme'], { cwd: repo });
    const got = await forkAsTraj({
      scaffold: 'swe-agent',
      image: TEST_IMAGE,
      repo,
      repoPath: '/repo',
      first: { content: 'Look.\n```\ncat README\n```' },
      last: { content: 'Done.\n```\nsubmit\n```' },
    });
    expectFamily(got, 'swe-agent@3ea751c0');
  });

  test('mini-swe-agent', async () => {
    const got = await forkAsTraj({
      scaffold: 'mini-swe-agent@2.x',
      image: TEST_IMAGE,
      repo: emptyRepo,
      repoPath: '/repo',
      first: { content: 'Look.\n\n```mswea_bash_command\ncat README\n```' },
      last: { content: 'Done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat README\n```' },
    });
    expectFamily(got, 'mini-swe-agent@2.x');
  });

  test('R2E-Gym', async () => {
    const image = await ensureR2eTestImage();
    const repo = path.join(work, 'inventory-traj');
    await writeGeneratedRepo(repo);
    const got = await forkAsTraj({
      scaffold: 'r2e-gym',
      image,
      repo,
      repoPath: '/testbed',
      first: { content: `Read it.\n${xml('file_editor', { command: 'view', path: '/testbed/inventory/small.py' })}` },
      last: { content: `Done.\n${xml('finish', { command: 'submit' })}` },
    });
    expectFamily(got, 'r2e-gym@69bc953');
  });

  test('OpenHands', async () => {
    const got = await forkAsTraj({
      scaffold: 'openhands',
      image: TEST_IMAGE,
      repo: emptyRepo,
      repoPath: '/repo',
      first: { content: '', toolCalls: [{ name: 'str_replace_editor', arguments: '{"command": "view", "path": "/repo/README"}' }] },
      last: { content: '', toolCalls: [{ name: 'finish', arguments: '{}' }] },
    });
    expectFamily(got, 'openhands@codeact');
  });
});
