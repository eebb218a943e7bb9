/**
 * Forking a 150-step session at steps 5, 50 and 140, measured side by side in one run:
 *   snapshot  the fork restores the snapshot the session took at that step (core/session/forkSnapshots):
 *             a container started from the snapshot's tar in place of the repository, the tools' state. The session has finished and a
 *             SnapshotKeeper kept its snapshots, as VS Code's controller does (it stops the session
 *             before it starts the fork)
 *   replay    the same fork with snapshots off: a container, then steps 0..k-1 replayed
 * Both go through the launcher, as `swe-workbench run --fork` and VS Code's Fork Here do, and
 * count until the fork is ready to take its first new action. Rounds alternate the two.
 * Also printed: what taking the snapshots costs the running session per step (the same 150 steps
 * replayed with and without them, and how many steps needed no tar), and the two ways of snapshotting measured before choosing
 * (a tar through the session's shell vs `docker commit`, and a sandbox started from each: from the
 * tar, copied out of the source container first, vs from the committed image) on the sample
 * repository and on one of `--large-mb` MB; on each, a snapshot's cost per step as a whole-repository tar
 * vs a differential against the session's level-0 dump, and a fork's restore from level 0 + differential.
 * Then the same session on a generated repository of `--fork-mb` MB (files of random text, committed): its snapshots' bytes,
 * and forks by snapshot at the same steps three ways side by side (see `largeForks`): now, from the image of the level-0
 * dump; from the tars engine to engine (before the images); through the host (before that).
 * Usage: node --import tsx bench/session/fork.ts [--rounds N] [--large-mb N] [--fork-mb N] [--fork-only]
 */
import '../../test/helpers/families';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { AciSession } from '../../extension/core/aci/aciSession';
import { SessionSnapshots, SnapshotKeeper, type FoundSnapshot } from '../../extension/core/session/forkSnapshots';
import { FORK_SNAPSHOT_DIR } from '../../extension/core/runtime/containerPaths';
import type { Step } from '../../extension/core/trajectory/model';
import { planSession, type LaunchRequest } from '../../extension/core/session/sessionPlan';
import { startSession, type StartedSession } from '../../extension/core/session/sessionStart';
import type { Trajectory } from '../../extension/core/trajectory/model';
import { generatedRecording } from '../../test/helpers/forkRecording';
import { largeRepository } from '../../test/helpers/largeRepository';
import { sampleRepoCopy } from '../../test/helpers/ledgerAgentScript';
import { median, timed } from '../timing';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    'large-mb': { type: 'string', default: '40' },
    'fork-mb': { type: 'string', default: '100' },
    'fork-only': { type: 'boolean', default: false },
  },
});
const rounds = Number(values.rounds);
const largeMb = Number(values['large-mb']);
const forkMb = Number(values['fork-mb']);
const STEPS = 150;
const FORK_AT = [5, 50, 140];
const IMAGE = 'swe-workbench/base:bookworm';

function request(repoDir: string, recording: Trajectory, mode: LaunchRequest['mode'], at?: number): LaunchRequest {
  return {
    mode,
    recording: { trajectory: recording, ref: 'generated-150.json' },
    ...(at !== undefined ? { at } : {}),
    image: IMAGE,
    repoDir,
    repoPath: '/repo',
    task: { problemStatement: 'Keep notes.' },
  };
}

/** Starts a fork at `at` and brings it to that step; returns when it could take its first new action. */
async function fork(repoDir: string, recording: Trajectory, at: number, snapshots: boolean, images = true): Promise<{ ms: number; started: StartedSession }> {
  let started: StartedSession | undefined;
  const ms = await timed(async () => {
    started = await startSession(planSession(request(repoDir, recording, 'fork', at)), {
      role: 'bench',
      live: { kind: 'person' },
      ...(snapshots ? (images ? {} : { snapshots: { images: false } }) : { snapshots: false }),
    });
    const stop = await started.debug.runTo(at);
    if (stop.index !== at) throw new Error(`the fork stopped at ${stop.index}, not ${at}: ${stop.reason}`);
  });
  const expected = snapshots ? at : 0;
  if (started!.fork?.restoredAt !== expected)
    throw new Error(`fork at ${at}: restored at ${started!.fork?.restoredAt}, expected ${expected}: ${started!.fork?.note}`);
  return { ms, started: started! };
}

async function end(started: StartedSession): Promise<void> {
  started.person?.end();
  await started.debug.finish();
}

