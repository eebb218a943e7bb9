import '../../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { command as runCommand } from '../../../extension/cli/run';
import { PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { TrajectorySchema } from '../../../extension/core/trajectory/model';
import { DEMO_INSTANCE, DEMO_MODEL, DEMO_PROBLEM, demoReply } from '../../../scripts/demo/ledgerDemo';
import { gradeForcedInContainers } from '../../../extension/core/rollouts/forcedGrading';
import type { ForcedCandidate } from '../../../extension/core/rollouts/forcedSubmission';
import { TaskInstanceSchema } from '../../../extension/core/reward/instance';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { F2P, ledgerInstance } from '../../fixtures/rollouts/forcedRun';
import { sandboxFactory } from '../../helpers/bugSandboxes';
import { DEMO_TRAJECTORIES, MAIN, generateDemoTrajectories } from '../../../scripts/demo/generate';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';
import { ensureR2eTestImage } from '../../conformance/r2eOracle';
import { sampleRepoCopy } from '../../helpers/ledgerAgentScript';

const jsonLines = (text: string) =>
  text
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          index?: number;
          matched?: boolean;
          diff?: string;
          summary?: { matched: number; recorded: number; firstDivergence: number | null; stop?: string };
        },
    );

/** Each format's file of the main episode and the scaffold it was recorded in. */
const FILES = [
  [`${MAIN}.swe-agent.traj`, 'swe-agent'],
  [`${MAIN}.canonical.json`, 'swe-agent'],
  [`${MAIN}.mini-swe-agent.traj.json`, 'mini-swe-agent'],
  [`${MAIN}.r2e-gym.jsonl`, 'r2e-gym'],
  [`${MAIN}.openhands.jsonl`, 'openhands'],
] as const;

