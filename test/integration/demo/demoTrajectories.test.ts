import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as replayCommand } from '../../../extension/cli/replay';
import { DEMO_TRAJECTORIES, MAIN, generateDemoTrajectories } from '../../../scripts/demo/generate';
import { runCli } from '../../helpers/cliRunner';
import { TEST_IMAGE } from '../../helpers/docker';
import { sampleRepoCopy } from '../../helpers/ledgerAgentScript';

const jsonLines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as { index?: number; matched?: boolean; diff?: string; summary?: { matched: number; firstDivergence: number | null } });

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
      assert.equal(await readFile(path.join(out, name), 'utf8'), await readFile(path.join(DEMO_TRAJECTORIES, name), 'utf8'), `demo/trajectories/${name} is out of date: run node --import tsx scripts/demo/generate.ts`);
    }
  });

  // mini-swe-agent submits with a shell command that prints a marker, so its export matches up
  // to the submission; R2E-Gym's execute_bash / finish and OpenHands' run / finish replay as
  // bash and submit.
  for (const [file, steps] of [[`${MAIN}.swe-agent.traj`, 4], [`${MAIN}.canonical.json`, 4], [`${MAIN}.mini-swe-agent.traj.json`, 3], [`${MAIN}.r2e-gym.jsonl`, 4], [`${MAIN}.openhands.jsonl`, 4]] as const) {
    test(`${file} replays on the sample repository with steps 0..${steps - 1} matched`, async () => {
      const r = await runCli(replayCommand, [path.join(DEMO_TRAJECTORIES, file), '--image', TEST_IMAGE, '--repo', repo.dir, '--workdir', '/repo', '--json', '--until', String(steps)]);
      const lines = jsonLines(r.stdout);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(lines.at(-1)?.summary && { matched: lines.at(-1)!.summary!.matched, firstDivergence: lines.at(-1)!.summary!.firstDivergence }, { matched: steps, firstDivergence: null });
    });
  }

  test('the recording made on the buggy tree diverges on the sample repository where it read the changed lines', async () => {
    const r = await runCli(replayCommand, [path.join(DEMO_TRAJECTORIES, 'on-the-buggy-tree.traj'), '--image', TEST_IMAGE, '--repo', repo.dir, '--workdir', '/repo', '--json']);
    assert.equal(r.code, 1);
    const lines = jsonLines(r.stdout);
    assert.deepEqual(lines.slice(0, 4).map((l) => l.matched), [true, false, true, false]);
    assert.match(lines[1]!.diff ?? '', /^\+        leftover = total\.amount - sum\(parts\)$/m, 'the lines the bug removed appear in the replay');
  });
});
