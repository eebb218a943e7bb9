import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { compareLoad } from '../../../extension/protocol/compare';
import { safeParse } from '../../../extension/protocol/ipc';
import { compareContent, type LoadedRun } from '../../../extension/views/compareView';
import { rolloutAt } from '../../../extension/vscode/rollouts/rolloutEvidence';
import { W101, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';
import { thirdParty, thirdPartyFiles } from '../../helpers/trajectoryFiles';
import { divergenceSummary } from '../../../webview/compare/divergenceSummary';

async function run(file: string): Promise<LoadedRun> {
  return { path: thirdParty(file), trajectory: (await loadTrajectory(thirdParty(file))).trajectory };
}

describe('the compare view content', () => {
  thirdPartyFiles.test('three runs of marshmallow-1867: aligned, parted at the first edit of fields.py, a fork that stopped early leaves gaps', async () => {
    const windowed = await run('swe-agent/marshmallow-1867.windowed.traj');
    const fc = await run('swe-agent/marshmallow-1867.function_calling.traj');
    // A fork of the function-calling run after its step 5 that then ran the tests and gave up.
    const forkSteps = [
      ...fc.trajectory.steps.slice(0, 5),
      { ...fc.trajectory.steps[2]!, index: 5, action: { raw: 'python -m pytest tests', tool: 'bash', args: { command: 'python -m pytest tests' } } },
    ];
    const fork: LoadedRun = {
      path: '/tmp/fork.traj.json',
      trajectory: { ...fc.trajectory, steps: forkSteps, outcome: { exitStatus: 'exit_cost' } },
    };
    const content = compareContent([windowed, fc, fork]);
    assert.ok(safeParse(compareLoad.result, content).success, 'the content is what the protocol allows');
    assert.equal(
      content.title,
      'Compare marshmallow-1867.windowed.traj, marshmallow-1867.function_calling.traj, fork.traj.json of marshmallow-code__marshmallow-1867',
    );
    assert.equal(content.warning, undefined);
    assert.deepEqual(
      content.runs.map((r) => [r.label, r.detail]),
      [
        ['marshmallow-1867.windowed.traj', 'swe-agent'],
        ['marshmallow-1867.function_calling.traj', 'swe-agent'],
        ['fork.traj.json', 'swe-agent'],
      ],
    );
    assert.equal(content.firstDivergence, 5, 'the fork parts first, at its step 6');
    assert.deepEqual(
      content.rows.slice(0, 5).map((r) => r.same),
      [true, true, true, true, true],
    );
    assert.deepEqual(
      content.runs.map((r) => r.stepCount),
      [11, 11, 6],
    );
    assert.deepEqual(
      content.runs.map((r) => r.patch !== ''),
      [true, true, false],
    );
    assert.deepEqual(
      content.runs.map((r) => r.cost),
      [undefined, undefined, undefined],
      'the zeros these files record are not counts',
    );
    const gaps = content.rows.filter((r) => r.cells[2] === null).length;
    assert.ok(gaps >= 5, `the fork's missing steps are gaps (${gaps})`);
  });

  thirdPartyFiles.test('runs of different tasks are compared with a warning that says so', async () => {
    const content = compareContent([await run('swe-agent/marshmallow-1867.windowed.traj'), await run('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj')]);
    assert.match(content.warning ?? '', /^These runs are of different tasks \(marshmallow-code__marshmallow-1867, pandas-dev__pandas\.95280573\.pr_53856\)/);
    assert.equal(content.runs[1]!.cost, 0.24830985);
  });
});

describe('the compare view from a branch point', () => {
  /** A continuation of the function-calling run forked after its step 5: its first own step runs the tests, then it edits as the recording did. */
  async function branched(): Promise<[LoadedRun, LoadedRun]> {
    const recording = await run('swe-agent/marshmallow-1867.function_calling.traj');
    const steps = recording.trajectory.steps;
    const pytest = { raw: 'python -m pytest tests', tool: 'bash', args: { command: 'python -m pytest tests' } };
    const own = [{ ...steps[2]!, action: pytest }, ...steps.slice(5, 8)].map((s, i) => ({ ...s, index: 5 + i }));
    return [
      recording,
      { path: '/tmp/run.traj.branches/after-step-5/continuation-1.traj', trajectory: { ...recording.trajectory, steps: [...steps.slice(0, 5), ...own] } },
    ];
  }

  thirdPartyFiles.test(
    "the shared prefix comes first, marked shared; the rows after start at both runs' step 6 and the summary counts from there",
    async () => {
      const runs = await branched();
      const content = compareContent(runs, { afterStep: 5 });
      assert.ok(safeParse(compareLoad.result, content).success, 'the content is what the protocol allows');
      assert.deepEqual(content.branchPoint, { afterStep: 5, sharedRows: 5 });
      assert.deepEqual(
        content.rows.map((r) => r.shared === true),
        content.rows.map((_, i) => i < 5),
        'the first five rows, and only they, are the shared prefix',
      );
      assert.deepEqual(
        content.rows[5]!.cells.map((c) => c?.index),
        [undefined, 5],
        "the first row after the branch point is the continuation's own step 6, the tests, which the recording never ran",
      );
      assert.equal(content.rows[5]!.cells[1]!.fullLabel.includes('pytest'), true);
      assert.equal(content.firstDivergence, 5, 'they part at the branch point: the continuation ran the tests first');
      assert.equal(
        divergenceSummary(content),
        'from the branch point after step 5 (steps 1–5 shared), the runs part at row 6: marshmallow-1867.function_calling.traj (no step), continuation-1.traj step 6',
      );
      // The continuation's later steps are the recording's steps 6 to 8: aligned with them, not with the prefix.
      assert.deepEqual(
        content.rows.slice(6, 9).map((r) => r.cells.map((c) => c?.index)),
        [
          [5, 6],
          [6, 7],
          [7, 8],
        ],
        "the continuation's steps 7 to 9 are the recording's 6 to 8",
      );
      const whole = compareContent(runs);
      assert.equal(whole.branchPoint, undefined);
      assert.ok(
        whole.rows.every((r) => r.shared === undefined),
        'without a branch point nothing is marked shared',
      );
    },
  );

  thirdPartyFiles.test("a branch point past a run's end is an error naming the run", async () => {
    const [recording] = await branched();
    assert.throws(
      () => compareContent([recording, recording], { afterStep: 12 }),
      /after step 12: .*marshmallow-1867\.function_calling\.traj has only 11 steps/,
    );
  });
});

describe("the compare view of the demo's acme__widgets-101 group", () => {
  let root: string;
  let rollouts: Rollout[];
  before(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'swe-workbench-compare-'));
    writeTrainingRun(root);
    rollouts = (await indexRollouts(root)).rollouts;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** The group's four runs as the compare command loads them: each file, and its row of the indexed folder when it is one. */
  async function group(indexed: boolean): Promise<LoadedRun[]> {
    const files: Array<[string, number | undefined]> = [
      [`attempt_1/${W101}/${W101}.traj`, undefined],
      [`attempt_2/${W101}/${W101}.traj`, undefined],
      [`attempt_3/${W101}/${W101}.traj.json`, undefined],
      ['attempt_4/deepswe.jsonl', 0],
    ];
    return Promise.all(
      files.map(async ([relative, record]) => {
        const file = path.join(root, relative);
        const { trajectory, line } = await loadTrajectory(file, record === undefined ? {} : { record });
        const rollout = indexed ? await rolloutAt(root, rollouts, file, record) : undefined;
        if (indexed) assert.ok(rollout, `${relative} is a row of the index`);
        return { path: file, trajectory, ...(record === undefined ? {} : { record, line }), ...(rollout ? { rollout } : {}) };
      }),
    );
  }

  test('columns named by attempt, folder and format; outcomes as the rollouts table grades them; no warning', async () => {
    const content = compareContent(await group(true));
    assert.ok(safeParse(compareLoad.result, content).success);
    assert.equal(content.title, `Compare attempts 1, 2, 3, 4 of ${W101}`);
    assert.equal(content.warning, undefined, 'attempt 2 names no task in its file, which does not change the reading');
    assert.deepEqual(
      content.runs.map((r) => [r.label, r.detail]),
      [
        ['attempt 1', `swe-agent · attempt_1/…/${W101}.traj`],
        ['attempt 2', `swe-agent · attempt_2/…/${W101}.traj`],
        ['attempt 3', `mini-swe-agent · attempt_3/…/${W101}.traj.json`],
        ['attempt 4', 'r2e-gym · attempt_4/deepswe.jsonl:1'],
      ],
    );
    assert.deepEqual(
      content.runs.map((r) => r.outcome),
      ['resolved, exit: submitted', 'not resolved, exit: submitted', 'not resolved, exit: LimitsExceeded', 'resolved (reward 1), exit: agent'],
    );
    assert.deepEqual(
      content.runs.map((r) => r.gradedBy),
      [
        `attempt_1/logs/run_evaluation/attempt_1/acme-coder-7b/${W101}/report.json`,
        `attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b/${W101}/report.json`,
        'attempt_3/acme-coder-7b.attempt_3.json',
        'the trajectory',
      ],
    );
    assert.equal(content.firstDivergence, 5, 'every run opens with the same five actions: they part at row 6');
    assert.deepEqual(
      content.rows.slice(0, 5).map((r) => r.cells.map((c) => c?.index)),
      [0, 1, 2, 3, 4].map((k) => [k, k, k, k]),
    );
    assert.deepEqual(
      content.rows[0]!.cells.map((c) => c?.label),
      Array(4).fill('open "src/widgets/resize.py" 10'),
      "R2E-Gym's shell call reads as its command line",
    );
  });

  test('the same files outside an indexed folder: told apart by folder, graded as far as each file says', async () => {
    const content = compareContent(await group(false));
    assert.deepEqual(
      content.runs.map((r) => [r.label, r.detail]),
      [
        [`attempt_1/…/${W101}.traj`, 'swe-agent'],
        [`attempt_2/…/${W101}.traj`, 'swe-agent'],
        [`attempt_3/…/${W101}.traj.json`, 'mini-swe-agent'],
        ['attempt_4/deepswe.jsonl:1', 'r2e-gym'],
      ],
    );
    assert.deepEqual(
      content.runs.map((r) => r.gradedBy),
      [undefined, undefined, undefined, 'the trajectory'],
    );
    assert.equal(content.warning, undefined);
  });

  test('two comparisons of different runs of the group are titled apart: each names its runs', async () => {
    const runs = await group(true);
    const [first, second] = [compareContent(runs.slice(0, 2)).title, compareContent(runs.slice(2)).title];
    assert.equal(first, `Compare attempts 1, 2 of ${W101}`);
    assert.equal(second, `Compare attempts 3, 4 of ${W101}`);
    // Outside the indexed folder the runs are named by their files.
    assert.equal(compareContent((await group(false)).slice(2)).title, `Compare ${W101}.traj.json, deepswe.jsonl:1 of ${W101}`);
  });
});
