/**
 * Memory as a branch run grows: a run folder of 100 continuations and one of 1,000, side by side.
 * The folders are written by the core's own writer, the calls runBranches makes after each
 * continuation (`writeContinuationFiles`, then the whole index saved by `saveBranchIndex`), from
 * made-up continuations, NOT from real Docker runs (those are bench/branch/throughput.ts's): 10
 * branch points of a 10-step recording, each continuation the recording's prefix and 3 steps of
 * its own (observations of 400 characters), rewards 0/1 on odd points and fractional on even ones
 * (so V's interval is Wilson's on some points and the bootstrap's on others), one in 20 masked.
 *
 * Phases, each measured as this process's heap before it (after a GC), right after it (before a
 * GC: what it allocated and had not yet dropped), and retained after a GC while its result is
 * held; with RSS at the end of the phase:
 *   write: every continuation written and the index saved after each (as a run does);
 *   read:  readBranchRun, what the stepper's strip and the Branches view read: index.json parsed,
 *          V(t), its interval and the critical step computed;
 *   views: the strip and every row of the branch tree (branchStrip, branchPointItem, continuationItem).
 * Prints the figures per size and the 1,000/100 ratios. No figure is asserted.
 * Usage: node --expose-gc --import tsx bench/branch/memory.ts [--small 100] [--large 1000]
 */
import '../../test/helpers/families';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { saveBranchIndex, writeContinuationFiles } from '../../extension/core/branch/branchFolder';
import type { BranchIndex } from '../../extension/core/rollouts/branchIndex';
import { readBranchRun } from '../../extension/core/branch/branchRun';
import type { Step, Trajectory } from '../../extension/core/trajectory/model';
import { branchPointItem, branchStrip, continuationItem } from '../../extension/views/branchView';

const { values } = parseArgs({ options: { small: { type: 'string', default: '100' }, large: { type: 'string', default: '1000' } } });
const sizes = [Number(values.small), Number(values.large)];
const POINTS = 10;
const OWN_STEPS = 3;

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
};
const heap = () => process.memoryUsage().heapUsed;

function step(index: number, text: string): Step {
  const observation = `${text} `.repeat(Math.ceil(400 / (text.length + 1))).slice(0, 400);
  return { index, thought: `Step ${index + 1}: ${text}.`, action: { raw: `echo ${text}`, tool: null, args: {} }, observation };
}

const recordingSteps = Array.from({ length: POINTS }, (_, i) => step(i, `recorded step ${i + 1}`));

/** Continuation `n`: its branch point, sample, trajectory and reward. */
function continuation(n: number, samples: number) {
  const afterStep = n % POINTS;
  const sample = Math.floor(n / POINTS);
  const own = Array.from({ length: OWN_STEPS }, (_, i) => step(afterStep + i, `continuation ${n} own step ${i + 1}`));
  const trajectory: Trajectory = {
    format: 'canonical',
    task: { repoPath: '/repo', problemStatement: 'Write the answer, 42, to answer.txt and submit.' },
    steps: [...recordingSteps.slice(0, afterStep), ...own],
    outcome: {
      exitStatus: 'submitted',
      submission: `diff --git a/answer.txt b/answer.txt\n--- a/answer.txt\n+++ b/answer.txt\n@@ -1 +1 @@\n-0\n+${n % 3 === 0 ? 41 : 42}\n`,
    },
    meta: { id: `continuation-${n}`, scaffold: 'swe-agent' },
  };
  const masked = n % 20 === 19;
  const reward = masked ? null : afterStep % 2 === 1 ? (n % 3 === 0 ? 0 : 1) : ((n * 7) % 11) / 10;
  return { afterStep, sample: sample % samples, trajectory, reward, mask: masked ? 'container or policy error: made up for the benchmark' : null };
}

interface SizeResult {
  write: Phase;
  read: Phase;
  views: Phase;
  indexBytes: number;
  folderFiles: number;
}

interface Phase {
  before: number;
  after: number;
  retained: number;
  rss: number;
  ms: number;
}

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; phase: Phase }> {
  collect();
  const before = heap();
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  const after = heap();
  collect();
  return { result, phase: { before, after: after - before, retained: heap() - before, rss: process.memoryUsage().rss, ms } };
}