describe('the demo trajectories', () => {
  let out: string;
  let repo: Awaited<ReturnType<typeof sampleRepoCopy>>;
  before(async () => {
    out = await mkdtemp(path.join(tmpdir(), 'swe-workbench-demo-check-'));
    repo = await sampleRepoCopy();
  });
  after(async () => {
    await rm(out, { recursive: true, force: true });
    await repo.cleanup();
  });

  test('regenerating them (recorded again in containers against the scripted policy) writes the committed files byte for byte', async () => {
    const written = await generateDemoTrajectories(out);
    assert.deepEqual([...written].sort(), (await readdir(DEMO_TRAJECTORIES)).sort(), 'the same files, none missing, none extra');
    for (const name of written) {
      assert.equal(
        await readFile(path.join(out, name), 'utf8'),
        await readFile(path.join(DEMO_TRAJECTORIES, name), 'utf8'),
        `demo/trajectories/${name} is out of date: run node --import tsx scripts/demo/generate.ts`,
      );
    }
  });

  // Each format's file is the episode recorded live in that format's scaffold (SWE-agent's for
  // the canonical file), so each replays in its own scaffold, submission included: mini-swe-agent's
  // completion marker, R2E-Gym's finish, OpenHands' finish. R2E-Gym's tools need
  // /root/.venv/bin/python, as R2E-Gym's own images have it.
  for (const [file, scaffold] of FILES) {
    test(`${file} replays on the sample repository in the ${scaffold} scaffold with every step matched, its submission included`, async () => {
      const image = scaffold === 'r2e-gym' ? await ensureR2eTestImage() : TEST_IMAGE;
      const r = await runCli(replayCommand, [path.join(DEMO_TRAJECTORIES, file), '--image', image, '--repo', repo.dir, '--workdir', '/repo', '--json']);
      const lines = jsonLines(r.stdout);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`scaffold ${scaffold}@`), 'replayed in its own scaffold');
      assert.deepEqual(
        lines.filter((l) => l.index !== undefined).map((l) => l.matched),
        [true, true, true, true, true, true],
        r.stdout,
      );
      const summary = lines.at(-1)?.summary;
      assert.deepEqual(
        summary && { matched: summary.matched, recorded: summary.recorded, firstDivergence: summary.firstDivergence, stop: summary.stop },
        { matched: 6, recorded: 6, firstDivergence: null, stop: 'submitted' },
        r.stdout,
      );
    });
  }

  // `npm start` serves demoReply: a fork of any format's file continues in that file's scaffold,
  // and the served script answers in that scaffold's reply format.
  test("a fork at step 2 of each format's file continues against npm start's scripted policy in its own scaffold and submits", async () => {
    const server = await new PolicyServer((request) => demoReply(request), { models: [DEMO_MODEL] }).listen();
    try {
      for (const [file, scaffold] of FILES) {
        const image = scaffold === 'r2e-gym' ? await ensureR2eTestImage() : TEST_IMAGE;
        const taskFile = path.join(out, `fork-${scaffold}.task.json`);
        await writeFile(taskFile, JSON.stringify({ image, repo: repo.dir, repoPath: '/repo', problemStatement: DEMO_PROBLEM }));
        const forkOut = path.join(out, `fork-${path.basename(file)}.json`);
        const r = await runCli(runCommand, [
          '--task',
          taskFile,
          '--policy-url',
          server.url,
          '--model',
          DEMO_MODEL,
          '--out',
          forkOut,
          '--fork',
          path.join(DEMO_TRAJECTORIES, file),
          '--at',
          '2',
          '--max-steps',
          '6',
        ]);
        assert.equal(r.code, 0, `${file}: ${r.stderr}`);
        const t = TrajectorySchema.parse(JSON.parse(await readFile(forkOut, 'utf8')));
        assert.ok(t.meta.scaffold?.startsWith(`${scaffold}@`), `${file} forked in ${t.meta.scaffold}`);
        assert.equal(t.steps.length, 6, `${file}: ${t.steps.map((x) => x.action.raw).join(' | ')}`);
        assert.ok(
          t.steps.every((x) => x.formatError === undefined),
          `${file}: every reply was read in ${scaffold}'s format`,
        );
        // Steps 1-2 came from the recording, on the tree before the fix (its base commit): the policy
        // reproduces the lost cent, fixes it, and the check shows every cent kept and the tests passing.
        assert.match(t.steps[2]!.observation, /\['0\.33 USD', '0\.33 USD', '0\.33 USD'\]/, file);
        assert.match(t.steps[4]!.observation, /\['0\.34 USD', '0\.33 USD', '0\.33 USD'\]\n55 passed/, file);
        assert.equal(t.outcome.exitStatus, 'submitted', file);
        assert.match(t.outcome.submission ?? '', /^\+        leftover = self\.rounded\(\)\.amount - sum\(p\.amount for p in parts\)$/m, file);
      }
    } finally {
      await server.close();
    }
  });

  // The task starts before the fix: the patch the policy submitted is judged by the fix's own tests
  // (FAIL_TO_PASS: the two tests the fix added), in a fresh container at the task's base commit.
  test("each format's recording submits a patch that the fix's tests, run at the task's base commit, pass", async () => {
    const main = TrajectorySchema.parse(JSON.parse(await readFile(path.join(DEMO_TRAJECTORIES, `${MAIN}.canonical.json`), 'utf8')));
    const base = main.task.baseCommit!;
    assert.equal(
      execFileSync('git', ['-C', repo.dir, 'rev-parse', `${base}^{commit}`], { encoding: 'utf8' }).trim(),
      base,
      'the base commit is in the sample history',
    );
    // The commit right after the base is the fix whose tests judge the patch.
    assert.match(execFileSync('git', ['-C', repo.dir, 'log', '--reverse', '--format=%s', `${base}..HEAD`], { encoding: 'utf8' }), /^Fix Money\.allocate/);
    const candidates: ForcedCandidate[] = [];
    for (const [file] of FILES) {
      const t = (await loadTrajectory(path.join(DEMO_TRAJECTORIES, file))).trajectory;
      assert.equal(t.task.baseCommit, base, `${file} names the base commit`);
      candidates.push({
        id: file,
        instance: DEMO_INSTANCE,
        attempt: candidates.length + 1,
        steps: t.steps.length,
        patch: t.outcome.submission ?? null,
        source: file,
      });
    }
    const instance = TaskInstanceSchema.parse({ ...ledgerInstance(base), instance_id: DEMO_INSTANCE });
    const graded = await gradeForcedInContainers(candidates, {
      createSandbox: sandboxFactory(repo.dir, 'demo-grading'),
      instances: new Map([[DEMO_INSTANCE, instance]]),
    });
    assert.deepEqual(
      graded.grades.map((g) => [g.id, g.verdict, g.tests?.FAIL_TO_PASS.success]),
      FILES.map(([file]) => [file, 'passed', F2P]),
    );
  });

  test('the recording made on the buggy tree diverges on the sample repository where it read the changed lines', async () => {
    const r = await runCli(replayCommand, [
      path.join(DEMO_TRAJECTORIES, 'on-the-buggy-tree.traj'),
      '--image',
      TEST_IMAGE,
      '--repo',
      repo.dir,
      '--workdir',
      '/repo',
      '--json',
    ]);
    assert.equal(r.code, 1);
    const lines = jsonLines(r.stdout);
    assert.deepEqual(
      lines.slice(0, 4).map((l) => l.matched),
      [true, false, true, false],
    );
    assert.match(lines[1]!.diff ?? '', /^\+        leftover = total\.amount - sum\(parts\)$/m, 'the lines the bug removed appear in the replay');
  });
});