/** One snapshot by tar through the shell vs `docker commit`, and starting a container from each, on a repository of `mb` MB. */
async function mechanisms(repoDir: string, mb: number): Promise<void> {
  const docker = dockerFromEnv();
  const started = await startSession(planSession(request(repoDir, generatedRecording(1), 'replay')), { role: 'bench', snapshots: false });
  const sandbox = started.aci.sandbox;
  const images: string[] = [];
  try {
    if (mb > 0) {
      const fill = await sandbox.exec(
        `mkdir -p big && for i in $(seq 1 ${mb * 50}); do head -c 15000 /dev/urandom | base64 -w 0 > big/f$i.txt; done && git add -A big >/dev/null && du -sh /repo`,
        {
          cwd: '/repo',
          timeoutMs: 600_000,
        },
      );
      if (fill.exitCode !== 0) throw new Error(fill.output);
    }
    const size = (await sandbox.exec('du -sh /repo | cut -f1')).output.trim();
    const tar: number[] = [];
    const commit: number[] = [];
    const fromImage: number[] = [];
    const fromTar: number[] = [];
    for (let round = 0; round < rounds; round++) {
      tar.push(
        await timed(() => sandbox.exec(`mkdir -p /tmp/m && tar -C /repo -cf /tmp/m/${round}.tar . && md5sum < /tmp/m/${round}.tar`, { timeoutMs: 600_000 })),
      );
      let image = '';
      commit.push(
        await timed(async () => {
          const made = (await docker.getContainer(sandbox.id).commit({ repo: 'swe-workbench-bench-fork', tag: `r${round}`, pause: false })) as { Id: string };
          image = made.Id;
        }),
      );
      images.push(image);
      fromImage.push(
        await timed(async () => {
          const other = await DockerSandbox.create({ image, repoPath: '/repo', labels: { 'swe-workbench.role': 'bench' } });
          await other.dispose();
        }),
      );
      const local = await mkdtemp(path.join(tmpdir(), 'swb-bench-fork-'));
      try {
        fromTar.push(
          await timed(async () => {
            await sandbox.copyOut(`/tmp/m/${round}.tar`, path.join(local, 'in.tar'));
            const other = await DockerSandbox.create({
              image: IMAGE,
              repoTar: path.join(local, 'in.tar'),
              repoPath: '/repo',
              labels: { 'swe-workbench.role': 'bench' },
            });
            await other.dispose();
          }),
        );
      } finally {
        await rm(local, { recursive: true, force: true });
      }
    }
    const f = (xs: number[]) => `${median(xs).toFixed(0).padStart(6)} ms`;
    console.log(`repository ${size}: snapshot tar ${f(tar)}  docker commit ${f(commit)}  (commit/tar ${(median(commit) / median(tar)).toFixed(1)}x)`);
    console.log(
      `${' '.repeat(`repository ${size}: `.length)}restore   tar ${f(fromTar)}  from image    ${f(fromImage)}  (a sandbox started from the tar, copied out first, vs from the committed image)`,
    );
    await differentials(started.aci, size);
  } finally {
    await started.debug.finish();
    for (const image of images)
      await docker
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined);
  }
}

/**
 * On the started session's repository: what one snapshot costs a step that changed one file, whole
 * repository (the fallback) vs a differential against the level-0 dump taken at the first step, and
 * a fork's restore from the differential (copy both tars out, a container started from the level-0
 * tar, the differential extracted, the tools' state).
 */
async function differentials(aci: AciSession, size: string): Promise<void> {
  const cost = async (differential: boolean): Promise<{ ms: number; snapshots: SessionSnapshots; history: Step[] }> => {
    // No image of the dump: the restore measured here is the one from the tars.
    const snapshots = new SessionSnapshots(`bench-${differential}`, aci, 1024 ** 4, undefined, differential, 0, Infinity);
    const history: Step[] = [];
    const ms: number[] = [];
    for (let i = 0; i <= rounds; i++) {
      const raw = `echo ${differential} ${i} >> /repo/notes-bench.txt`;
      await aci.runCommand(raw);
      history.push({ index: i, thought: '', action: { raw, tool: 'bash', args: { command: raw } }, observation: '' });
      const took = await timed(() => snapshots.take(history));
      if (snapshots.failure) throw new Error(snapshots.failure);
      // The first snapshot of the differential ones is the level-0 dump: a full tar, once per session.
      if (i > 0) ms.push(took);
    }
    return { ms: median(ms), snapshots, history };
  };
  const full = await cost(false);
  const diff = await cost(true);
  // The same restore from each, alternating: fetch, a container from the (level-0) tar, the differential if any, the tools' state.
  const restoreFrom = (taken: { snapshots: SessionSnapshots; history: Step[] }) =>
    timed(async () => {
      const found = taken.snapshots.find(taken.history, taken.history.length, aci.tools, taken.history)!;
      const target = new AciSession(await DockerSandbox.create({ image: IMAGE, repoPath: '/repo', labels: { 'swe-workbench.role': 'bench' } }), {
        tools: toolSetFor(),
      });
      try {
        await found.restore(target);
      } finally {
        await target.dispose();
      }
    });
  const restoreWhole: number[] = [];
  const restoreDiff: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      restoreWhole.push(await restoreFrom(full));
      restoreDiff.push(await restoreFrom(diff));
    }
  } finally {
    await full.snapshots.dispose();
    await diff.snapshots.dispose();
  }
  console.log(
    `repository ${size}: per step (one file changed) whole-repository tar ${full.ms.toFixed(0)} ms vs differential ${diff.ms.toFixed(0)} ms` +
      ` (${(full.ms / diff.ms).toFixed(1)}x); a fork's restore from the whole tar ${median(restoreWhole).toFixed(0)} ms vs level 0 + differential ${median(restoreDiff).toFixed(0)} ms`,
  );
}