async function sizeRun(total: number, root: string): Promise<SizeResult> {
  const out = path.join(root, `n${total}`);
  const samples = Math.ceil(total / POINTS);
  const write = await measure(async () => {
    const index: BranchIndex = {
      recording: { file: 'recording.json', id: 'answer-42', steps: POINTS },
      settings: { model: 'bench', scaffold: 'swe-agent', maxSteps: 5, sampling: { temperature: 1, seed: 1 } },
      replayedSteps: { recording: POINTS, forks: 0 },
      points: Array.from({ length: POINTS }, (_, afterStep) => ({ afterStep, continuations: [] })),
    };
    for (let n = 0; n < total; n++) {
      const c = continuation(n, samples);
      const { file, patch } = await writeContinuationFiles(out, c.afterStep, c.sample, c.trajectory, 'swe-agent');
      index.points[c.afterStep]!.continuations.push({
        sample: c.sample,
        file,
        patch,
        outcome: 'submitted',
        steps: OWN_STEPS,
        reward: c.reward,
        mask: c.mask,
        seed: null,
        restoredAt: c.afterStep,
        replayed: 0,
        timings: { startMs: 700, policyMs: 6, runMs: 150, gradeMs: 230 },
      });
      await saveBranchIndex(out, index);
    }
    return index;
  });
  const read = await measure(async () => {
    const run = await readBranchRun(out);
    if (!run) throw new Error(`${out} holds no branch run`);
    return run;
  });
  const views = await measure(async () => {
    const run = read.result;
    const strip = branchStrip(run.summary, run.folder);
    const rows = run.summary.values.flatMap((v) => [
      branchPointItem(v, run.summary),
      ...(run.index.points.find((p) => p.afterStep === v.at)?.continuations ?? []).map(continuationItem),
    ]);
    return { strip, rows };
  });
  if (views.result.rows.length !== total + POINTS) throw new Error(`the tree has ${views.result.rows.length} rows, not ${total + POINTS}`);
  return { write: write.phase, read: read.phase, views: views.phase, indexBytes: (await stat(path.join(out, 'index.json'))).size, folderFiles: total * 2 };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), 'swb-bench-branch-memory-'));
  try {
    console.log(
      `branch run folders of ${sizes.join(' and ')} continuations (${POINTS} points, written by the core's writer from made-up continuations, no Docker); ` +
        `${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GB, load ${loadavg()[0]!.toFixed(2)}; node ${process.version}; ${new Date().toISOString()}`,
    );
    const results: SizeResult[] = [];
    for (const total of sizes) results.push(await sizeRun(total, root));
    const kb = (b: number) => `${(b / 1024).toFixed(0)} KB`.padStart(9);
    const perContinuation = (b: number, n: number) => `${(b / n).toFixed(0)} B`.padStart(7);
    console.log(`index.json: ${sizes.map((n, i) => `${n}: ${kb(results[i]!.indexBytes).trim()}`).join(', ')}`);
    console.log('phase   continuations  heap before  allocated, not yet freed  retained  per continuation   rss      wall ms  per continuation');
    for (const phase of ['write', 'read', 'views'] as const) {
      for (const [i, total] of sizes.entries()) {
        const p = results[i]![phase];
        console.log(
          `${phase.padEnd(6)}  ${String(total).padStart(13)}  ${kb(p.before)}  ${kb(p.after).padStart(24)}  ${kb(p.retained)}  ${perContinuation(p.retained, total).padStart(16)}  ${(p.rss / 1024 ** 2).toFixed(0).padStart(4)} MB  ${p.ms.toFixed(0).padStart(7)}  ${`${(p.ms / total).toFixed(2)} ms`.padStart(16)}`,
        );
      }
      const [a, b] = [results[0]![phase], results[1]![phase]] as const;
      const ratio = (x: number, y: number) => `${(y / x).toFixed(1)}x`;
      console.log(
        `${''.padEnd(6)}  ${`${sizes[1]}/${sizes[0]}`.padStart(13)}  ${''.padStart(11)}  ${ratio(a.after, b.after).padStart(24)}  ${ratio(a.retained, b.retained).padStart(9)}  ${''.padStart(16)}  ${''.padStart(7)}  ${ratio(a.ms, b.ms).padStart(7)}`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

void main();
