import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type * as vscode from 'vscode';
import { replayRequest } from '../../../extension/core/session/replayRun';
import { readTaskFile, runRequest } from '../../../extension/core/branch/taskFile';
import { scaffoldOption } from '../../../extension/cli/scaffoldOption';
import { parseScaffoldSpec } from '../../../extension/core/scaffolds/registry';
import { PolicyClient } from '../../../extension/core/policy/policyClient';
import { DEFAULT_NORMALISERS } from '../../../extension/core/session/divergence';
import { planSession, type SessionPlan } from '../../../extension/core/session/sessionPlan';
import { sessionSources } from '../../../extension/core/session/sessionSources';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { TrajectorySchema } from '../../../extension/core/trajectory/model';
import { launchRequest } from '../../../extension/vscode/session/sessionLaunch';
import { startPolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';

const RECORDING = thirdParty('swe-agent/marshmallow-1867.function_calling.traj');
const IMAGE = 'swe-workbench/base:bookworm';
const work = mkdtempSync(path.join(tmpdir(), 'launcher-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** What a plan decides, with the tool set named by its bundles and the scaffold by its name, version and settings (two of the same are equal). */
function comparable(plan: SessionPlan) {
  const { name, version, replyFormat, tty, config } = plan.scaffold;
  return { ...plan, tools: plan.tools.bundles, scaffold: { name, version, replyFormat, tty, config }, recording: plan.recording?.ref };
}

/** The URI VS Code's pickers give for a file on disk: the launch reads only its path. */
function fileUri(file: string): vscode.Uri {
  return { fsPath: file, path: file } as vscode.Uri;
}

describe('one launcher for the CLI and VS Code', () => {
  thirdPartyFiles.test(
    'a fork planned by `swe-workbench run --fork` and by the VS Code Fork command is the same session, with the terminal mode and tool variables in its meta',
    async () => {
      const { trajectory } = await loadTrajectory(RECORDING);
      const repoDir = path.join(work, 'repo');
      const taskFile = path.join(work, 'task.json');
      writeFileSync(
        taskFile,
        JSON.stringify({
          image: IMAGE,
          repo: 'repo',
          repoPath: trajectory.task.repoPath,
          instanceId: trajectory.task.instanceId,
          problemStatement: trajectory.task.problemStatement,
        }),
      );
      const task = await readTaskFile(taskFile);

      const fromCli = planSession(runRequest(task, taskFile, { fork: { trajectory, ref: RECORDING, at: 3 } }));
      const fromVsCode = planSession(
        launchRequest({
          mode: 'fork',
          recording: { trajectory, uri: fileUri(RECORDING) },
          at: 3,
          then: 'policy',
          image: IMAGE,
          repoDir,
          repoPath: trajectory.task.repoPath!,
        }),
      );
      assert.deepEqual(comparable(fromVsCode), comparable(fromCli));

      assert.equal(fromCli.container.tty, true, 'the recording ran under a pseudo-terminal');
      assert.deepEqual(fromCli.container.config, { sweAgentVersion: '1.0.0', crlf: true, window: 100, overlap: 2, baseCommit: trajectory.task.baseCommit });
      assert.equal(fromCli.meta.pty, true);
      assert.deepEqual(fromCli.meta.toolEnvVariables, trajectory.meta.toolEnvVariables);
      assert.equal(fromCli.meta.toolEnvVariables?.WINDOW !== undefined, true);
      assert.deepEqual(fromCli.meta.parent, { id: trajectory.meta.id ?? RECORDING, forkStep: 2 });
      assert.equal(fromCli.meta.parseFunction, 'function_calling');
      assert.equal(fromCli.instructions, trajectory.meta.instructions, "a fork keeps the recording's prompts");
    },
  );

  thirdPartyFiles.test('both sides connect the same policy and get the same sources and recorded meta', async () => {
    const server = await startPolicyServer([], { models: ['policy-under-test'] });
    try {
      const { trajectory } = await loadTrajectory(RECORDING);
      const client = await PolicyClient.connect({ baseUrl: server.url });
      const repoPath = trajectory.task.repoPath!;
      const cli = planSession(
        runRequest({ image: IMAGE, repo: work, repoPath, problemStatement: trajectory.task.problemStatement! }, 'task.json', {
          fork: { trajectory, ref: RECORDING, at: 2 },
        }),
      );
      const vs = planSession(
        launchRequest({ mode: 'fork', recording: { trajectory, uri: fileUri(RECORDING) }, at: 2, then: 'policy', image: IMAGE, repoDir: work, repoPath }),
      );
      const a = sessionSources(cli, { kind: 'policy', client });
      const b = sessionSources(vs, { kind: 'policy', client });
      assert.deepEqual(a.meta, b.meta);
      assert.equal(a.meta.model, 'policy-under-test');
      assert.deepEqual(
        a.sources.map((s) => s.kind),
        ['recording', 'policy'],
      );
      assert.deepEqual(
        b.sources.map((s) => s.kind),
        ['recording', 'policy'],
      );
    } finally {
      await server.close();
    }
  });

  thirdPartyFiles.test('a replay planned by `swe-workbench replay` and by VS Code Replay is the same session', async () => {
    const { trajectory } = await loadTrajectory(RECORDING);
    const fromCli = planSession(replayRequest({ trajectory, ref: RECORDING }, { image: IMAGE, repoDir: work, normalisers: [...DEFAULT_NORMALISERS] }));
    const fromVsCode = planSession(
      launchRequest({ mode: 'replay', recording: { trajectory, uri: fileUri(RECORDING) }, image: IMAGE, repoDir: work, repoPath: trajectory.task.repoPath! }),
    );
    assert.deepEqual(comparable(fromCli), comparable(fromVsCode));
    assert.equal(fromCli.container.repoPath, '/testbed');
    assert.deepEqual(fromCli.tools.bundles, fromVsCode.tools.bundles);
  });

  thirdPartyFiles.test('bad input is an error naming where: a fork past the end, an unknown bundle in the task file, a live run with no task', async () => {
    const { trajectory } = await loadTrajectory(RECORDING);
    assert.throws(
      () => planSession({ mode: 'fork', recording: { trajectory, ref: RECORDING }, at: trajectory.steps.length + 1, image: IMAGE, repoDir: work }),
      (e: Error) => e.message.startsWith(`${RECORDING}: cannot fork at step ${trajectory.steps.length + 1}`),
    );
    assert.throws(
      () =>
        planSession({
          mode: 'live',
          image: IMAGE,
          repoDir: work,
          bundles: { names: ['tools/nope'], file: 'task.json', where: '$.bundles' },
          task: { problemStatement: 'x' },
        }),
      (e: Error) => e.message.startsWith('task.json: $.bundles: ') && e.message.includes('unknown tool bundle(s): nope'),
    );
    assert.throws(() => planSession({ mode: 'live', image: IMAGE, repoDir: work }), /a live run needs a problem statement/);
  });

  test('a fork continued by hand needs no problem statement; one continued by the policy says it needs one', () => {
    const trajectory = TrajectorySchema.parse({
      format: 'canonical',
      task: { image: IMAGE, repoPath: '/repo' },
      steps: [{ index: 0, thought: 'Look.', action: { raw: 'echo ready', tool: null, args: {} }, observation: 'ready' }],
      outcome: {},
      meta: { parseFunction: 'thought_action' },
    });
    const launch = (then: 'policy' | 'person') =>
      launchRequest({
        mode: 'fork',
        recording: { trajectory, uri: fileUri('/x/shell.traj.json') },
        at: 1,
        then,
        image: IMAGE,
        repoDir: work,
        repoPath: '/repo',
      });
    assert.throws(
      () => planSession(launch('policy')),
      /^InputError: \/x\/shell\.traj\.json: a fork run needs a problem statement for the policy, and the recording has none/,
    );
    const byHand = planSession(launch('person'));
    assert.equal(byHand.mode, 'fork');
    assert.equal(byHand.at, 1);
  });

  test('--reply-format picks how SWE-agent is spoken to; --scaffold FORMAT, its old spelling, plans the same run', () => {
    const live = { mode: 'live' as const, image: IMAGE, repoDir: work, task: { problemStatement: 'Fix it.' } };
    const named = planSession({ ...live, replyFormat: 'function_calling' });
    assert.equal(named.scaffold.name, 'swe-agent');
    assert.equal(named.scaffold.replyFormat, 'function_calling');
    assert.ok(
      named.scaffold.toolSpecs()?.some((spec) => spec.function.name === 'open'),
      'function calling sends the tools',
    );
    assert.deepEqual(comparable(planSession({ ...live, ...scaffoldOption('function_calling', { replyFormats: true }) })), comparable(named));
    const versioned = planSession({ ...live, scaffold: parseScaffoldSpec('swe-agent@1.0.1'), replyFormat: 'xml_function_calling' });
    assert.deepEqual([versioned.scaffold.version, versioned.scaffold.replyFormat], ['1.0.1', 'xml_function_calling']);
    assert.equal(versioned.scaffoldChoice.reason, '--scaffold swe-agent@1.0.1, reply format xml_function_calling');
    assert.throws(
      () => planSession({ ...live, scaffold: parseScaffoldSpec('r2e-gym'), replyFormat: 'function_calling' }),
      /^InputError: --reply-format: function_calling is a reply format of SWE-agent's tools; scaffold r2e-gym reads its own/,
    );
    assert.throws(
      () => planSession({ ...live, replyFormat: 'yaml' }),
      /^InputError: --reply-format: unknown reply format 'yaml'; choose one of function_calling, thought_action, xml_function_calling$/,
    );
  });
});
