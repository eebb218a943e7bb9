/**
 * Indexing 10,000 vs 100,000 rollouts, side by side in one run: a generated run of mixed formats
 * (bench/rollouts/generatedRun.ts, `light` size: SWE-agent `.traj`, mini-swe-agent `.traj.json`,
 * R2E-Gym JSONL, preds and run reports; 1,000 vs 10,000 instances x 10 attempts). Each variant
 * runs in its own child process, so its peak RSS is its own:
 *   cold    the index with an empty cache folder, in this thread, with the young generation and
 *           the allocator setting the CLI relaunches itself with for `rollouts` (the CLI's way,
 *           `INDEX_HEAP_FLAGS`, `INDEX_MALLOC_ENV`)
 *   warm    the index again over the unchanged folder in a fresh process, bounded the same way,
 *           with the cold run's cache and folder stamps (the folders read again are counted);
 *           `again` is a second refresh of the same indexer in that process (the extension host
 *           re-indexing as a run writes: the entries are in memory, only the folder is listed)
 *   worker  the cold index in a worker thread (`WorkerRolloutIndexer`, the extension host's way:
 *           no allocator setting, since the extension host's process is started by VS Code),
 *           `--cold-runs` times as the cold one; after the first, the process's RSS once idle
 *           (10 s later: V8 gives an ended thread's pages back after a few seconds), which is
 *           what the extension host carries for the rest of the session, and a second refresh
 *           of the unchanged folder (a thread of its own reads the cache; no rows are sent)
 *   lag     the event loop of the process that asked, during cold and worker: the longest and
 *           the 99th percentile stall, from perf_hooks' monitorEventLoopDelay
 *   table   the table's operations over the index's rows, as the rollouts panel answers them:
 *           a sort, a filter, the run's statistics, a page of rows for the webview, and
 *           full-text searches answered by the index's text store as the panel asks them (the
 *           rollouts that match), one that matches nothing and one that matches most rows; and
 *           the CLI's search, whose hits' excerpts read the matching rollouts' files
 * CPU time is given beside wall time: on a shared machine wall time measures the machine.
 * The cold index runs `--cold-runs` times at each size (3 unless told), each with an empty cache
 * folder: one run's peak at 100,000 varies by 100 MB on a quiet machine (when the collector
 * runs against where the reads stand), so the ratio is of the medians, and the range is shown.
 * Usage: node --import tsx bench/rollouts/scale.ts [--small 1000] [--large 10000] [--cold-runs 3] [--keep DIR]
 */
import '../../test/helpers/families';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { INDEX_HEAP_FLAGS, INDEX_MALLOC_ENV } from '../../extension/core/rollouts/indexHeap';
import type { Rollout } from '../../extension/core/rollouts/record';
import { RolloutIndexer, indexRollouts, type RolloutIndex } from '../../extension/core/rollouts/rolloutIndex';
import { runStatistics } from '../../extension/core/rollouts/rolloutQuery';
import { findRollouts, matchRollouts } from '../../extension/core/rollouts/rolloutSearch';
import { WorkerRolloutIndexer } from '../../extension/core/rollouts/workerIndexer';
import { toRolloutRow } from '../../extension/views/rolloutTable';
import { writeGeneratedRun } from './generatedRun';
import { answer, cpuMsSince, measureInChild, peakRssMb } from './childMeasure';

const ATTEMPTS = 10;
/** How long after the worker's index its RSS is read: V8 gives an ended thread's pages back within about 9 s. */
const IDLE_MS = 10_000;

interface Measure {
  ms: number;
  cpuMs: number;
  peakRssMb: number;
  rollouts: number;
  lagMaxMs?: number;
  lagP99Ms?: number;
  againMs?: number;
  againCpuMs?: number;
  /** Folders the index read; the others were unchanged by their stamps. */
  foldersRead?: number;
  table?: Record<string, number>;
  /** The process's RSS 10 s after the worker's index: the rows and the host alone. */
  idleRssMb?: number;
  /** The lowest and highest peak of the runs whose median this is. */
  peakRangeMb?: [number, number];
}

