/**
 * Records the demo's trajectories on the sample repository, in real containers, against the
 * scripted stand-in policy, and writes them with the project's own exporters (the main episode in
 * each format is recorded live in that format's own scaffold):
 *
 *   node --import tsx scripts/demo/generate.ts [--out demo/trajectories]
 *
 * Needs a Docker engine and the base image (`bash scripts/setup.sh`). The files are committed
 * (so `npm start` needs no Docker to show them) and test/integration/demo/demoTrajectories.test.ts
 * checks that regenerating them gives the same files. Wall-clock fields (each step's execution
 * time and timestamp, the creation time) are left out and ids are named, so that it can.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { command as runCommand } from '../../extension/cli/run';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { PolicyServer } from './policy/scriptedPolicyServer';
import { PersonSource, RecordingSource } from '../../extension/core/session/actionSources';
import { startContainerSession } from '../../extension/core/session/containerSession';
import { DebugSession } from '../../extension/core/session/debugSession';
import { forkOf } from '../../extension/core/session/fork';
import { exportFormats, exportTrajectory, type ExportFormat } from '../../extension/core/trajectory/exporters';
import { formatNamed } from '../../extension/core/trajectory/formatRegistry';
import { installScaffoldFamilies } from '../../extension/families';
import { TrajectorySchema, type Trajectory } from '../../extension/core/trajectory/model';
import { r2eGymImage } from '../../extension/core/scaffolds/r2e-gym/image';
import { runCli } from '../../test/helpers/cliRunner';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import {
  DEMO_EPISODE_IN,
  DEMO_IMAGE,
  DEMO_INSTANCE,
  DEMO_MODEL,
  DEMO_PROBLEM,
  FORK_CONTINUATION,
  READING_EPISODE,
  TYPED_BY_HAND,
  demoReply,
} from './ledgerDemo';

const repoRoot = path.resolve(__dirname, '../..');
export const DEMO_TRAJECTORIES = path.join(repoRoot, 'demo/trajectories');
const BUG = path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close/bug_inject.diff');
const REPO_PATH = '/repo';

/** The recording the others derive from; every format of it is written. */
export const MAIN = 'ledger-allocate';

const gitEnv = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Demo',
  GIT_AUTHOR_EMAIL: 'demo@example.invalid',
  GIT_COMMITTER_NAME: 'Demo',
  GIT_COMMITTER_EMAIL: 'demo@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-02T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-02T00:00:00Z',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, ...gitEnv }, encoding: 'utf8' }).trim();

/** Named ids and no wall-clock fields, so that two generations write the same bytes. */
function stable(t: Trajectory, id: string, ids: ReadonlyMap<string, string>): Trajectory {
  const { createdAt: _created, ...meta } = t.meta;
  return TrajectorySchema.parse({
    ...t,
    steps: t.steps.map(({ executionTime: _time, timestamp: _stamp, ...step }) => step),
    meta: { ...meta, id, ...(meta.parent ? { parent: { ...meta.parent, id: ids.get(meta.parent.id) ?? meta.parent.id } } : {}) },
  });
}

async function runLive(server: PolicyServer, task: string, out: string, extra: string[] = []): Promise<Trajectory> {
  const r = await runCli(runCommand, [
    '--task',
    task,
    '--policy-url',
    server.url,
    '--model',
    DEMO_MODEL,
    '--out',
    out,
    '--max-steps',
    '8',
    '--logprobs',
    '2',
    '--temperature',
    '0',
    ...extra,
  ]);
  if (r.code !== 0) throw new Error(`swe-workbench run ${extra.join(' ')} failed (${r.code}): ${r.stderr}`);
  return TrajectorySchema.parse(JSON.parse(await readFile(out, 'utf8')));
}

/** A session in a fresh container of `repoDir`, run to its end. */
async function runSession(
  recording: Trajectory,
  repoDir: string,
  sources: (tools: ReturnType<typeof toolSetFor>) => {
    sources: ConstructorParameters<typeof DebugSession>[0]['sources'];
    parent?: Trajectory['meta']['parent'];
  },
): Promise<Trajectory> {
  const tools = toolSetFor(recording.meta.toolBundles);
  const made = sources(tools);
  const { id: _id, createdAt: _created, parent: _parent, ...meta } = recording.meta;
  const aci = await startContainerSession({
    image: DEMO_IMAGE,
    repoDir,
    repoPath: REPO_PATH,
    role: 'run',
    tools,
    ...(recording.task.baseCommit ? { baseCommit: recording.task.baseCommit } : {}),
  });
  const session = new DebugSession({
    aci,
    sources: made.sources,
    task: recording.task,
    meta: { ...meta, ...(made.parent ? { parent: made.parent } : {}) },
    maxSteps: 8,
  });
  await session.continue();
  return session.finish();
}

