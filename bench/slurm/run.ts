/**
 * The same grading work here and as a Slurm job array on the two-node cluster of
 * scripts/slurm/start.sh, side by side in one run: `rollouts grade` over copies of the forced
 * run fixture (each copy: a passing, a failing and a non-applying patch graded in containers, and
 * one with no patch), locally with --parallel 2 and through Slurm with --shards 4. Then the
 * scheduler's overhead alone: the same commands over candidates that have no patch (no container
 * starts), whose difference is what the array costs (preflight probe per node, sbatch, queueing,
 * one CLI start per task, following squeue, merging), and that divided by the tasks.
 * Run: node --import tsx bench/slurm/run.ts [copies]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { ledgerInstance, writeForcedRun } from '../../test/fixtures/rollouts/forcedRun';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';

const repoRoot = path.resolve(__dirname, '../..');
const copies = Number(process.argv[2] ?? 2);
const SHARDS = 4;

function cli(args: string[]): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'extension/cli/main.ts'), ...args], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited with ${r.status}: ${r.stderr}`);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const nodes = execFileSync('sinfo', ['-h', '-N', '-o', '%N %t'], { encoding: 'utf8' }).trim().replace(/\n/g, ', ');
  console.log(
    `slurm bench: ${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GB, load ${loadavg()[0]!.toFixed(2)}; nodes ${nodes}; ${new Date().toISOString()}`,
  );
  const work = await mkdtemp(path.join(tmpdir(), 'bench-slurm-'));
  try {
    const sample = await materializeSampleRepo(path.join(work, 'repo'));
    const base = sample.commits[sample.commits.findIndex((c) => c.sha === sample.bugFixCommit) - 1]!.sha;
    const instances = path.join(work, 'instances.jsonl');
    await writeFile(instances, JSON.stringify(ledgerInstance(base)) + '\n');
    const run = path.join(work, 'run');
    const empty = path.join(work, 'empty');
    for (let i = 0; i < copies; i++) writeForcedRun(path.join(run, `copy_${i}`));
    // Candidates without a patch: graded "not-graded", no container.
    for (let i = 0; i < SHARDS * 2; i++) {
      const tmp = path.join(work, `tmp_${i}`);
      writeForcedRun(tmp);
      await mkdir(path.join(empty, `copy_${i}`), { recursive: true });
      await rename(path.join(tmp, 'attempt_4'), path.join(empty, `copy_${i}`, 'attempt_4'));
    }
    const args = (dir: string) => [
      'rollouts',
      'grade',
      dir,
      '--image',
      'swe-workbench/base:bookworm',
      '--repo',
      sample.dir,
      '--instances',
      instances,
      '--json',
    ];
    const slurm = (dir: string, out: string) => [...args(dir), '--scheduler', 'slurm', '--shards', String(SHARDS), '--out', path.join(work, out)];

    const local = cli([...args(run), '--parallel', '2']);
    const array = cli(slurm(run, 'out-run'));
    console.log(
      `grading ${copies * 4} candidates (${copies * 3} in containers): local --parallel 2 ${local.toFixed(1)} s, Slurm ${SHARDS} shards on 2 nodes ${array.toFixed(1)} s (${(array / local).toFixed(2)}x local)`,
    );
    const localEmpty = cli(args(empty));
    const arrayEmpty = cli(slurm(empty, 'out-empty'));
    const overhead = arrayEmpty - localEmpty;
    console.log(
      `no container work (${SHARDS * 2} candidates without a patch): local ${localEmpty.toFixed(1)} s, Slurm ${arrayEmpty.toFixed(1)} s: the array costs ${overhead.toFixed(1)} s, ${(overhead / SHARDS).toFixed(1)} s per task (${SHARDS} tasks)`,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
