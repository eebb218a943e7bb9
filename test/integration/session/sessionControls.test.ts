import '../../helpers/families';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeTrajectoryFile } from '../../../extension/core/session/trajectoryRecorder';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import { DebugSession, type SessionEvent, type SessionOptions } from '../../../extension/core/session/debugSession';
import { PersonSource, RecordingSource } from '../../../extension/core/session/actionSources';
import { forkOf } from '../../../extension/core/session/fork';
import type { AciSession } from '../../../extension/core/aci/aciSession';
import type { Trajectory } from '../../../extension/core/trajectory/model';
import { startPolicyServer, type PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { aciFor, LEDGER_EPISODE, policySource, sampleRepoCopy, thoughtAction } from '../../helpers/ledgerAgentScript';

let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
let server: PolicyServer;
/** Every sandbox a test started: one that failed midway leaves its shell running otherwise. */
const sandboxes: LocalSandbox[] = [];

before(async () => {
  repo = await sampleRepoCopy();
  server = await startPolicyServer(LEDGER_EPISODE);
});
after(async () => {
  await Promise.all(sandboxes.map((s) => s.dispose()));
  await server.close();
  await repo.cleanup();
});

type Setup = Pick<SessionOptions, 'sources'> & Partial<SessionOptions>;

async function newSession(setup: (aci: AciSession) => Promise<Setup>) {
  const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo.dir, repoPath: '/repo' });
  sandboxes.push(sandbox);
  const aci = aciFor(sandbox);
  const session = new DebugSession({ aci, task: { repo: 'ledger', baseCommit: repo.commits.at(-1)!.sha }, ...(await setup(aci)) });
  const events: SessionEvent[] = [];
  session.on((e) => events.push(e));
  return { session, sandbox, events };
}

