/**
 * Terminus-2 in a real container with tmux and `/app`: Harbor's own recordings (ATIF, with
 * context summarisation, linear history and its continuation, and the summarising subagents)
 * replayed through `swe-workbench replay`, a one-line change in `/app` caught where the screen
 * shows it, and a live run and a fork against the scripted policy server speaking Terminus-2's
 * prompt and JSON or XML replies.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { command as runCommand } from '../../../extension/cli/run';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { TrajectorySchema, type Trajectory } from '../../../extension/core/trajectory/model';
import { runCli } from '../../helpers/cliRunner';
import { thirdPartyFolder } from '../../helpers/sharedFolder';
import { repoRoot } from '../../helpers/trajectoryFiles';
import { BASE_IMAGE } from '../../helpers/aciSandbox';
import { ensureTmuxTestImage } from '../../helpers/tmuxImage';

const thirdParty = thirdPartyFolder();
const golden = (name: string) => thirdParty.path('harbor/golden/terminus_2', name);
const MAIN = 'hello-world-context-summarization.trajectory.json';

let work: string;
let app: string;
let image: string;
let server: PolicyServer;

interface Summary {
  recorded: number;
  matched: number;
  firstDivergence: number | null;
  stop: string;
}

function summaryOf(stdout: string): Summary {
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { summary: Summary }).summary;
}

async function readTrajectory(file: string): Promise<Trajectory> {
  return TrajectorySchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

before(async () => {
  image = await ensureTmuxTestImage();
  work = await mkdtemp(path.join(tmpdir(), 'swb-terminus-'));
  app = path.join(work, 'app');
  await mkdir(app);
  server = await startPolicyServer([]);
});
after(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

describe("Harbor's Terminus-2 recordings replay", () => {
  // Agent steps that ran keystrokes; summarisation turns, copied questions and answers run nothing.
  // The linear history's first file opens joined with its continuation: one run, 3 + 4 steps.
  const RECORDINGS: [file: string, replayed: number][] = [
    [MAIN, 7],
    ['hello-world-context-summarization-linear-history.trajectory.json', 7],
    ['hello-world-context-summarization-linear-history.trajectory.cont-1.json', 4],
    ['hello-world-context-summarization.trajectory.summarization-1-summary.json', 2],
    ['hello-world-context-summarization.trajectory.summarization-1-answers.json', 2],
    ['hello-world-context-summarization.trajectory.summarization-1-questions.json', 0],
    // Harbor's timeout run (from the corpus): `sleep 5` given 5 seconds, finished when the screen was read.
    [path.join(repoRoot, 'test/fixtures/recordings/atif/terminus-2.timeout.v1.6.json'), 3],
  ];
  for (const [file, replayed] of RECORDINGS) {
    thirdParty.test(`${path.basename(file)}: every agent step matched`, { timeout: 120_000 }, async () => {
      const result = await runCli(replayCommand, [path.isAbsolute(file) ? file : golden(file), '--image', image, '--repo', app, '--json']);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      const summary = summaryOf(result.stdout);
      assert.deepEqual([summary.matched, summary.firstDivergence], [replayed, null], result.stdout);
      assert.match(result.stderr, /scaffold terminus-2@2\.0\.0 \(meta\.scaffold is 'terminus-2[\w-]*@2\.0\.0'/);
    });
  }

  thirdParty.test(
    'the summarisation turns show in the replayed trajectory and run nothing; completion needs its confirmation',
    { timeout: 120_000 },
    async () => {
      const out = path.join(work, 'main-replayed.json');
      const result = await runCli(runCommand, [
        '--task',
        await taskFile('main'),
        '--policy-url',
        server.url,
        '--out',
        out,
        '--fork',
        golden(MAIN),
        '--at',
        '9',
      ]);
      assert.equal(result.code, 0, result.stderr);
      const t = await readTrajectory(out);
      assert.deepEqual(
        t.steps.map((s) => s.flags?.filter((f) => f.startsWith('atif-')) ?? []),
        [[], [], [], ['atif-system'], ['atif-user'], [], [], [], []],
      );
      assert.match(
        t.steps[3]!.observation,
        /^\[subagent trajectory: trajectory\.summarization-1-summary\.json, session test-session-context-summarization-summarization-1-summary/,
      );
      assert.equal(t.steps[4]!.observation, '', 'the handoff prompt ran nothing');
      assert.match(
        t.steps[7]!.observation,
        /^Current terminal state:\nNew Terminal Output:\n\nroot@[0-9a-f]{12}:\/app#\n[\s\S]*Are you sure you want to mark the task as complete\?/,
      );
      assert.equal(t.outcome.exitStatus, 'submitted', 'the second task_complete in a row ends the run');
      assert.equal(server.chatRequests.length, 0, 'the recording had every step: the policy was not asked');
    },
  );

  thirdParty.test(
    'the linear history as Terminus-2 2.0.0 writes it since Harbor 6c9ba3f (ATIF-v1.7, its own file names) replays as one run',
    { timeout: 120_000 },
    async () => {
      const logs = path.join(work, 'agent-logs');
      await mkdir(logs, { recursive: true });
      for (const [from, to] of [
        ['hello-world-context-summarization-linear-history.trajectory.json', 'trajectory.json'],
        ['hello-world-context-summarization-linear-history.trajectory.cont-1.json', 'trajectory.cont-1.json'],
      ] as const) {
        const doc = JSON.parse(await readFile(golden(from), 'utf8')) as Record<string, unknown>;
        await writeFile(path.join(logs, to), JSON.stringify({ ...doc, schema_version: 'ATIF-v1.7' }));
      }
      const result = await runCli(replayCommand, [path.join(logs, 'trajectory.json'), '--image', image, '--repo', app, '--json']);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.deepEqual([summaryOf(result.stdout).matched, summaryOf(result.stdout).firstDivergence], [7, null], result.stdout);
    },
  );

  thirdParty.test('a one-line change in /app is caught at the first step whose screen shows it', { timeout: 120_000 }, async () => {
    const changed = path.join(work, 'changed');
    await mkdir(changed);
    await writeFile(path.join(changed, 'test_dir'), 'one line\n');
    const result = await runCli(replayCommand, [golden(MAIN), '--image', image, '--repo', changed, '--json']);
    assert.equal(result.code, 1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index?: number; matched?: boolean; diff?: string });
    const first = lines.find((l) => l.matched === false)!;
    assert.equal(first.index, 0);
    assert.match(first.diff!, /^\+mkdir: cannot create directory 'test_dir': File exists$/m);
    assert.equal(summaryOf(result.stdout).firstDivergence, 0);
    // A change no step reads is not a divergence: the continuation writes and reads hello.txt only.
    const cont = await runCli(replayCommand, [
      golden('hello-world-context-summarization-linear-history.trajectory.cont-1.json'),
      '--image',
      image,
      '--repo',
      changed,
      '--json',
    ]);
    assert.equal(summaryOf(cont.stdout).firstDivergence, null, cont.stdout);
  });
});

async function taskFile(name: string, problemStatement = 'Create a file called hello.txt with "Hello, world!" as the content.'): Promise<string> {
  const file = path.join(work, `${name}.task.json`);
  await writeFile(file, JSON.stringify({ image, repo: app, repoPath: '/app', problemStatement }));
  return file;
}

type Message = { role: string; content: string | null };

describe('an image without tmux', () => {
  thirdParty.test('says what is missing and how to add it', { timeout: 120_000 }, async () => {
    const error = await runCli(replayCommand, [golden(MAIN), '--image', BASE_IMAGE, '--repo', app]).then(
      () => assert.fail('a replay without tmux cannot start'),
      (err: Error) => err,
    );
    assert.match(
      error.message,
      /^could not start the sandbox: Terminus-2 drives a tmux session, and the task's image has no tmux \(`tmux -V` failed in its container\)/,
    );
    assert.match(error.message, /apt-get download tmux libevent-core-2\.1-7 libutempter0/);
  });
});

describe('Terminus-2 live and fork runs', () => {
  // Terminus-2 reads the screen once a command's duration has passed, as Harbor does: a command
  // whose output a test asserts gets a second, so a busy machine cannot print it late.
  test('a live run speaks JSON: first prompt with the screen, batches, an unparsed reply, warnings, the confirmation turn', { timeout: 180_000 }, async () => {
    const reply = (o: unknown) => ({ content: JSON.stringify(o, null, 2) });
    server.setScript([
      reply({
        analysis: 'Nothing yet.',
        plan: 'Write the file, then show it.',
        commands: [
          { keystrokes: "printf 'Hello, world!\\n' > hello.txt\n", duration: 0.1 },
          { keystrokes: 'cat hello.txt\n', duration: 1 },
        ],
      }),
      { content: '{"analysis": "oops" "plan": "p", "commands": []}' },
      { content: `Here it is:\n${JSON.stringify({ analysis: 'Check.', plan: 'List.', commands: [{ keystrokes: 'ls\n' }] })}` },
      { content: JSON.stringify({ analysis: 'Wait.', plan: 'Run long.', commands: [{ keystrokes: 'sleep 10; echo slept\n', duration: 0.2 }] }) },
      { content: JSON.stringify({ analysis: 'Stop it.', plan: 'C-c.', commands: [{ keystrokes: 'C-c', duration: 0.3 }] }) },
      reply({ analysis: 'Done.', plan: 'Finish.', commands: [], task_complete: true }),
      reply({ analysis: 'Sure.', plan: 'Confirm.', commands: [], task_complete: true }),
    ]);
    const out = path.join(work, 'live.json');
    const result = await runCli(runCommand, ['--task', await taskFile('live'), '--policy-url', server.url, '--out', out, '--scaffold', 'terminus-2']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.equal(t.meta.scaffold, 'terminus-2@2.0.0');
    const host = /root@([0-9a-f]{12}):\/app#/.exec(t.steps[0]!.observation)?.[1];
    assert.ok(host, t.steps[0]!.observation);

    const first = server.chatRequests.at(-7)!;
    const messages = first.messages as unknown as Message[];
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user'],
      'Terminus-2 sends no system message',
    );
    assert.match(messages[0]!.content!, /^You are an AI assistant tasked with solving command-line tasks in a Linux environment\./);
    assert.match(
      messages[0]!.content!,
      /Task Description:\nCreate a file called hello\.txt with "Hello, world!" as the content\.\n\nCurrent terminal state:\nCurrent Terminal Screen:\nroot@[0-9a-f]{12}:\/app#\n/,
    );
    assert.equal(first.tools, undefined);
    assert.equal(t.meta.instructions, messages[0]!.content, 'the recording keeps the first prompt as the model read it, screen included');

    const [batch, unparsed, warned, running, stopped, asked, confirmed] = t.steps;
    assert.equal(batch!.thought, 'Analysis: Nothing yet.\nPlan: Write the file, then show it.');
    assert.deepEqual(
      batch!.calls?.map((c) => c.action.args),
      [
        { keystrokes: "printf 'Hello, world!\\n' > hello.txt\n", duration: 0.1 },
        { keystrokes: 'cat hello.txt\n', duration: 1 },
      ],
    );
    assert.match(
      batch!.observation,
      new RegExp(
        `^New Terminal Output:\\nroot@${host}:/app# printf 'Hello, world!\\\\n' > hello.txt\\nroot@${host}:/app# cat hello.txt\\nHello, world!\\nroot@${host}:/app#\\n`,
      ),
    );
    assert.equal(unparsed!.action.tool, null);
    assert.equal(
      unparsed!.formatError,
      `Invalid JSON: Expecting ',' delimiter: line 1 column 21 (char 20) | Content: '{"analysis": "oops" "plan": "p", "commands": []}'`,
    );
    assert.match(
      unparsed!.observation,
      /^Previous response had parsing errors:\nERROR: Invalid JSON: [\s\S]*\n\nPlease fix these issues and provide a proper JSON response\.$/,
    );
    assert.match(
      warned!.observation,
      /^Previous response had warnings:\nWARNINGS: - Extra text detected before JSON object\n- Command 1: Missing duration field, using default 1\.0\n\nNew Terminal Output:\n/,
    );
    assert.match(running!.observation, /sleep 10; echo slept\n/);
    assert.doesNotMatch(running!.observation, /^slept$/m, 'the duration ended before the command did');
    assert.match(stopped!.observation, /\^C\n/);
    assert.match(
      asked!.observation,
      /^Current terminal state:\n[\s\S]*\n\nAre you sure you want to mark the task as complete\? [\s\S]*include "task_complete": true in your JSON response again\.$/,
    );
    assert.deepEqual([asked!.action.tool, confirmed!.action.tool], ['mark_task_complete', 'mark_task_complete']);
    assert.equal(t.steps.length, 7);
    assert.equal(t.outcome.exitStatus, 'submitted');

    // The history goes back as Terminus-2 keeps it: the reply as JSON, an unparsed reply as written, each observation as the next user message.
    const last = server.chatRequests.at(-1)!.messages as unknown as Message[];
    assert.deepEqual(JSON.parse(last[1]!.content!), {
      analysis: 'Nothing yet.',
      plan: 'Write the file, then show it.',
      commands: [
        { keystrokes: "printf 'Hello, world!\\n' > hello.txt\n", duration: 0.1 },
        { keystrokes: 'cat hello.txt\n', duration: 1 },
      ],
      task_complete: false,
    });
    assert.equal(last[2]!.content, batch!.observation);
    assert.equal(last[3]!.content, '{"analysis": "oops" "plan": "p", "commands": []}');
    assert.equal(last[4]!.content, unparsed!.observation);
  });

  test('XML replies: commands, an empty batch that only reads the screen, completion', { timeout: 120_000 }, async () => {
    // One command with no background job: `echo xml &gt; out.txt` would put `echo xml` in the
    // background, and its output and job notices reach the screen in no fixed order.
    server.setScript([
      {
        content:
          '<response>\n<analysis>Start.</analysis>\n<plan>Make it.</plan>\n<commands>\n<keystrokes duration="1">echo \'xml &gt; out.txt\'\n</keystrokes>\n</commands>\n</response>',
      },
      { content: '<response><analysis>Look.</analysis><plan>Wait.</plan><commands></commands></response>' },
      { content: '<response><analysis>Done.</analysis><plan>End.</plan><commands/><task_complete>true</task_complete></response>' },
      { content: '<response><analysis>Yes.</analysis><plan>End.</plan><commands/><task_complete>true</task_complete></response>' },
    ]);
    const out = path.join(work, 'live-xml.json');
    const file = path.join(work, 'xml.task.json');
    // No repoPath: Terminus-2's tasks live in /app.
    await writeFile(file, JSON.stringify({ image, repo: app, problemStatement: 'Write xml.' }));
    const seed = path.join(work, 'xml-seed.json');
    // The reply format is the recording's (`agent.extra.parser`): a fork of an XML run at step 0.
    await writeFile(
      seed,
      JSON.stringify({
        schema_version: 'ATIF-v1.6',
        session_id: 'xml-seed',
        agent: { name: 'terminus-2', version: '2.0.0', model_name: 'scripted', extra: { parser: 'xml' } },
        steps: [{ step_id: 1, source: 'user', message: 'Write xml.' }],
      }),
    );
    const result = await runCli(runCommand, ['--task', file, '--policy-url', server.url, '--out', out, '--fork', seed, '--at', '0']);
    assert.equal(result.code, 0, result.stderr);
    const t = await readTrajectory(out);
    assert.equal(t.meta.parseFunction, 'terminus_xml');
    const [write, look, asked] = t.steps;
    assert.equal(write!.action.args.keystrokes, "echo 'xml &gt; out.txt'\n");
    assert.match(write!.observation, /^Previous response had warnings:\nWARNINGS: - Warning: &gt; is read verbatim and not converted to >\./);
    assert.equal(look!.action.tool, null);
    assert.match(look!.observation, /^Previous response had warnings:\nWARNINGS: - Commands section is empty; not taking any action\./);
    assert.match(
      look!.observation,
      /\n\nNew Terminal Output:\n\nroot@[0-9a-f]{12}:\/app#\n/,
      "nothing new: Harbor's arithmetic still shows the last prompt line",
    );
    assert.match(asked!.observation, /include <task_complete>true<\/task_complete> again\.$/);
    assert.equal(t.outcome.exitStatus, 'submitted');

    // The run's own recording replays step for step in a new container (another host name).
    const replay = await runCli(replayCommand, [out, '--image', image, '--repo', app, '--json']);
    assert.deepEqual([summaryOf(replay.stdout).matched, summaryOf(replay.stdout).firstDivergence], [4, null], replay.stdout);
  });

  thirdParty.test("a fork of Harbor's recording continues in Terminus-2's JSON with the recording's prompt", { timeout: 120_000 }, async () => {
    server.setScript([
      {
        content: JSON.stringify({
          analysis: 'Check again.',
          plan: 'cat.',
          commands: [{ keystrokes: 'cat test_dir/file1.txt\n', duration: 1 }],
          task_complete: false,
        }),
      },
    ]);
    const out = path.join(work, 'fork.json');
    const result = await runCli(runCommand, [
      '--task',
      await taskFile('fork'),
      '--policy-url',
      server.url,
      '--out',
      out,
      '--fork',
      golden(MAIN),
      '--at',
      '3',
      '--max-steps',
      '4',
    ]);
    assert.equal(result.code, 1, 'stopped at --max-steps before completing');
    const t = await readTrajectory(out);
    assert.match(t.steps[3]!.observation, /^New Terminal Output:\n\nroot@[0-9a-f]{12}:\/app# cat test_dir\/file1\.txt\ntest1\n/);
    const messages = server.chatRequests.at(-1)!.messages as unknown as Message[];
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.match(messages[0]!.content!, /Current terminal state:\nCurrent Terminal Screen:\n\n$/, "the recording's own first prompt");
    assert.deepEqual(JSON.parse(messages[1]!.content!).commands, [{ keystrokes: 'mkdir test_dir\n', duration: 0.1 }]);
    assert.match(messages[2]!.content!, /^New Terminal Output:\nroot@[0-9a-f]{12}:\/app# mkdir test_dir\n/, 'the replayed observation');
  });
});
