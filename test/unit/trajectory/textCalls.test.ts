/**
 * Calls written in a reply's text, and the scaffold labels that rest on what a file shows.
 *
 * Real files (none written here): in ../shared/fixtures/third-party (its MANIFEST.tsv), and in
 * test/fixtures/recordings, copied unchanged:
 *   swe-smith-ft/ft_xml_example.jsonl          SWE-bench/SWE-smith@cf2e649 tests/test_logs/ft_xml_example.jsonl (MIT)
 *   openhands-v0/resolver.output.jsonl         All-Hands-AI/OpenHands@f50f8a1 tests/unit/resolver/mock_output/output.jsonl (MIT)
 *   openhands-v1/{non,}fncall-llm-message.json OpenHands/software-agent-sdk@611629e tests/fixtures/llm_data/ (MIT)
 *   atif/openhands.no-function-calling.v1.5.json  kleinzcy/harbor@79d9bd3 tests/golden/openhands/hello-world.trajectory.no_function_calling.json (Apache-2.0)
 *   swe-agent-0.x/*.traj                       SWE-agent/SWE-agent@dc18a74 (tag v0.7.0) demonstrations and test data (MIT)
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { InputError } from '../../../extension/core/errors';
import { describeChoice, detectScaffold, evidencedScaffoldName, scaffoldLabel } from '../../../extension/core/scaffolds/registry';
import { writeTrajectoryFile } from '../../../extension/core/session/trajectoryRecorder';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { textCallFormat } from '../../../extension/core/trajectory/textCalls';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const recording = (...parts: string[]) => path.resolve(__dirname, '../../fixtures/recordings', ...parts);

/** The steps whose action names no tool, counted from 1 as a person reads them. */
const withoutAction = (t: Trajectory) => t.steps.filter((s) => s.action.tool === null).map((s) => s.index + 1);

