import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectScaffold } from '../../../extension/core/scaffolds/registry';
import { detectFormat } from '../../../extension/core/trajectory/detectFormat';
import { exportFormats, exportTrajectory, type ExportFormat } from '../../../extension/core/trajectory/exporters';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { aBashAction, aStep, aTrajectory, anAction } from '../../builders/trajectory';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** A short bash-only run, as the demo records: every format can say all of it. */
function bashRun(): Trajectory {
  return aTrajectory({
    task: {
      instanceId: 'ledger__allocate-1',
      image: 'swe-workbench/base:bookworm',
      repoPath: '/repo',
      repo: 'ledger',
      baseCommit: 'abc1234',
      problemStatement: 'Money.allocate must keep every cent.',
    },
    steps: [
      aStep({
        index: 0,
        thought: 'Find the method.',
        action: { ...aBashAction('grep -n "def allocate" ledger/money.py'), toolCallId: 'call_a' },
        observation: '75:    def allocate(self, ratios):',
        exitCode: 0,
        tokens: { prompt: 120, completion: 14, total: 134 },
        executionTime: 0.25,
      }),
      aStep({
        index: 1,
        thought: 'Count the tests.',
        action: { ...aBashAction('grep -c "def test_" tests/test_money.py'), toolCallId: 'call_b' },
        observation: '0',
        exitCode: 1,
        tokens: { prompt: 160, completion: 12, total: 172 },
        executionTime: 0.5,
      }),
      aStep({ index: 2, thought: 'Done.', action: { raw: 'submit', tool: 'submit', args: {}, toolCallId: 'call_c' }, observation: '', exitCode: 0 }),
    ],
    outcome: { exitStatus: 'submitted', submission: 'diff --git a/x b/x\n', reward: 1, testOutput: '57 passed in 0.40s', modelStats: { instanceCost: 0.02 } },
    meta: { model: 'test-policy', systemPrompt: 'You are careful.', instructions: 'Money.allocate must keep every cent.', id: 'demo-run' },
  });
}

function roundTrip(t: Trajectory, format: ExportFormat): Trajectory {
  const text = exportTrajectory(t, format);
  const value = format === 'r2e-gym' || format === 'openhands' ? JSON.parse(text.trim()) : JSON.parse(text);
  const back = importTrajectory(value, { file: `exported${format}` });
  assert.equal(back.format, format, `read back as ${format}`);
  return back;
}

const commandOf = (s: Step) =>
  typeof s.action.args.command === 'string' ? s.action.args.command : typeof s.action.args.cmd === 'string' ? s.action.args.cmd : s.action.raw;