/**
 * A fork's restore as it was before: the snapshot's tars copied out to the host, a container started from the whole tar
 * (the engine unpacks the tree), the differential copied in and extracted over it. The tools' state (a `cd`) is left out.
 */
async function restoreThroughHost(found: FoundSnapshot, source: AciSession): Promise<void> {
  const local = await mkdtemp(path.join(tmpdir(), 'swb-bench-fork-host-'));
  let sandbox: DockerSandbox | undefined;
  try {
    const { whole, differential } = found.files;
    await Promise.all([
      source.sandbox.copyOut(whole, path.join(local, 'snapshot.tar')),
      differential ? source.sandbox.copyOut(differential, path.join(local, 'differential.tar')) : undefined,
    ]);
    sandbox = await DockerSandbox.create({
      image: IMAGE,
      repoTar: path.join(local, 'snapshot.tar'),
      repoPath: '/repo',
      labels: { 'swe-workbench.role': 'bench' },
    });
    if (differential) {
      await sandbox.copyIn(path.join(local, 'differential.tar'), '/tmp/differential.tar');
      const r = await sandbox.exec('tar -C /repo --listed-incremental=/dev/null -xf /tmp/differential.tar && rm /tmp/differential.tar', { timeoutMs: 600_000 });
      if (r.exitCode !== 0) throw new Error(r.output);
    }
  } finally {
    await sandbox?.dispose();
    await rm(local, { recursive: true, force: true });
  }
}

/**
 * Forks by snapshot at FORK_AT on a generated repository of `mb` MB, three ways, alternating: now (a container from the image
 * of the snapshot's level-0 dump, made in the background while the session ran, and the differential copied in and extracted),
 * from the tars (a container with an empty repository folder, the dump and differential copied engine to engine and extracted
 * by its own tar: the way before the images), and through the host (the tars copied out, a container started from the whole
 * tar, which the engine unpacks: the way before that).
 */
async function largeForks(mb: number, recording: Trajectory): Promise<void> {
  const repo = await largeRepository(mb);
  const keeper = new SnapshotKeeper();
  try {
    const source = await startSession(planSession(request(repo.dir, recording, 'replay')), { role: 'bench', snapshots: { keeper } });
    const sourceMs = await timed(() => source.debug.continue());
    const snapshots = source.snapshots!;
    if (snapshots.failure) throw new Error(snapshots.failure);
    // Every kept snapshot's dump image, made or being made: as a fork would wait for it.
    const imagesMs = await timed(() => Promise.all(snapshots.steps.map((at) => snapshots.find(recording.steps, at, source.aci.tools, recording.steps)?.image)));
    const size = (await source.aci.sandbox.exec('du -sh /repo | cut -f1')).output.trim();
    const dumps = (await source.aci.sandbox.exec(`ls ${FORK_SNAPSHOT_DIR}/*/ | grep -c '^[0-9]*[.]snar$'`)).output.trim();
    const largest = (await source.aci.sandbox.exec(`cd ${FORK_SNAPSHOT_DIR}/*/ && ls -S *.tar | sed -n 2p | xargs stat -c %s`)).output.trim();
    await source.debug.finish();
    console.log(
      `${STEPS}-step session on a generated repository of ${size} (${repo.mb} MB on the host): ${(sourceMs / STEPS).toFixed(0)} ms per step taking snapshots, ` +
        `${(snapshots.bytes / 1024 ** 2).toFixed(1)} MB of snapshots in ${snapshots.steps.length} kept steps (${snapshots.differential ? `${dumps} level-0 dump(s) kept, the second largest tar ${(Number(largest) / 1024).toFixed(0)} KB` : 'whole tars'}); ` +
        `the dumps' images ready ${(imagesMs / 1000).toFixed(1)} s after the session's last step`,
    );
    console.log("fork at | now: from the dump's image | from the tars, engine to engine | through the host | tars/now | host/now");
    // Over the snapshot budget a session keeps every other snapshot: fork at the kept steps nearest FORK_AT.
    const kept = snapshots.steps;
    const points = [...new Set(FORK_AT.map((want) => kept.reduce((a, b) => (Math.abs(b - want) < Math.abs(a - want) ? b : a))))];
    for (const at of points) {
      const now: number[] = [];
      const tars: number[] = [];
      const host: number[] = [];
      const found = snapshots.find(recording.steps, at, source.aci.tools, recording.steps);
      if (found?.at !== at) throw new Error(`no snapshot at ${at}`);
      if (found.image === undefined) throw new Error(`no image of the dump under the snapshot at ${at}`);
      for (let round = -1; round < rounds; round++) {
        const a = await fork(repo.dir, recording, at, true);
        await end(a.started);
        const b = await fork(repo.dir, recording, at, true, false);
        await end(b.started);
        const c = await timed(() => restoreThroughHost(found, source.aci));
        if (round < 0) continue;
        now.push(a.ms);
        tars.push(b.ms);
        host.push(c);
      }
      const kind = found.files.differential ? 'dump + differential' : 'the dump';
      const s = (xs: number[], width: number) => `${(median(xs) / 1000).toFixed(2).padStart(width)} s`;
      console.log(
        `${String(at).padStart(7)} | ${s(now, 23)} | ${s(tars, 29)} | ${s(host, 14)} | ${(median(tars) / median(now)).toFixed(1).padStart(7)}x | ${(median(host) / median(now)).toFixed(1).padStart(7)}x  (${kind})`,
      );
    }
  } finally {
    await keeper.dispose();
    await repo.cleanup();
  }
}