describe('which text format a file writes its calls in', () => {
  test('<function=...> calls: the name and parameters, the text before the call is the thought', () => {
    const reading = textCallFormat([
      'Look first.\n\n<function=str_replace_editor>\n<parameter=command>view</parameter>\n<parameter=path>/testbed</parameter>\n</function>',
      'Run it.\n<function=bash>\n<parameter=command>python x.py</parameter>\n</function>',
    ])!;
    assert.equal(reading.format, 'xml_function_calling');
    const read = reading.read('Run it.\n<function=bash>\n<parameter=command>python x.py</parameter>\n</function>');
    assert.equal(read.thought, 'Run it.');
    assert.deepEqual(read.calls[0]!.action, {
      raw: '<function=bash>\n<parameter=command>python x.py</parameter>\n</function>',
      tool: 'bash',
      args: { command: 'python x.py' },
    });
  });

  test('a chat that quotes a code block now and then is not a run of commands', () => {
    const answers = ['Sure, here is how:\n```\nls -la\n```', 'You are welcome.', 'It depends on the data.', 'Yes.'];
    assert.equal(textCallFormat(answers), undefined);
  });

  test('the system prompt asking for <function=...> decides; a reply without a call then says why it has no action', () => {
    const reading = textCallFormat(
      ['Thinking it over.', 'Still thinking.', 'Now:\n<function=submit>\n</function>'],
      'Reply in this format:\n<function=example_function_name>',
    )!;
    assert.equal(reading.format, 'xml_function_calling');
    assert.match(reading.reason, /as the system prompt asks$/);
    const read = reading.read('Thinking it over.');
    assert.equal(read.calls[0]!.action.tool, null);
    assert.match(read.calls[0]!.formatError ?? '', /^no call in the reply: the file's other replies hold a <function=NAME>\.\.\.<\/function> call$/);
  });

  test("```bash blocks are mini-swe-agent's; a bare ``` block is SWE-agent's thought_action, run in its shell", () => {
    assert.equal(
      textCallFormat(['THOUGHT: list.\n\n```bash\nls\n```', 'THOUGHT: done.\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```'])!.format,
      'bash_block',
    );
    const swe = textCallFormat(['DISCUSSION\nOpen it.\n\n```\nopen src/x.py 40\n```', 'DISCUSSION\nGo.\n\n```\ngoto 80\n```'])!;
    assert.equal(swe.format, 'thought_action');
    assert.deepEqual(swe.read('DISCUSSION\nGo.\n\n```\ngoto 80\n```').calls[0]!.action, { raw: 'goto 80', tool: 'bash', args: { command: 'goto 80' } });
  });

  test('<tool_call> JSON: its name and arguments; one that is not JSON keeps its text and says why', () => {
    const reading = textCallFormat(['Edit.\n<tool_call>\n{"name": "finish", "arguments": {"message": "done"}}\n</tool_call>'])!;
    assert.equal(reading.format, 'tool_call_json');
    assert.deepEqual(reading.read('Edit.\n<tool_call>\n{"name": "finish", "arguments": {"message": "done"}}\n</tool_call>').calls[0]!.action.args, {
      message: 'done',
    });
    const broken = reading.read('<tool_call>{"name": "finish", </tool_call>').calls[0]!;
    assert.equal(broken.action.tool, null);
    assert.equal(broken.action.raw, '<tool_call>{"name": "finish", </tool_call>');
    assert.match(broken.formatError ?? '', /^a <tool_call> that is not JSON/);
  });
});

describe("SWE-smith's fine-tuning data: <function=...> calls in OpenAI messages", () => {
  for (const [record, steps] of [
    [0, 37],
    [1, 44],
    [2, 22],
  ] as const) {
    test(`record ${record}: ${steps} steps, each with its call, labelled SWE-agent with its 1.x versions undecided`, async () => {
      const loaded = await loadTrajectory(recording('swe-smith-ft/ft_xml_example.jsonl'), { record });
      const t = loaded.trajectory;
      assert.equal(loaded.format, 'openai-messages');
      assert.equal(t.steps.length, steps);
      assert.deepEqual(withoutAction(t), []);
      assert.equal(t.meta.parseFunction, 'xml_function_calling');
      assert.ok(t.steps.every((s) => ['bash', 'str_replace_editor', 'submit'].includes(s.action.tool!)));
      assert.equal(t.steps.at(-1)!.action.tool, 'submit');
      const choice = detectScaffold(t);
      assert.equal(choice.name, 'swe-agent');
      assert.deepEqual(choice.undecided, ['3ea751c0', '1.1.0', '1.0.1', '1.0.0']);
      assert.equal(evidencedScaffoldName(choice), 'swe-agent', 'an export names the family, not a version the file does not show');
    });
  }

  test('the first call: its command as written, the text before it the thought, the instance named', async () => {
    const { trajectory: t } = await loadTrajectory(recording('swe-smith-ft/ft_xml_example.jsonl'));
    const first = t.steps[0]!;
    assert.equal(first.action.tool, 'bash');
    assert.equal(first.action.args.command, 'find /testbed -type f -name "*.py" | grep -v "__pycache__" | grep -v "test_" | head -20');
    assert.match(first.thought, /First, let's explore the repository structure to get a better understanding of the codebase\.$/);
    assert.match(first.observation, /^OBSERVATION:\n\/testbed\/scripts\//);
    assert.match(t.task.instanceId ?? '', /^pandas-dev__pandas\./);
  });
});

describe("Harbor's traces: one step per LLM call, its calls read from the reply's text", () => {
  thirdPartyFiles.test('OpenHands without function calling: execute_bash then finish, labelled OpenHands', async () => {
    const loaded = await loadTrajectory(thirdParty('harbor/golden/openhands/hello-world-no_function_calling.traces.json'));
    const t = loaded.trajectory;
    assert.equal(loaded.format, 'harbor-traces');
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['execute_bash', 'finish'],
    );
    assert.match(String(t.steps[0]!.action.args.command), /^cat > \/app\/hello\.txt << 'EOF'\nHello, world!\nEOF$/);
    assert.match(t.steps[0]!.observation, /\[The command completed with exit code 0\.\]/);
    assert.equal(t.meta.parseFunction, 'xml_function_calling');
    assert.equal(t.meta.model, 'gpt-4o');
    assert.equal(detectScaffold(t).name, 'openhands');
  });

  thirdPartyFiles.test('OpenHands with function calling, written as <tool_call> JSON: str_replace_editor then finish', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('harbor/golden/openhands/hello-world.traces.json'));
    assert.deepEqual(
      t.steps.map((s) => [s.action.tool, s.action.args.command ?? s.action.args.message]),
      [
        ['str_replace_editor', 'create'],
        ['finish', "Task complete. Created /app/hello.txt with 'Hello, world!'"],
      ],
    );
    assert.equal(t.steps[0]!.observation, 'File created successfully at: /app/hello.txt');
    assert.equal(t.steps[0]!.thought, 'I edited the file /app/hello.txt.');
  });

  test('a row whose conversation does not end with the reply is refused at that row', () => {
    const rows = [{ conversations: [{ role: 'user', content: 'hi' }], agent: 'openhands' }];
    assert.throws(
      () => importTrajectory(rows, { file: 'traces.json' }),
      (err: unknown) => err instanceof InputError && err.message === "traces.json: $[0].conversations[0].role: expected the row's reply, an assistant message",
    );
  });

  test('rows of two trials are refused at the first row of the second', () => {
    const row = (trial: string) => ({
      conversations: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'ok' },
      ],
      trial_name: trial,
    });
    assert.throws(
      () => importTrajectory([row('a'), row('b')], { file: 'traces.json' }),
      (err: unknown) => err instanceof InputError && /^traces\.json: \$\[1\]: a row of another trial/.test(err.message),
    );
  });
});

