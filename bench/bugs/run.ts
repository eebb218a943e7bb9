/**
 * The whole consistency pipeline on the sample repository with the valid bug, inverse mutation
 * on 1 sandbox vs 2, measured side by side (alternating runs, medians); plus one test run of
 * ours (prepare + test_script.sh + test_parser.py) vs the bare pytest run it wraps.
 * Run: node --import tsx bench/bugs/run.ts [rounds]
 */
import { mkdtemp } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { loadBugArtifact } from '../../extension/core/bugs/bugArtifact';
import { runBugTests, stageBug } from '../../extension/core/bugs/bugTestRun';
import { runConsistencyChecks } from '../../extension/core/bugs/consistencyChecks';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { median } from '../timing';

const repoRoot = path.resolve(__dirname, '../..');
const rounds = Number(process.argv[2] ?? 3);

async function main(): Promise<void> {
  const repo = await materializeSampleRepo(await mkdtemp(path.join(tmpdir(), 'bench-bugs-')));
  const bug = await loadBugArtifact(path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close'));
  const createSandbox = (signal?: AbortSignal) =>
    DockerSandbox.create({ image: 'swe-workbench/base:bookworm', repoDir: repo.dir, repoPath: '/testbed', labels: { 'swe-workbench.bench': 'bugs' }, signal });

  const times: Record<1 | 2, { total: number[]; inverse: number[] }> = { 1: { total: [], inverse: [] }, 2: { total: [], inverse: [] } };
  for (let round = 0; round < rounds; round++) {
    for (const parallel of [1, 2] as const) {
      const started = performance.now();
      const results = await runConsistencyChecks(bug, { createSandbox, parallel });
      const total = performance.now() - started;
      if (!results.every((r) => r.passed)) throw new Error(`the valid bug failed a check: ${JSON.stringify(results.filter((r) => !r.passed))}`);
      times[parallel].total.push(total);
      times[parallel].inverse.push(results.find((r) => r.name === 'inverse-mutation')?.durationMs ?? NaN);
    }
  }

  const sandbox = await createSandbox();
  const ours: number[] = [];
  const raw: number[] = [];
  try {
    await stageBug(sandbox, bug);
    for (let round = 0; round < rounds; round++) {
      let t = performance.now();
      await sandbox.exec('python3 -m pytest -rA --tb=short --color=no -p no:cacheprovider > /dev/null 2>&1');
      raw.push(performance.now() - t);
      t = performance.now();
      const run = await runBugTests(sandbox, bug, { bug: true, weaken: false }, { baseRef: 'HEAD', timeoutMs: 600_000 });
      if (!run.ok) throw new Error(run.reason);
      ours.push(performance.now() - t);
    }
  } finally {
    await sandbox.dispose();
  }

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const [inv1, inv2] = [median(times[1].inverse), median(times[2].inverse)];
  const [tot1, tot2] = [median(times[1].total), median(times[2].total)];
  // Parallel sandboxes only help when cores are free: say how busy the machine was.
  console.log(
    `bug: valid-allocate-and-close (2 changed files), sample repository, ${rounds} rounds, medians; ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`inverse mutation, 1 sandbox:  ${s(inv1)}`);
  console.log(`inverse mutation, 2 sandboxes: ${s(inv2)}   speed-up ${(inv1 / inv2).toFixed(2)}x with 2 sandboxes`);
  console.log(`whole pipeline,   1 sandbox:  ${s(tot1)}`);
  console.log(`whole pipeline,   2 sandboxes: ${s(tot2)}   speed-up ${(tot1 / tot2).toFixed(2)}x`);
  console.log(`one test run: ours ${s(median(ours))} vs bare pytest ${s(median(raw))}   ratio ${(median(ours) / median(raw)).toFixed(2)}x`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
