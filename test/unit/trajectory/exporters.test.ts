import '../../helpers/families';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sweAgentFamily } from '../../../extension/core/scaffolds/swe-agent';
import { toCanonicalJson } from '../../../extension/core/trajectory/canonicalExport';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';
import { toSweAgentTraj } from '../../../extension/core/scaffolds/swe-agent/trajExporter';
import { aBashAction, aStep, aTrajectory, anAction } from '../../builders/trajectory';
import { sampleTrajectory, thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

/** What a round trip must keep of each step. */
function essence(step: Step) {
  return {
    tool: step.action.tool,
    args: step.action.args,
    observation: step.observation,
    calls: step.calls?.map((c) => ({ tool: c.action.tool, args: c.action.args, observation: c.observation })),
  };
}

function viaSweAgent(t: Trajectory): Trajectory {
  return importTrajectory(JSON.parse(toSweAgentTraj(t)), { file: 'exported.traj' });
}

describe('canonical JSON', () => {
  thirdPartyFiles.test('reads back equal, with sources pointing into the new file', async () => {
    const { trajectory: t } = await loadTrajectory(thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'));
    const back = importTrajectory(JSON.parse(toCanonicalJson(t)), { file: 'canonical.json' });
    assert.deepEqual(
      back.steps.map((s) => ({ ...s, source: undefined })),
      t.steps.map((s) => ({ ...s, source: undefined })),
    );
    assert.deepEqual([back.format, back.task, back.outcome, back.meta], [t.format, t.task, t.outcome, t.meta]);
    assert.deepEqual(back.steps[16]!.source, { pointers: ['/steps/16'] });
  });

  test('is detected as canonical', async () => {
    const t = aTrajectory();
    const back = importTrajectory(JSON.parse(toCanonicalJson(t)), { file: 'canonical.json' });
    assert.deepEqual(
      back.steps.map((s) => s.action.args.command),
      ['ls', 'cat setup.py', 'python -m pytest -q'],
    );
  });
});

describe('SWE-agent .traj export', () => {
  test('writes what was measured and leaves out what was not: no invented 0 s or $0', () => {
    const measured = JSON.parse(
      toSweAgentTraj(
        aTrajectory({
          steps: [aStep({ executionTime: 1.25 }), aStep({ index: 1 })],
          outcome: { exitStatus: 'submitted', modelStats: { instanceCost: 0.03, apiCalls: 2 } },
        }),
      ),
    );
    assert.equal(measured.trajectory[0].execution_time, 1.25);
    assert.equal('execution_time' in measured.trajectory[1], false);
    assert.deepEqual(measured.info.model_stats, { instance_cost: 0.03, api_calls: 2 });
    const back = importTrajectory(measured, { file: 'x.traj' });
    assert.deepEqual([back.steps[0]!.executionTime, back.steps[1]!.executionTime], [1.25, undefined]);
    assert.equal(back.outcome.modelStats?.tokensSent, undefined);
  });

  test('has the shape SWE-agent writes and its inspector reads', () => {
    const t = aTrajectory({
      steps: [aStep({ state: { openFile: null, workingDir: '/testbed' }, executionTime: 0.5 })],
      meta: { systemPrompt: 'SETTING: ...', instructions: 'Fix it.', model: 'gpt-4o' },
    });
    const traj = JSON.parse(toSweAgentTraj(t));
    assert.deepEqual(Object.keys(traj).sort(), ['environment', 'history', 'info', 'replay_config', 'trajectory']);
    assert.deepEqual(Object.keys(traj.trajectory[0]).sort(), [
      'action',
      'execution_time',
      'extra_info',
      'observation',
      'query',
      'response',
      'state',
      'thought',
    ]);
    assert.deepEqual(traj.trajectory[0].state, { open_file: 'n/a', working_dir: '/testbed' });
    assert.equal(traj.trajectory[0].execution_time, 0.5);
    assert.deepEqual(
      traj.history.map((h: { role: string; message_type: string }) => `${h.role}/${h.message_type}`),
      ['system/system_prompt', 'user/observation', 'assistant/action', 'tool/observation'],
    );
    assert.deepEqual(traj.history[2].tool_calls[0].function, { name: 'bash', arguments: '{"command":"ls"}' });
    assert.deepEqual(traj.history[3].tool_call_ids, [traj.history[2].tool_calls[0].id]);
    assert.deepEqual(traj.info, {
      exit_status: 'submitted',
      submission: 'diff --git a/x.py b/x.py\n',
      // Nothing counted the cost, tokens or calls: left out, never an invented 0.
      model_stats: {},
    });
    const config = JSON.parse(traj.replay_config);
    assert.equal(config.agent.model.name, 'gpt-4o');
    assert.equal(config.env.repo.base_commit, 'bfd2593d4b416122e30cdefe0c72d322ef471611');
  });

  for (const [name, file] of [
    ['a windowed SWE-agent run (line commands)', thirdParty('swe-agent/marshmallow-1867.windowed.traj')],
    ['a SWE-smith run', thirdParty('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj')],
    ['mini-swe-agent fenced commands', thirdParty('mini-swe-agent/github_issue.traj.json')],
    ['OpenHands events', thirdParty('openhands/wrong_initial_state.json')],
    ['R2E-Gym XML calls', sampleTrajectory('r2e-gym.deepswe.jsonl')],
    ['OpenAI parallel tool calls', sampleTrajectory('openai-messages.parallel-calls.json')],
  ] as const) {
    (file.startsWith(thirdPartyFiles.dir) ? thirdPartyFiles.test : test)(
      `round trip of ${name} keeps steps, tools, arguments, observations and outcome`,
      async () => {
        const { trajectory: t } = await loadTrajectory(file);
        const back = viaSweAgent(t);
        assert.equal(back.format, 'swe-agent');
        assert.deepEqual(back.steps.map(essence), t.steps.map(essence));
        assert.deepEqual(
          back.steps.map((s) => s.thought),
          t.steps.map((s) => s.thought),
        );
        assert.equal(back.outcome.exitStatus, t.outcome.exitStatus);
        assert.equal(back.outcome.submission, t.outcome.submission);
        if (t.outcome.modelStats)
          assert.deepEqual(back.outcome.modelStats, { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: t.steps.length, ...t.outcome.modelStats });
      },
    );
  }

  test('round trip keeps task, tool bundles, state and sampling', () => {
    const t = aTrajectory({
      steps: [
        aStep({
          action: anAction({ tool: 'open', args: { path: 'src/a.py', line_number: 20 }, raw: 'open "src/a.py" 20' }),
          state: { openFile: '/testbed/src/a.py', workingDir: '/testbed' },
          sampling: { temperature: 0.7, top_p: 0.95 },
        }),
        aStep({ action: aBashAction('submit') }),
      ],
      meta: { toolBundles: ['tools/windowed', 'tools/submit'], model: 'qwen3-coder' },
    });
    const back = viaSweAgent(t);
    assert.equal(back.steps[0]!.action.raw, 'open "src/a.py" 20');
    assert.deepEqual(back.steps[0]!.state, { openFile: '/testbed/src/a.py', workingDir: '/testbed' });
    assert.deepEqual(back.steps[0]!.sampling, { temperature: 0.7, top_p: 0.95 });
    assert.deepEqual(back.meta.toolBundles, ['tools/windowed', 'tools/submit']);
    assert.deepEqual(
      [back.task.instanceId, back.task.baseCommit, back.task.image, back.task.repoPath, back.task.problemStatement],
      [t.task.instanceId, t.task.baseCommit, t.task.image, '/testbed', t.task.problemStatement],
    );
    assert.equal(back.meta.model, 'qwen3-coder');
  });

  test("keeps a replay's divergence marks, so the saved .traj shows where the replay diverged", () => {
    const t = aTrajectory({ steps: [aStep({ action: aBashAction('ls') }), aStep({ action: aBashAction('pytest'), flags: ['diverged'] })] });
    const exported = JSON.parse(toSweAgentTraj(t)) as { trajectory: { extra_info: unknown }[] };
    assert.deepEqual(
      exported.trajectory.map((s) => s.extra_info),
      [{}, { flags: ['diverged'] }],
    );
    assert.deepEqual(
      viaSweAgent(t).steps.map((s) => s.flags),
      [undefined, ['diverged']],
    );
  });

  test('keeps a text scaffold, so a fork of the exported file parses replies as the run did', () => {
    const t = aTrajectory({
      steps: [
        aStep({ action: anAction({ tool: 'open', args: { path: 'src/a.py', line_number: 20 }, raw: 'open "src/a.py" 20' }) }),
        aStep({ action: aBashAction('python -m pytest -q tests/test_a.py') }),
      ],
      meta: { toolBundles: ['tools/windowed', 'tools/submit'], parseFunction: 'thought_action' },
    });
    const back = viaSweAgent(t);
    assert.equal(JSON.parse(JSON.parse(toSweAgentTraj(t)).replay_config).agent.tools.parse_function.type, 'thought_action');
    assert.equal(back.meta.parseFunction, 'thought_action');
    assert.equal(sweAgentFamily.create('1.1.0', back).replyFormat, 'thought_action');
    assert.deepEqual(
      back.steps.map((s) => [s.action.tool, s.action.args, s.action.raw]),
      [
        ['open', { path: 'src/a.py', line_number: 20 }, 'open "src/a.py" 20'],
        ['bash', { command: 'python -m pytest -q tests/test_a.py' }, 'python -m pytest -q tests/test_a.py'],
      ],
    );
  });

  test('writes function_calling when the run names no scaffold', () => {
    const back = viaSweAgent(aTrajectory());
    assert.equal(back.meta.parseFunction, 'function_calling');
  });
});