describe('ATIF agent steps whose calls are in the message', () => {
  test("Harbor's OpenHands run without function calling: two agent steps, each with its call", async () => {
    const { trajectory: t } = await loadTrajectory(recording('atif/openhands.no-function-calling.v1.5.json'));
    assert.equal(t.steps.length, 2);
    assert.deepEqual(withoutAction(t), []);
    assert.deepEqual(
      t.steps.map((s) => s.action.tool),
      ['execute_bash', 'finish'],
    );
    assert.equal(t.steps[0]!.action.args.security_risk, 'LOW');
    assert.match(t.steps[0]!.observation, /\[The command completed with exit code 0\.\]/);
    assert.equal(t.meta.parseFunction, 'xml_function_calling');
    assert.equal(detectScaffold(t).name, 'openhands');
  });

  thirdPartyFiles.test('context before the first agent step is not a step, and converted to ATIF it is written back in place', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'textcalls-'));
    try {
      const file = thirdParty('harbor/golden/openhands/hello-world.trajectory.json');
      const { trajectory: t } = await loadTrajectory(file);
      assert.equal(t.steps.length, 2);
      await writeTrajectoryFile(path.join(dir, 'out.json'), t, 'atif');
      const written = JSON.parse(await readFile(path.join(dir, 'out.json'), 'utf8')) as { steps: Array<{ source: string; message: string }> };
      const original = JSON.parse(await readFile(file, 'utf8')) as typeof written;
      assert.deepEqual(written.steps.map((s) => [s.source, s.message]).slice(0, 4), original.steps.map((s) => [s.source, s.message]).slice(0, 4));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('OpenHands SDK LLM messages: tools terminal, str_replace_editor, finish', () => {
  for (const [file, steps] of [
    ['fncall-llm-message.json', 6],
    ['nonfncall-llm-message.json', 4],
  ] as const) {
    test(`${file}: ${steps} steps with their calls, labelled unknown with its tools, never SWE-agent`, async () => {
      const { trajectory: t } = await loadTrajectory(recording('openhands-v1', file));
      assert.equal(t.steps.length, steps);
      assert.deepEqual(withoutAction(t), []);
      const choice = detectScaffold(t);
      assert.deepEqual(choice.unknown, { tools: ['finish', 'str_replace_editor', 'terminal'] });
      assert.equal(scaffoldLabel(choice), 'unknown (tools: finish, str_replace_editor, terminal)');
      assert.match(describeChoice(choice), /^scaffold unknown \(tools: finish, str_replace_editor, terminal; /);
    });
  }

  test('converted to ATIF, the agent is not named swe-agent', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'textcalls-'));
    try {
      const { trajectory: t } = await loadTrajectory(recording('openhands-v1/fncall-llm-message.json'));
      await writeTrajectoryFile(path.join(dir, 'out.json'), t, 'atif');
      const written = JSON.parse(await readFile(path.join(dir, 'out.json'), 'utf8')) as { agent: { name: string; version: string } };
      assert.notEqual(written.agent.name, 'swe-agent');
      assert.equal(written.agent.version, 'unknown');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("openhands-resolver's output.jsonl", () => {
  for (const [record, steps] of [
    [0, 4],
    [1, 22],
  ] as const) {
    test(`record ${record}: ${steps} steps, one per action after the instruction, paired with their observations`, async () => {
      const loaded = await loadTrajectory(recording('openhands-v0/resolver.output.jsonl'), { record });
      const t = loaded.trajectory;
      assert.equal(loaded.format, 'openhands');
      assert.equal(t.steps.length, steps);
      assert.deepEqual(withoutAction(t), []);
      assert.equal(t.steps.at(-1)!.action.tool, 'finish');
      assert.equal(t.task.repo, 'neubig/pr-viewer');
      assert.match(t.outcome.submission ?? '', /^diff --git /);
      assert.match(t.meta.instructions ?? '', /^Please fix the following issue/);
      assert.equal(detectScaffold(t).name, 'openhands');
    });
  }

  test("the first run's command, exit code and output", async () => {
    const { trajectory: t } = await loadTrajectory(recording('openhands-v0/resolver.output.jsonl'));
    assert.equal(t.steps[0]!.action.tool, 'run');
    assert.equal(t.steps[0]!.action.raw, 'touch LICENSE');
    assert.equal(t.steps[0]!.exitCode, 0);
    assert.equal(t.task.instanceId, 'neubig/pr-viewer#5');
  });

  test('a history entry that is neither an action nor an observation is refused at its place', () => {
    const line = {
      issue: { owner: 'o', repo: 'r', number: 1 },
      instruction: 'fix',
      git_patch: '',
      history: [{ action: 'message', content: 'fix' }, { thought: 'x' }],
    };
    assert.throws(
      () => importTrajectory(line, { file: 'output.jsonl' }),
      (err: unknown) => err instanceof InputError && /^output\.jsonl: \$\.history\[1\]/.test(err.message),
    );
  });
});

describe('SWE-agent 0.x recognised from its structure (environment swe_main, no replay_config)', () => {
  const files = [
    ['ctf-networking_1.traj', 4, undefined],
    ['ctf-warmup.traj', 7, undefined],
    ['humanevalfix-python-0.traj', 5, undefined],
    ['swe-agent-test-repo-i1.traj', 5, undefined],
    ['marshmallow-1867.default_cursors_window100.traj', 12, '0.2'],
    ['marshmallow-1867.default_install_from_source.traj', 14, '0.2'],
    ['marshmallow-1867.default_window100.traj', 11, '0.2'],
    ['marshmallow-1867.xml_window100.traj', 11, '0.2'],
    ['pydicom-1458.traj', 12, '0.2'],
  ] as const;
  for (const [file, steps, decided] of files) {
    test(`${file}: ${steps} steps, labelled ${decided ? `0.2 (its lint rejection's wording)` : '0.x with 0.7 and 0.2 left to a replay'}`, async () => {
      const { trajectory: t } = await loadTrajectory(recording('swe-agent-0.x', file));
      assert.equal(t.steps.length, steps);
      assert.deepEqual(withoutAction(t), []);
      const choice = detectScaffold(t);
      assert.equal(choice.name, 'swe-agent');
      assert.match(choice.reason, /^its steps' state is a JSON string and its observations have no pseudo-terminal line ends/);
      if (decided) {
        assert.equal(choice.version, decided);
        assert.equal(choice.undecided, undefined);
        assert.equal(evidencedScaffoldName(choice), `swe-agent@${decided}`);
      } else {
        assert.deepEqual(choice.undecided, ['0.7', '0.2']);
        assert.equal(scaffoldLabel(choice), 'swe-agent 0.7 or 0.2 (undecided until a step prints differently)');
        assert.match(
          describeChoice(choice),
          /no step read tells 0\.7, 0\.2 apart: a replay tells them apart at the first step they print differently \(0\.7 until then\)\)$/,
        );
        assert.equal(evidencedScaffoldName(choice), 'swe-agent', 'an export names no version the file does not show');
      }
    });
  }

  test('converted to canonical JSON, an undecided 0.x run names its family and no version', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'textcalls-'));
    try {
      const { trajectory: t } = await loadTrajectory(recording('swe-agent-0.x', 'ctf-warmup.traj'));
      await writeTrajectoryFile(path.join(dir, 'out.json'), t, 'canonical');
      const written = JSON.parse(await readFile(path.join(dir, 'out.json'), 'utf8')) as Trajectory;
      assert.equal(written.meta.scaffold, 'swe-agent');
      // Read back, the name without a version leaves the versions to the family's own evidence.
      assert.deepEqual(detectScaffold(written).undecided, ['0.7', '0.2']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