describe('session on a local sandbox: live, replay, controls', () => {
  let live: Trajectory;

  test('a live run against the scripted policy records every step, logprobs and sampling, and the submission', async () => {
    server.setScript(LEDGER_EPISODE);
    const { session, sandbox, events } = await newSession(async (aci) => ({ sources: [await policySource(server.url, aci)] }));
    const stop = await session.continue();
    assert.deepEqual([stop.reason, stop.done, stop.index], ['submitted', true, 4]);
    // Over but not finished (a kept sandbox waits for forks): a viewer already reads how it ended.
    assert.deepEqual(session.trajectorySoFar.outcome, { exitStatus: 'submitted', submission: '' });
    live = await session.finish();
    assert.equal(existsSync(sandbox.id), false, 'the sandbox is disposed');
    assert.deepEqual(
      live.steps.map((s) => s.action.tool),
      ['bash', 'open', 'bash', 'submit'],
    );
    assert.deepEqual(live.steps[1]!.action.args, { path: 'ledger/money.py', line_number: 75 });
    assert.match(live.steps[0]!.observation, /^75:    def allocate\(self, ratios\):$/);
    assert.match(live.steps[1]!.observation, /^\[File: ledger\/money\.py \(115 lines total\)\]$/m);
    assert.match(live.steps[1]!.observation, /^75:    def allocate\(self, ratios\):$/m);
    assert.deepEqual(
      live.steps[0]!.logprobs?.slice(0, 3).map((t) => t.logprob),
      [-0.05, -1.5, -0.25],
    );
    assert.equal(live.steps[0]!.logprobs?.[0]?.top?.length, 2);
    assert.deepEqual(live.steps[0]!.sampling, { temperature: 0.6, top_p: 0.95, top_k: 20 });
    assert.deepEqual(live.steps[0]!.flags, ['truncated-sampling']);
    assert.equal(live.outcome.exitStatus, 'submitted');
    assert.equal(live.outcome.submission, '');
    assert.equal(live.steps[1]!.state?.openFile?.endsWith('/ledger/money.py'), true);
    assert.deepEqual(events.filter((e) => e.type === 'step-done').length, 4);
    assert.deepEqual(
      events.slice(0, 2).map((e) => e.type),
      ['asking', 'step-started'],
    );
    assert.equal(events.at(-1)?.type, 'finished');
    // The policy saw the growing history: the 4th request holds system, task and 3 exchanges.
    assert.equal(server.chatRequests[3]!.messages.length, 2 + 3 * 2);
  });

  test("a reasoning model's reasoning is kept on the step apart from the thought, and not sent back", async () => {
    server.setScript([
      { ...thoughtAction('Find it.', 'grep -c allocate ledger/money.py'), reasoning: 'The bug must be in allocate.' },
      thoughtAction('Done.', 'submit'),
    ]);
    const { session } = await newSession(async (aci) => ({ sources: [await policySource(server.url, aci)] }));
    await session.continue();
    const trajectory = await session.finish();
    assert.deepEqual([trajectory.steps[0]!.reasoning, trajectory.steps[0]!.thought], ['The bug must be in allocate.', 'Find it.\n\n']);
    assert.equal(JSON.stringify(server.chatRequests[1]!.messages).includes('The bug must be in allocate.'), false);
  });

  test('the recording is written as canonical JSON or SWE-agent .traj, and both read back', async () => {
    for (const name of ['live.json', 'live.traj']) {
      const file = path.join(repo.dir, '..', name);
      await writeTrajectoryFile(file, live);
      const { format, trajectory } = await loadTrajectory(file);
      assert.equal(format, name.endsWith('.traj') ? 'swe-agent' : 'canonical');
      assert.deepEqual(
        trajectory.steps.map((s) => s.observation),
        live.steps.map((s) => s.observation),
      );
    }
  });

  test('replaying the recording in a fresh sandbox matches every step', async () => {
    const { session } = await newSession(async (aci) => ({ sources: [new RecordingSource(live.steps, aci.tools)] }));
    const stop = await session.continue();
    await session.finish();
    assert.equal(stop.reason, 'submitted');
    assert.deepEqual(
      session.comparisons.map((c) => c.matched),
      [true, true, true, true],
    );
  });

  test('after changing one line of the repository, the first affected step diverges with the line diff', async () => {
    const { session, sandbox, events } = await newSession(async (aci) => ({
      sources: [new RecordingSource(live.steps, aci.tools)],
      breakpoints: [{ kind: 'divergence' }],
    }));
    await sandbox.exec(`sed -i '76s/.*/        """Split into parts by ratio."""/' ledger/money.py`);
    const stop = await session.continue();
    await session.finish();
    assert.deepEqual([stop.reason, stop.breakpoint?.kind, stop.index], ['breakpoint', 'divergence', 2]);
    assert.deepEqual(
      session.comparisons.map((c) => c.matched),
      [true, false],
    );
    const diff = session.firstDivergence!.diff;
    assert.match(diff, /^-76:        """Split into parts proportional to ``ratios`` that add up to exactly this amount\."""$/m);
    assert.match(diff, /^\+76:        """Split into parts by ratio\."""$/m);
    assert.equal(events.filter((e) => e.type === 'divergence').length, 1);
  });

  test('a breakpoint on a tool stops before it runs; the edited action runs instead', async () => {
    const { session } = await newSession(async (aci) => ({
      sources: [new RecordingSource(live.steps, aci.tools)],
      breakpoints: [{ kind: 'tool', tool: 'open' }],
    }));
    const first = await session.continue();
    assert.deepEqual([first.reason, first.index, first.breakpoint?.kind], ['breakpoint', 1, 'tool']);
    assert.equal((await session.peekNext())?.action.raw, 'open "ledger/money.py" 75');
    await session.editNext('open "ledger/money.py" 1');
    const second = await session.step();
    assert.deepEqual([second.reason, second.index], ['step', 2]);
    const edited = session.steps[1]!;
    assert.deepEqual(edited.action.args, { path: 'ledger/money.py', line_number: 1 });
    assert.deepEqual(edited.flags, ['edited']);
    assert.match(edited.observation, /^1:"""Exact amounts of money in a single currency\."""$/m);
    assert.equal(session.comparisons[1]!.matched, false);
    const rest = await session.continue();
    assert.equal(rest.reason, 'submitted');
    await session.finish();
  });

  test('run to step N, then pause from a listener', async () => {
    const { session } = await newSession(async (aci) => ({ sources: [new RecordingSource(live.steps, aci.tools)] }));
    assert.deepEqual(await session.runTo(2).then((s) => [s.reason, s.index]), ['run-to', 2]);
    const off = session.on((e) => e.type === 'step-done' && session.pause());
    assert.deepEqual(await session.continue().then((s) => [s.reason, s.index]), ['paused', 3]);
    off();
    const done = await session.continue();
    assert.equal(done.reason, 'submitted');
    await session.finish();
  });

  test('a person types the actions; an unreadable one is a format error step, not a crash', async () => {
    const { session } = await newSession(async (aci) => {
      const person = new PersonSource(aci.tools);
      person.type('goto 5');
      person.type('echo "one two"', 'check the shell');
      person.type('edit 1:x\nfoo\nend_of_edit');
      person.type('ls no-such-file');
      person.type('echo after');
      person.type('echo "one more line" >> README.md');
      person.end();
      return { sources: [person], breakpoints: [{ kind: 'exit-code' }] };
    });
    let stop = await session.continue();
    while (stop.reason === 'breakpoint' && stop.index < 4) stop = await session.continue();
    assert.deepEqual([stop.reason, stop.breakpoint?.kind, stop.index], ['breakpoint', 'exit-code', 4]);
    assert.equal(session.steps[3]!.exitCode, 2);
    stop = await session.continue();
    const trajectory = await session.finish();
    assert.equal(stop.reason, 'exhausted');
    assert.equal(trajectory.steps[0]!.observation, 'No file open. Use the open command first.');
    assert.equal(trajectory.steps[1]!.observation, 'one two');
    assert.equal(trajectory.steps[1]!.thought, 'check the shell');
    assert.ok(trajectory.steps[2]!.formatError);
    assert.equal(trajectory.outcome.exitStatus, 'exit_no_more_actions');
    assert.match(trajectory.outcome.submission ?? '', /^diff --git a\/README\.md b\/README\.md\n[\s\S]*^\+one more line$/m);
  });

  test('a fork at step 2 replays two recorded steps, then continues live and remembers its parent', async () => {
    server.setScript([thoughtAction('Count the journal tests instead.', 'grep -c "def test_" tests/test_journal.py'), thoughtAction('Done.', 'submit')]);
    const { session } = await newSession(async (aci) => {
      const fork = forkOf(live, 'live.json', 2, aci.tools, await policySource(server.url, aci));
      return { sources: fork.sources, meta: { parent: fork.parent } };
    });
    const stop = await session.continue();
    const forked = await session.finish();
    assert.equal(stop.reason, 'submitted');
    assert.deepEqual(forked.meta.parent, { id: live.meta.id, forkStep: 1 });
    assert.equal(forked.steps.length, 4);
    for (const i of [0, 1]) {
      assert.deepEqual(forked.steps[i]!.action, live.steps[i]!.action);
      assert.equal(forked.steps[i]!.logprobs?.length, live.steps[i]!.logprobs?.length);
    }
    assert.deepEqual(
      session.comparisons.map((c) => c.matched),
      [true, true],
    );
    assert.equal(forked.steps[2]!.action.raw, 'grep -c "def test_" tests/test_journal.py');
    // The live policy got the two replayed steps as its history.
    assert.equal(server.chatRequests.at(-2)!.messages.length, 2 + 2 * 2);
  });

  test('a policy that keeps failing stops the run with the reason; the sandbox is still disposed', async () => {
    const fault = { kind: 'status' as const, status: 503, message: 'engine overloaded' };
    server.setScript([{ fault }, { fault }, { fault }, { fault }]);
    const { session, sandbox, events } = await newSession(async (aci) => ({ sources: [await policySource(server.url, aci)] }));
    const stop = await session.continue();
    assert.equal(stop.reason, 'error');
    assert.match(stop.error ?? '', /HTTP 503: engine overloaded \(gave up after 4 attempts\)/);
    const trajectory = await session.finish();
    assert.equal(trajectory.steps.length, 0);
    assert.match(trajectory.outcome.error ?? '', /engine overloaded/);
    assert.equal(trajectory.outcome.exitStatus, 'exit_error');
    assert.ok(events.some((e) => e.type === 'error'));
    assert.equal(existsSync(sandbox.id), false);
  });

  test('a stream cut mid-reply stops at the format-error breakpoint, and the person asks the policy again', async () => {
    server.setScript([
      { ...thoughtAction('Find it.', 'grep -n "def allocate" ledger/money.py'), fault: { kind: 'truncate', afterChunks: 3 } },
      thoughtAction('Find it.', 'grep -n "def allocate" ledger/money.py'),
    ]);
    const { session } = await newSession(async (aci) => ({
      sources: [await policySource(server.url, aci, { stream: true })],
      breakpoints: [{ kind: 'format-error' }],
    }));
    const stop = await session.continue();
    assert.deepEqual([stop.reason, stop.breakpoint?.kind], ['breakpoint', 'format-error']);
    const next = await session.peekNext();
    assert.deepEqual(next?.flags, ['truncated-sampling', 'stream-interrupted']);
    assert.equal(next?.thought, 'Find it.');
    const again = await session.regenerateNext();
    assert.equal(again?.formatError, undefined);
    await session.step();
    assert.equal(session.steps[0]!.observation, '75:    def allocate(self, ratios):');
    assert.equal(server.chatRequests.length, 2);
    await session.finish();
  });

  test('finishing a running session cancels the step in progress and still records and disposes', async () => {
    server.setScript([thoughtAction('Wait.', 'sleep 30'), thoughtAction('Done.', 'submit')]);
    const { session, sandbox } = await newSession(async (aci) => ({ sources: [await policySource(server.url, aci)] }));
    const started = new Promise<void>((resolve) => session.on((e) => e.type === 'step-started' && resolve()));
    const running = session.continue();
    await started;
    const trajectory = await session.finish();
    assert.deepEqual(await running.then((s) => s.reason), 'cancelled');
    assert.equal(trajectory.outcome.exitStatus, 'exit_cancelled');
    assert.equal(trajectory.steps.length, 0);
    assert.equal(existsSync(sandbox.id), false);
  });

  test('cancelling the signal stops the session and disposes the sandbox', async () => {
    server.setScript([{ fault: { kind: 'hang' } }]);
    const controller = new AbortController();
    const { session, sandbox } = await newSession(async (aci) => ({ sources: [await policySource(server.url, aci)], signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    const stop = await session.continue();
    assert.deepEqual([stop.reason, stop.done], ['cancelled', true]);
    const trajectory = await session.finish();
    assert.equal(trajectory.outcome.exitStatus, 'exit_cancelled');
    assert.equal(existsSync(sandbox.id), false);
  });
});