function timed<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

/** What the table panel does for a person at this size: each operation's wall time. */
async function tableOps(index: RolloutIndex): Promise<Record<string, number>> {
  const ops: Record<string, number> = {};
  const query = async (name: string, q: { filter?: string; sort?: string }) => {
    const start = performance.now();
    const { rows } = await findRollouts(index, q);
    runStatistics(rows);
    rows.slice(0, 60).map((r) => toRolloutRow(r));
    ops[name] = performance.now() - start;
  };
  await query('sort by steps', { sort: '-steps' });
  await query('sort by instance', { sort: 'instance' });
  await query('filter', { filter: 'failure = submitted-wrong and steps > 5' });
  await query('filter + sort', { filter: 'format = swe-agent', sort: 'reward' });
  // As the panel searches: the ids of the rollouts that match, from the text store alone.
  const panel = (rollouts: readonly Rollout[], text: string) => matchRollouts(index.root, rollouts, text, index.text ? { text: index.text } : {});
  for (const [name, text] of [
    ['search, no match', 'a text no step holds'],
    ['search, most rows match', 'pytest'],
  ] as const) {
    const start = performance.now();
    await findRollouts(index, { search: text }, { search: panel });
    ops[name] = performance.now() - start;
  }
  // As the CLI searches: hits with excerpts, the matching rollouts' files read (a rarer text).
  const cli = performance.now();
  await findRollouts(index, { search: 'a text no step holds', filter: 'steps > 8' });
  ops['CLI search with hits, no match'] = performance.now() - cli;
  ops['page of rows'] = timed(() => index.rollouts.slice(50_000 % index.rollouts.length, (50_000 % index.rollouts.length) + 60).map((r) => toRolloutRow(r))).ms;
  return ops;
}

async function child(variant: string, root: string, cache: string): Promise<void> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const lag = monitorEventLoopDelay({ resolution: 10 });
  // The first index alone: a second refresh is reported as `again`, the idle wait not at all.
  const first = async (index: Promise<RolloutIndex>) => {
    lag.enable();
    const value = await index;
    lag.disable();
    return { index: value, ms: performance.now() - start, cpuMs: cpuMsSince(cpu) };
  };
  const timedAgain = async (refresh: () => Promise<unknown>) => {
    const again = performance.now();
    const againCpu = process.cpuUsage();
    await refresh();
    return { againMs: performance.now() - again, againCpuMs: cpuMsSince(againCpu) };
  };
  let m: Measure;
  if (variant === 'worker' || variant === 'worker-idle') {
    const indexer = new WorkerRolloutIndexer(root, { cacheDir: cache });
    const { index, ms, cpuMs } = await first(indexer.refresh());
    m = { ms, cpuMs, peakRssMb: peakRssMb(), rollouts: index.rollouts.length, foldersRead: index.stats.foldersRead };
    if (variant === 'worker-idle') {
      await setTimeout(IDLE_MS);
      m.idleRssMb = process.memoryUsage.rss() / 1e6;
      // The extension re-indexing an unchanged folder: a new thread, the cache, no rows sent.
      Object.assign(m, await timedAgain(() => indexer.refresh()));
    }
    await indexer.close();
  } else if (variant === 'warm') {
    const indexer = new RolloutIndexer(root, { cacheDir: cache });
    const { index, ms, cpuMs } = await first(indexer.refresh());
    m = { ms, cpuMs, peakRssMb: 0, rollouts: index.rollouts.length, foldersRead: index.stats.foldersRead };
    Object.assign(m, await timedAgain(() => indexer.refresh()));
    m.peakRssMb = peakRssMb();
    m.table = await tableOps(index);
  } else {
    const { index, ms, cpuMs } = await first(indexRollouts(root, { cacheDir: cache }));
    m = { ms, cpuMs, peakRssMb: peakRssMb(), rollouts: index.rollouts.length, foldersRead: index.stats.foldersRead };
  }
  if (variant !== 'warm') {
    m.lagMaxMs = lag.max / 1e6;
    m.lagP99Ms = lag.percentile(99) / 1e6;
  }
  answer(m);
}