async function main(): Promise<void> {
  if (values['fork-only']) {
    await largeForks(forkMb, generatedRecording(STEPS));
    return;
  }
  const repo = await sampleRepoCopy();
  try {
    const recording = generatedRecording(STEPS);
    console.log(`${STEPS}-step session on the sample repository (${IMAGE}), ${rounds} rounds per fork step, alternating`);
    const bare = await startSession(planSession(request(repo.dir, recording, 'replay')), { role: 'bench', snapshots: false });
    const bareMs = await timed(() => bare.debug.continue());
    await bare.debug.finish();
    const keeper = new SnapshotKeeper();
    const source = await startSession(planSession(request(repo.dir, recording, 'replay')), { role: 'bench', snapshots: { keeper } });
    const sourceMs = await timed(() => source.debug.continue());
    const unchanged = source.snapshots?.unchanged ?? 0;
    // Finished, as VS Code's controller finishes the running session before it starts a fork: the keeper keeps the snapshots.
    await source.debug.finish();
    try {
      const rows: { at: number; snapshot: number; replay: number }[] = [];
      for (const at of FORK_AT) {
        const bySnapshot: number[] = [];
        const byReplay: number[] = [];
        for (let round = -1; round < rounds; round++) {
          const a = await fork(repo.dir, recording, at, true);
          await end(a.started);
          const b = await fork(repo.dir, recording, at, false);
          await end(b.started);
          if (round < 0) continue;
          bySnapshot.push(a.ms);
          byReplay.push(b.ms);
        }
        rows.push({ at, snapshot: median(bySnapshot), replay: median(byReplay) });
      }
      console.log('fork at | by snapshot | by replay | replay/snapshot');
      for (const r of rows) {
        console.log(
          `${String(r.at).padStart(7)} | ${(r.snapshot / 1000).toFixed(2).padStart(9)} s | ${(r.replay / 1000).toFixed(2).padStart(7)} s | ${(r.replay / r.snapshot).toFixed(1).padStart(6)}x`,
        );
      }
      const first = rows[0]!;
      const last = rows.at(-1)!;
      console.log(
        `flatness: by snapshot at ${last.at} / at ${first.at} = ${(last.snapshot / first.snapshot).toFixed(2)}; by replay ${(last.replay / first.replay).toFixed(2)}`,
      );
      console.log(
        `running session: ${(sourceMs / STEPS).toFixed(1)} ms per step taking snapshots vs ${(bareMs / STEPS).toFixed(1)} ms without (${STEPS} steps each); ` +
          `${unchanged} of ${STEPS} steps needed no tar (a viewer or search call: the step before's snapshot)`,
      );
    } finally {
      await keeper.dispose();
    }
    console.log('choosing the snapshot: tar through the session shell vs docker commit');
    await mechanisms(repo.dir, 0);
    if (largeMb > 0) await mechanisms(repo.dir, largeMb);
    if (forkMb > 0) await largeForks(forkMb, generatedRecording(STEPS));
  } finally {
    await repo.cleanup();
  }
}

void main();