/** Records every demo trajectory and writes them to `outDir`; returns the file names written. */
export async function generateDemoTrajectories(outDir: string): Promise<string[]> {
  installScaffoldFamilies();
  const work = await mkdtemp(path.join(tmpdir(), 'swe-workbench-demo-gen-'));
  const server = await new PolicyServer((request) => demoReply(request), { models: [DEMO_MODEL] }).listen();
  try {
    const sample = await materializeSampleRepo(path.join(work, 'repo'));
    // The same repository with the injected bug in its working tree: what the diverging
    // recording saw. It names no base commit, so a replay on the sample repository diffs
    // against that repository's HEAD.
    const buggy = path.join(work, 'buggy');
    await cp(sample.dir, buggy, { recursive: true });
    git(buggy, 'apply', BUG);
    const task = async (name: string, repo: string, baseCommit?: string, image = DEMO_IMAGE) => {
      const file = path.join(work, `${name}.task.json`);
      await writeFile(
        file,
        JSON.stringify({ image, repo, repoPath: REPO_PATH, ...(baseCommit ? { baseCommit } : {}), instanceId: DEMO_INSTANCE, problemStatement: DEMO_PROBLEM }),
      );
      return file;
    };
    // The task starts before the fix (the sample repository's HEAD has it), so the policy's patch
    // is a real one; a session copying the repository checks its base commit out.
    const fixAt = sample.commits.findIndex((c) => c.sha === sample.bugFixCommit);
    const beforeFix = sample.commits[fixAt - 1]!.sha;
    const mainTask = await task('main', sample.dir, beforeFix);

    const main = await runLive(server, mainTask, path.join(work, 'main.json'));
    server.setScript([...READING_EPISODE]);
    const onBuggyTree = await runLive(server, await task('buggy', buggy), path.join(work, 'buggy.json'));
    server.setScript((request) => demoReply(request));
    // The episode recorded live again in each other scaffold, in that scaffold's reply format,
    // tools and observation wording: each format's file is that scaffold's own recording.
    const inScaffold = new Map<ExportFormat, Trajectory>([
      ['swe-agent', main],
      ['canonical', main],
      // Harbor's interchange format written from the SWE-agent run, as `convert --to atif` writes it.
      ['atif', main],
    ]);
    for (const format of ['mini-swe-agent', 'r2e-gym', 'openhands'] as const) {
      const { scaffold } = DEMO_EPISODE_IN[format];
      // R2E-Gym's tools run with /root/.venv/bin/python, as in R2E-Gym's own images: the setup builds this one.
      const image = format === 'r2e-gym' ? (await r2eGymImage.ensure({})).tag : DEMO_IMAGE;
      const scaffoldTask = await task(`main.${format}`, sample.dir, beforeFix, image);
      inScaffold.set(format, await runLive(server, scaffoldTask, path.join(work, `main.${format}.json`), ['--scaffold', scaffold]));
    }
    // OpenHands V1 has no demo episode of its own yet: its format gets no demo file (convert writes one).
    const notInDemo = new Set<ExportFormat>(['openhands-v1']);
    const recordingFor = (format: ExportFormat) => {
      const t = inScaffold.get(format);
      if (!t) throw new Error(`no recording for the ${format} format: add its scaffold to the list above`);
      return t;
    };

    server.setScript([...FORK_CONTINUATION]);
    const forkByPolicy = await runLive(server, mainTask, path.join(work, 'fork-policy.json'), ['--fork', path.join(work, 'main.json'), '--at', '2']);
    const forkByHand = await runSession(main, sample.dir, (tools) => {
      const person = new PersonSource(tools);
      for (const typed of TYPED_BY_HAND) person.type(typed);
      person.end();
      return forkOf(main, path.join(work, 'main.json'), 1, tools, person);
    });
    // The buggy tree's recording replayed on the sample repository: the steps that read the
    // changed lines print something else, and the replay marks them diverged.
    const replayed = await runSession(onBuggyTree, sample.dir, (tools) => ({ sources: [new RecordingSource(onBuggyTree.steps, tools)] }));

    const ids = new Map([[main.meta.id!, `demo:${MAIN}`]]);
    const files: Array<[string, string]> = exportFormats()
      .filter((format) => !notInDemo.has(format))
      .map((format) => [
        `${MAIN}.${format}${formatNamed(format)!.exporter!.extension}`,
        exportTrajectory(stable(recordingFor(format), `demo:${MAIN}`, ids), format),
      ]);
    const sweAgent = (t: Trajectory) => exportTrajectory(t, 'swe-agent');
    files.push(
      ['on-the-buggy-tree.traj', sweAgent(stable(onBuggyTree, 'demo:on-the-buggy-tree', ids))],
      ['on-the-buggy-tree.replayed.traj', sweAgent(stable(replayed, 'demo:on-the-buggy-tree.replayed', ids))],
      ['fork-at-2.by-policy.traj', sweAgent(stable(forkByPolicy, 'demo:fork-at-2.by-policy', ids))],
      ['fork-at-1.by-hand.traj', sweAgent(stable(forkByHand, 'demo:fork-at-1.by-hand', ids))],
    );
    await mkdir(outDir, { recursive: true });
    for (const [name, text] of files) await writeFile(path.join(outDir, name), text);
    return files.map(([name]) => name);
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const { values } = parseArgs({ options: { out: { type: 'string', default: DEMO_TRAJECTORIES } } });
  generateDemoTrajectories(path.resolve(values.out!)).then(
    (names) => console.log(`wrote ${names.length} trajectories to ${values.out}:\n  ${names.join('\n  ')}`),
    (err: unknown) => {
      console.error(`demo/generate: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
