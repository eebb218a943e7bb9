import '../../helpers/families';
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DebugSession } from '../../../extension/core/session/debugSession';
import { RecordingSource } from '../../../extension/core/session/actionSources';
import { writeTrajectoryFile } from '../../../extension/core/session/trajectoryRecorder';
import { LocalSandbox } from '../../../extension/core/runtime/localSandbox';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { toStepSummary } from '../../../extension/views/stepView';
import { aBashAction, aStep } from '../../builders/trajectory';
import { aciFor, sampleRepoCopy } from '../../helpers/ledgerAgentScript';

let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
before(async () => {
  repo = await sampleRepoCopy();
});
after(() => repo.cleanup());

describe("a replay's recording marks the steps that diverged", () => {
  test('the step whose observation differs from the recording is flagged diverged, and the mark survives the written file', async () => {
    const recording = [
      aStep({ index: 0, action: aBashAction('echo checked'), observation: 'checked' }),
      aStep({ index: 1, action: aBashAction('head -1 ledger/money.py'), observation: 'a first line the repository does not have' }),
      aStep({ index: 2, action: aBashAction('echo done'), observation: 'done' }),
    ];
    const sandbox = await LocalSandbox.create({ image: 'local', repoDir: repo.dir, repoPath: '/repo' });
    const aci = aciFor(sandbox);
    const session = new DebugSession({ aci, task: { repo: 'ledger' }, sources: [new RecordingSource(recording, aci.tools)] });
    await session.continue();
    const replayed = await session.finish();
    assert.deepEqual(
      session.comparisons.map((c) => c.matched),
      [true, false, true],
    );
    assert.deepEqual(
      replayed.steps.map((s) => (s.flags ?? []).includes('diverged')),
      [false, true, false],
    );

    const file = path.join(repo.dir, '..', 'replayed.json');
    await writeTrajectoryFile(file, replayed);
    const { trajectory } = await loadTrajectory(file);
    assert.deepEqual(
      trajectory.steps.map((s) => toStepSummary(s).diverged),
      [false, true, false],
    );
  });
});
