import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileEntry } from '../../../extension/core/rollouts/fileEntry';
import { joinRollouts } from '../../../extension/core/rollouts/rolloutJoin';

const INSTANCES = 50_000;
const ATTEMPTS = 2;
const id = (i: number) => `acme__widgets-${i}`;

/**
 * 100,000 SWE-agent trajectories that do not name their instance (the file name does) against
 * 50,000 instances a run report lists, as a run of that size is laid out. The join once
 * compared every file name with every instance id: 5 billion comparisons here, minutes of CPU.
 */
test('100,000 trajectories named by their files join with 50,000 reported instances', () => {
  const entries: FileEntry[] = [];
  for (let a = 1; a <= ATTEMPTS; a++) {
    const ids = Array.from({ length: INSTANCES }, (_, i) => id(i));
    entries.push({
      path: `attempt_${a}/report.json`,
      size: 1,
      mtimeMs: 1,
      trajectories: [],
      predictions: [],
      evaluations: ids.map((instanceId, i) => ({
        instanceId,
        file: `attempt_${a}/report.json`,
        source: 'run-report',
        resolved: (i + a) % 3 === 0,
        failingTests: [],
      })),
      errors: [],
    });
    for (let i = 0; i < INSTANCES; i++)
      entries.push({
        path: `attempt_${a}/${id(i)}/${id(i)}.traj`,
        size: 1,
        mtimeMs: 1,
        // `acme__widgets-1` is a prefix of `acme__widgets-10...`: only the whole id before the extension is this file's.
        trajectories: [{ format: 'swe-agent', steps: 3, exitStatus: 'submitted', hasSubmission: true }],
        predictions: [],
        evaluations: [],
        errors: [],
      });
  }
  const rows = joinRollouts(entries);
  assert.equal(rows.length, INSTANCES * ATTEMPTS);
  const wrong = rows.filter((r) => r.path !== `attempt_${r.attempt}/${r.instance}/${r.instance}.traj` || r.instanceSource !== 'file-name');
  assert.deepEqual(wrong.slice(0, 3), []);
  const i = 12_345;
  const row = rows.find((r) => r.id === `attempt_2/${id(i)}/${id(i)}.traj`)!;
  assert.equal(row.evaluation?.file, 'attempt_2/report.json');
  assert.equal(row.resolved, (i + 2) % 3 === 0);
});