function measure(variant: string, root: string, cache: string): Measure {
  const flags = { cold: INDEX_HEAP_FLAGS, warm: INDEX_HEAP_FLAGS }[variant] ?? [];
  // The CLI's way has the allocator setting its relaunch gives; the worker's process is the extension host's.
  const env = variant === 'cold' || variant === 'warm' ? INDEX_MALLOC_ENV : {};
  return measureInChild<Measure>(__filename, variant, { root, cache }, flags, env);
}

const load = () => loadavg()[0]!.toFixed(1);

/** The run whose `key` is the median (the lower middle of an even count). */
function median<T>(runs: T[], key: (run: T) => number): T {
  return [...runs].sort((a, b) => key(a) - key(b))[(runs.length - 1) >> 1]!;
}

/** The run of median peak, with the range of the peaks. */
function medianPeak(runs: Measure[]): Measure {
  const peaks = runs.map((m) => m.peakRssMb);
  return { ...median(runs, (m) => m.peakRssMb), peakRangeMb: [Math.min(...peaks), Math.max(...peaks)] };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      root: { type: 'string' },
      cache: { type: 'string' },
      small: { type: 'string', default: '1000' },
      'cold-runs': { type: 'string', default: '3' },
      large: { type: 'string', default: '10000' },
      keep: { type: 'string' },
    },
  });
  if (values.child) return child(values.child, values.root!, values.cache!);
  const base = values.keep ?? mkdtempSync(join(tmpdir(), 'swe-workbench-bench-scale-'));
  const work = mkdtempSync(join(tmpdir(), 'swe-workbench-bench-scale-cache-'));
  const sizes = [Number(values.small), Number(values.large)];
  const results = new Map<number, Record<string, Measure>>();
  try {
    for (const instances of sizes) {
      const root = join(base, `run-${instances}`);
      // A kept run is reused: writing 100,000 rollouts takes a while and changes nothing measured.
      if (!existsSync(root)) {
        mkdirSync(root, { recursive: true });
        writeGeneratedRun(root, instances, ATTEMPTS, 'light');
      }
      const cache = join(work, `cache-${instances}`);
      const r: Record<string, Measure> = {};
      console.log(`${instances * ATTEMPTS} rollouts: cold (load ${load()})`);
      // The first run's cache is the warm run's; the others start from empty folders of their own.
      const runs = Array.from({ length: Number(values['cold-runs']) }, (_, i) => i);
      r.cold = medianPeak(runs.map((i) => measure('cold', root, i === 0 ? cache : `${cache}-cold-${i}`)));
      console.log(`${instances * ATTEMPTS} rollouts: warm (load ${load()})`);
      r.warm = measure('warm', root, cache);
      console.log(`${instances * ATTEMPTS} rollouts: cold in the worker (load ${load()})`);
      const workers = runs.map((i) => measure(i === 0 ? 'worker-idle' : 'worker', root, join(work, `worker-${instances}-${i}`)));
      const { idleRssMb, againMs, againCpuMs } = workers[0]!;
      r.worker = { ...medianPeak(workers), idleRssMb: idleRssMb!, againMs: againMs!, againCpuMs: againCpuMs! };
      results.set(instances, r);
    }
    const [small, large] = sizes.map((s) => results.get(s)!);
    const label = (s: number) => `${(s * ATTEMPTS).toLocaleString('en')}`;
    const row = (name: string, f: (m: Record<string, Measure>) => string) =>
      console.log(`${name.padEnd(42)} ${f(small!).padStart(22)} ${f(large!).padStart(22)}`);
    console.log(`\n${'rollouts'.padEnd(42)} ${label(sizes[0]!).padStart(22)} ${label(sizes[1]!).padStart(22)}`);
    row('cold: wall / CPU (s)', (m) => `${(m.cold!.ms / 1000).toFixed(1)} / ${(m.cold!.cpuMs / 1000).toFixed(1)}`);
    const peak = (m: Measure) => `${m.peakRssMb.toFixed(0)} (${m.peakRangeMb![0].toFixed(0)}-${m.peakRangeMb![1].toFixed(0)})`;
    row(`cold: peak RSS, median of ${values['cold-runs']} (range) (MB)`, (m) => peak(m.cold!));
    row('warm: wall / CPU (s)', (m) => `${(m.warm!.ms / 1000).toFixed(2)} / ${(m.warm!.cpuMs / 1000).toFixed(2)}`);
    row('warm: peak RSS (MB)', (m) => m.warm!.peakRssMb.toFixed(0));
    row('folders read: cold / warm', (m) => `${m.cold!.foldersRead} / ${m.warm!.foldersRead}`);
    row('warm / cold: wall, CPU', (m) => `${((100 * m.warm!.ms) / m.cold!.ms).toFixed(1)}%, ${((100 * m.warm!.cpuMs) / m.cold!.cpuMs).toFixed(1)}%`);
    row('again, same process: wall / CPU (s)', (m) => `${(m.warm!.againMs! / 1000).toFixed(2)} / ${(m.warm!.againCpuMs! / 1000).toFixed(2)}`);
    row(
      'again / cold: wall, CPU',
      (m) => `${((100 * m.warm!.againMs!) / m.cold!.ms).toFixed(1)}%, ${((100 * m.warm!.againCpuMs!) / m.cold!.cpuMs).toFixed(1)}%`,
    );
    row('cold, this thread: lag max / p99 (ms)', (m) => `${m.cold!.lagMaxMs!.toFixed(0)} / ${m.cold!.lagP99Ms!.toFixed(0)}`);
    row('cold, worker: wall / CPU (s)', (m) => `${(m.worker!.ms / 1000).toFixed(1)} / ${(m.worker!.cpuMs / 1000).toFixed(1)}`);
    row('cold, worker: lag max / p99 (ms)', (m) => `${m.worker!.lagMaxMs!.toFixed(0)} / ${m.worker!.lagP99Ms!.toFixed(0)}`);
    row(`cold, worker: peak RSS, median of ${values['cold-runs']} (range) (MB)`, (m) => peak(m.worker!));
    row('after the worker, idle: RSS (MB)', (m) => m.worker!.idleRssMb!.toFixed(0));
    row('again, a new worker: wall / CPU (s)', (m) => `${(m.worker!.againMs! / 1000).toFixed(2)} / ${(m.worker!.againCpuMs! / 1000).toFixed(2)}`);
    for (const op of Object.keys(small!.warm!.table!)) row(`table: ${op} (ms)`, (m) => m.warm!.table![op]!.toFixed(0));
    const ratio = (variant: 'cold' | 'worker') => (large![variant]!.peakRssMb / small![variant]!.peakRssMb).toFixed(2);
    // What each rollout beyond the smaller run costs at the peak: the ratio alone hides whether a
    // change cut what grows with the run or what does not.
    const perRollout = (m: (r: Record<string, Measure>) => number) => (((m(large!) - m(small!)) * 1024) / ((sizes[1]! - sizes[0]!) * ATTEMPTS)).toFixed(2);
    console.log(
      `\npeak RSS ${label(sizes[1]!)} / ${label(sizes[0]!)}, medians: cold ${ratio('cold')}x, worker ${ratio('worker')}x (target < 2x); load average ${load()} at the end`,
    );
    console.log(`peak RSS per added rollout: cold ${perRollout((r) => r.cold!.peakRssMb)} KB, worker ${perRollout((r) => r.worker!.peakRssMb)} KB`);
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!values.keep) rmSync(base, { recursive: true, force: true });
  }
}

void main();
