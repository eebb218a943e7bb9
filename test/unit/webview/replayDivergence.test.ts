import '../../helpers/families';
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { compareContent } from '../../../extension/views/compareView';
import { divergenceSummary } from '../../../webview/compare/divergenceSummary';

const DEMO = path.resolve(__dirname, '../../../demo/trajectories');

describe('Compare of a recording with its replay', () => {
  test('the same actions, and the steps where the replay diverged are named', async () => {
    const runs = await Promise.all(
      ['on-the-buggy-tree.traj', 'on-the-buggy-tree.replayed.traj'].map(async (name) => {
        const file = path.join(DEMO, name);
        return { path: file, trajectory: (await loadTrajectory(file)).trajectory };
      }),
    );
    const content = compareContent(runs);
    assert.equal(content.firstDivergence, null, 'a replay takes the recorded actions');
    const flagged = runs[1]!.trajectory.steps.flatMap((s, i) => (s.flags?.includes('diverged') ? [i] : []));
    assert.equal(flagged.length, 2, 'the demo replay marks two diverged steps');
    assert.deepEqual(content.runs[1]!.diverged, flagged);
    assert.deepEqual(content.runs[0]!.diverged, []);
    const cells = content.rows.map((row) => row.cells[1]!.diverged);
    assert.deepEqual(
      cells.flatMap((d, i) => (d ? [i] : [])),
      flagged,
    );
    const [a, b] = flagged.map((i) => i + 1);
    assert.equal(
      divergenceSummary(content),
      `the runs take the same actions throughout; but on-the-buggy-tree.replayed.traj's steps ${a} and ${b} diverged from the recording when replayed (their output differs)`,
    );
  });
});
