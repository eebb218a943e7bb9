import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { command as runCommand } from '../../../extension/cli/run';
import { PolicyServer } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { TrajectorySchema } from '../../../extension/core/trajectory/model';
import { DEMO_MODEL, DEMO_PROBLEM, demoReply } from '../../../scripts/demo/ledgerDemo';
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
        [true, true, true, true],
        r.stdout,
      );
      const summary = lines.at(-1)?.summary;
      assert.deepEqual(
        summary && { matched: summary.matched, recorded: summary.recorded, firstDivergence: summary.firstDivergence, stop: summary.stop },
        { matched: 4, recorded: 4, firstDivergence: null, stop: 'submitted' },
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
        assert.equal(t.steps.length, 4, `${file}: ${t.steps.map((x) => x.action.raw).join(' | ')}`);
        assert.ok(
          t.steps.every((x) => x.formatError === undefined),
          `${file}: every reply was read in ${scaffold}'s format`,
        );
        const command = t.steps[2]!.action.args.command ?? t.steps[2]!.action.args.cmd;
        assert.equal(command, 'grep -c "def test_" tests/test_money.py', file);
        assert.match(t.steps[2]!.observation, /17/, file);
        assert.equal(t.outcome.exitStatus, 'submitted', file);
      }
    } finally {
      await server.close();
    }
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