describe('exporters: each format is read back by its own importer', () => {
  test('every format is detected as itself', () => {
    for (const format of exportFormats()) {
      const text = exportTrajectory(bashRun(), format);
      assert.equal(detectFormat(JSON.parse(text.trim())), format, format);
    }
  });

  for (const format of ['mini-swe-agent', 'r2e-gym', 'openhands', 'swe-agent', 'canonical'] as const) {
    test(`${format}: thoughts, commands, observations and the outcome survive a round trip`, () => {
      const t = bashRun();
      const back = roundTrip(t, format);
      assert.equal(back.steps.length, 3);
      assert.deepEqual(back.steps.slice(0, 2).map(commandOf), t.steps.slice(0, 2).map(commandOf));
      assert.deepEqual(
        back.steps.map((s) => s.observation),
        t.steps.map((s) => s.observation),
      );
      assert.deepEqual(
        back.steps.map((s) => s.thought),
        t.steps.map((s) => s.thought),
      );
      assert.equal(back.outcome.submission, t.outcome.submission);
      if (format !== 'openhands') assert.equal(back.outcome.exitStatus, t.outcome.exitStatus);
      else assert.equal(back.outcome.exitStatus, 'finished', 'OpenHands says a run that called finish finished');
    });
  }

  test('every format keeps the scaffold that made the run, and detection reads it back first', () => {
    for (const format of exportFormats()) {
      for (const scaffold of ['r2e-gym@69bc953', 'openhands@codeact', 'mini-swe-agent@2.x', 'swe-agent@1.1.0']) {
        const back = roundTrip({ ...bashRun(), meta: { ...bashRun().meta, scaffold } }, format);
        assert.equal(back.meta.scaffold, scaffold, `${format}: ${scaffold}`);
        const choice = detectScaffold(back);
        assert.equal(`${choice.name}@${choice.version}`, scaffold, `${format}: ${scaffold}`);
      }
    }
  });

  test('mini-swe-agent: the 1.1 message list, one tool message per call, return codes, and the exit message', () => {
    const run = JSON.parse(exportTrajectory(bashRun(), 'mini-swe-agent'));
    assert.equal(run.trajectory_format, 'mini-swe-agent-1.1');
    assert.equal(run.instance_id, 'ledger__allocate-1');
    assert.deepEqual(
      run.messages.map((m: { role: string }) => m.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'exit'],
    );
    assert.deepEqual(run.messages[2].extra.actions, [{ command: 'grep -n "def allocate" ledger/money.py', tool_call_id: 'call_a' }]);
    assert.equal(run.messages[5].extra.returncode, 1);
    assert.deepEqual(run.messages.at(-1).extra, { exit_status: 'submitted', submission: 'diff --git a/x b/x\n' });
    const back = roundTrip(bashRun(), 'mini-swe-agent');
    assert.deepEqual(
      back.steps.map((s) => s.exitCode),
      [0, 1, 0],
    );
    assert.deepEqual(
      [back.meta.systemPrompt, back.meta.instructions, back.meta.model, back.task.instanceId],
      ['You are careful.', 'Money.allocate must keep every cent.', 'test-policy', 'ledger__allocate-1'],
    );
  });

  test('R2E-Gym: XML calls with its own tool names, token usage, the dataset row and the reward', () => {
    const record = JSON.parse(exportTrajectory(bashRun(), 'r2e-gym'));
    assert.equal(
      record.trajectory_steps[0].action,
      '<function=execute_bash>\n  <parameter=cmd>grep -n "def allocate" ledger/money.py</parameter>\n</function>',
    );
    assert.equal(record.trajectory_steps[2].action, '<function=finish>\n  <parameter=command>submit</parameter>\n</function>');
    assert.deepEqual([record.trajectory_steps[1].total_time_traj, record.trajectory_steps[1].step_count], [0.75, 2]);
    const back = roundTrip(bashRun(), 'r2e-gym');
    assert.deepEqual(
      back.steps.map((s) => s.action.tool),
      ['execute_bash', 'execute_bash', 'finish'],
    );
    assert.deepEqual(back.steps[1]!.tokens, { prompt: 160, completion: 12, total: 172 });
    assert.deepEqual(back.task, {
      instanceId: 'ledger__allocate-1',
      repo: 'ledger',
      baseCommit: 'abc1234',
      image: 'swe-workbench/base:bookworm',
      repoPath: '/testbed',
      problemStatement: 'Money.allocate must keep every cent.',
    });
    assert.deepEqual([back.outcome.reward, back.outcome.testOutput], [1, '57 passed in 0.40s']);
  });

  test('OpenHands: run actions answered by observations caused by them, exit codes, finish, the patch', () => {
    const line = JSON.parse(exportTrajectory(bashRun(), 'openhands'));
    const history = line.history as Array<Record<string, unknown>>;
    assert.deepEqual(
      history.map((e) => e.action ?? `obs:${String(e.observation)}`),
      ['system', 'message', 'run', 'obs:run', 'run', 'obs:run', 'finish'],
    );
    assert.equal(history[3]!.cause, history[2]!.id);
    assert.equal(line.test_result.git_patch, 'diff --git a/x b/x\n');
    const back = roundTrip(bashRun(), 'openhands');
    assert.deepEqual(
      back.steps.map((s) => s.action.tool),
      ['run', 'run', 'finish'],
    );
    assert.deepEqual(
      back.steps.slice(0, 2).map((s) => s.exitCode),
      [0, 1],
    );
    assert.deepEqual([back.task.instanceId, back.meta.model, back.outcome.modelStats?.instanceCost], ['ledger__allocate-1', 'test-policy', 0.02]);
  });

  test("a recording made in mini-swe-agent 1.x is written in 1.x's text form and read back as 1.x", () => {
    const base = bashRun();
    const t: Trajectory = {
      ...base,
      steps: base.steps.map(({ action: { toolCallId: _id, ...action }, ...step }, i) => ({
        ...step,
        action: i === 2 ? aBashAction('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT') : action,
        observation: i === 2 ? '' : `<returncode>${step.exitCode}</returncode>\n<output>\n${step.observation}\n</output>`,
      })),
      meta: { ...base.meta, scaffold: 'mini-swe-agent@1.x' },
    };
    const run = JSON.parse(exportTrajectory(t, 'mini-swe-agent'));
    assert.equal(run.trajectory_format, 'mini-swe-agent-1');
    assert.equal(run.info.mini_version, undefined, 'a 1.x recording that named no version is not given 2.0.0');
    assert.deepEqual(
      run.messages.map((m: { role: string }) => m.role),
      ['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user'],
    );
    assert.equal(run.messages[2].content, 'Find the method.\n\n```bash\ngrep -n "def allocate" ledger/money.py\n```');
    const back = roundTrip(t, 'mini-swe-agent');
    assert.equal(back.meta.parseFunction, 'bash_block');
    assert.deepEqual(back.steps.map(commandOf), t.steps.map(commandOf));
    assert.deepEqual(
      back.steps.map((s) => [s.thought, s.observation]),
      t.steps.map((s) => [s.thought, s.observation]),
    );
    // 1.x's file has the return code only inside the rendered observation; the submission's user message has none.
    assert.deepEqual(
      back.steps.map((s) => s.exitCode),
      [0, 1, undefined],
    );
    assert.deepEqual([back.outcome.exitStatus, back.outcome.submission], [t.outcome.exitStatus, t.outcome.submission]);
  });

  test("mini-swe-agent 2.x: a submitting command's result is the exit message, read back as that step's observation", () => {
    const base = bashRun();
    const submission = base.outcome.submission!;
    const submit = { ...aBashAction('echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff'), toolCallId: 'call_c' };
    const t: Trajectory = {
      ...base,
      steps: [...base.steps.slice(0, 2), aStep({ index: 2, thought: 'Done.', action: submit, observation: submission, exitCode: 0 })],
    };
    const run = JSON.parse(exportTrajectory(t, 'mini-swe-agent'));
    assert.deepEqual(
      run.messages.slice(-2).map((m: { role: string; content: string }) => [m.role, m.content]),
      [
        ['assistant', 'Done.'],
        ['exit', submission],
      ],
      'no tool message for the submitting call, as 2.x writes none',
    );
    const back = roundTrip(t, 'mini-swe-agent');
    assert.deepEqual(
      back.steps.map((s) => s.observation),
      t.steps.map((s) => s.observation),
    );
  });

  test("mini-swe-agent: an exit that is not a submission, or that follows the command's own result, is no observation", () => {
    const assistant = (id: string, command: string) => ({
      role: 'assistant',
      content: '',
      tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
      extra: { actions: [{ command, tool_call_id: id }] },
    });
    const read = (exit: { exit_status: string; content: string }, withResult: boolean) =>
      importTrajectory(
        {
          trajectory_format: 'mini-swe-agent-1.1',
          info: { mini_version: '2.4.6', exit_status: exit.exit_status, submission: '' },
          messages: [
            { role: 'user', content: 'Fix it.' },
            assistant('c1', 'ls'),
            ...(withResult ? [{ role: 'tool', tool_call_id: 'c1', content: 'a.py' }] : []),
            { role: 'exit', content: exit.content, extra: { exit_status: exit.exit_status, submission: '' } },
          ],
        },
        { file: 'run.traj.json' },
      ).steps[0]!.observation;
    assert.equal(read({ exit_status: 'LimitsExceeded', content: 'Grace period exhausted.' }, false), '');
    assert.equal(read({ exit_status: 'Submitted', content: 'diff' }, true), 'a.py');
    assert.equal(read({ exit_status: 'Submitted', content: 'diff' }, false), 'diff');
  });

  test('a step the scaffold could not read stays one in mini-swe-agent: its text and the FormatError answer', () => {
    const t = aTrajectory({
      steps: [
        aStep({
          index: 0,
          thought: 'no block',
          action: anAction({ raw: 'I will look around', tool: null, args: {} }),
          observation: 'Please always provide EXACTLY ONE action',
          formatError: 'expected exactly one bash code block, found 0',
        }),
      ],
    });
    const back = roundTrip(t, 'mini-swe-agent');
    assert.equal(back.steps[0]!.action.tool, null);
    assert.match(back.steps[0]!.formatError ?? '', /FormatError/);
    assert.equal(back.steps[0]!.observation, 'Please always provide EXACTLY ONE action');
  });

  thirdPartyFiles.test('a real mini-swe-agent run re-written in the current format keeps its commands, outputs and submission', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('mini-swe-agent/github_issue.traj.json'));
    const back = roundTrip(t, 'mini-swe-agent');
    assert.deepEqual(back.steps.map(commandOf), t.steps.map(commandOf));
    assert.deepEqual(
      back.steps.map((s) => s.observation),
      t.steps.map((s) => s.observation),
    );
    assert.deepEqual(
      back.steps.map((s) => s.exitCode),
      t.steps.map((s) => s.exitCode),
    );
    assert.equal(back.outcome.submission, t.outcome.submission);
  });

  thirdPartyFiles.test('a real OpenHands run re-written as an output.jsonl line keeps its run commands and outputs', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('openhands/wrong_initial_state.json'));
    const back = roundTrip(t, 'openhands');
    const runs = (x: Trajectory) => x.steps.filter((s) => s.action.tool === 'run').map((s) => [s.action.args.command, s.observation, s.exitCode]);
    assert.ok(runs(t).length > 0);
    assert.deepEqual(runs(back), runs(t));
  });
});
