/**
 * Indexing a training run: 1,000 trajectories (100 instances x 10 attempts; SWE-agent .traj up to
 * several MB, mini-swe-agent .traj.json, R2E-Gym JSONL) with preds and run reports. Each variant
 * runs in its own child process, so its peak RSS is its own:
 *   raw     read + JSON.parse of every file (JSONL line by line): the floor
 *   import  raw + the trajectory importers of core/trajectory on every trajectory document:
 *           what any reader of the canonical model pays, shown so the index's own share is visible
 *   cold    our index with an empty cache folder
 *   warm    our index again over the unchanged folder, with the cache the cold run wrote, in a
 *           fresh process (a CLI run); `again` is a second warm index in that same process (an
 *           extension host re-indexing), where the fixed costs of a fresh process are paid
 * Usage: node --import tsx bench/rollouts/run.ts [--rounds N] [--keep DIR]
 */
import '../../test/helpers/families';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { indexRollouts } from '../../extension/core/rollouts/rolloutIndex';
import { documentKind } from '../../extension/core/rollouts/runDocuments';
import { importTrajectory } from '../../extension/core/trajectory/load';
import { writeGeneratedRun } from './generatedRun';
import { median } from '../timing';
import { answer, cpuMsSince, measureInChild, peakRssMb } from './childMeasure';

const INSTANCES = 100;
const ATTEMPTS = 10;

interface Measure {
  variant: string;
  ms: number;
  /** User + system CPU time of the whole process: steadier than wall time on a shared machine. */
  cpuMs: number;
  /** warm only: a second index in the same process, wall and CPU. */
  againMs?: number;
  againCpuMs?: number;
  peakRssMb: number;
  rollouts: number;
}

function sizeOf(root: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const f of walk(root)) {
    files++;
    bytes += statSync(f).size;
  }
  return { files, bytes };
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (/\.(json|jsonl|traj)$/.test(e.name)) yield p;
  }
}

/** The floor: every byte read and parsed once, nothing else; with `importing`, each trajectory also imported. */
function rawRead(root: string, importing: boolean): number {
  let documents = 0;
  const use = (file: string, value: unknown) => {
    if (importing && documentKind(basename(file), value) === 'trajectory') importTrajectory(value, { file });
    documents++;
  };
  for (const file of walk(root)) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.jsonl')) {
      for (const line of text.split('\n')) if (line.trim() !== '') use(file, JSON.parse(line));
    } else use(file, JSON.parse(text));
  }
  return documents;
}

async function child(variant: string, root: string, cache: string): Promise<void> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const rollouts =
    variant === 'raw' || variant === 'import' ? rawRead(root, variant === 'import') : (await indexRollouts(root, { cacheDir: cache })).rollouts.length;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const m: Measure = { variant, ms, cpuMs: cpuMsSince(cpu), peakRssMb: peakRssMb(), rollouts };
  if (variant === 'warm') {
    const again = process.hrtime.bigint();
    const againCpu = process.cpuUsage();
    await indexRollouts(root, { cacheDir: cache });
    m.againMs = Number(process.hrtime.bigint() - again) / 1e6;
    m.againCpuMs = cpuMsSince(againCpu);
  }
  answer(m);
}

function measure(variant: string, root: string, cache: string): Measure {
  return measureInChild<Measure>(__filename, variant, { root, cache });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { child: { type: 'string' }, root: { type: 'string' }, cache: { type: 'string' }, rounds: { type: 'string' }, keep: { type: 'string' } },
  });
  if (values.child) return child(values.child, values.root!, values.cache!);
  const rounds = Number(values.rounds ?? 3);
  const root = values.keep ?? mkdtempSync(join(tmpdir(), 'swe-workbench-bench-rollouts-'));
  const work = mkdtempSync(join(tmpdir(), 'swe-workbench-bench-cache-'));
  try {
    writeGeneratedRun(root, INSTANCES, ATTEMPTS);
    const size = sizeOf(root);
    console.log(`run: ${size.files} files, ${(size.bytes / 1e6).toFixed(1)} MB (${INSTANCES} instances x ${ATTEMPTS} attempts)`);
    const results: Record<string, Measure[]> = { raw: [], import: [], cold: [], warm: [] };
    for (let i = 0; i < rounds; i++) {
      // Raw and cold alternate so both see the same page cache; warm reuses the cold run's cache.
      const cache = join(work, `round-${i}`);
      results.raw!.push(measure('raw', root, cache));
      results.import!.push(measure('import', root, cache));
      results.cold!.push(measure('cold', root, cache));
      results.warm!.push(measure('warm', root, cache));
    }
    const med = (v: string) => median(results[v]!.map((m) => m.ms));
    const cpu = (v: string) => median(results[v]!.map((m) => m.cpuMs));
    const rss = (v: string) => Math.max(...results[v]!.map((m) => m.peakRssMb));
    for (const v of ['raw', 'import', 'cold', 'warm'])
      console.log(
        `${v.padEnd(6)} ${med(v).toFixed(0).padStart(7)} ms wall, ${cpu(v).toFixed(0).padStart(6)} ms CPU (medians of ${rounds})  peak RSS ${rss(v).toFixed(0)} MB  documents/rollouts ${results[v]![0]!.rollouts}`,
      );
    const ratio = (a: string, b: string) => `${(med(a) / med(b)).toFixed(2)}x wall, ${(cpu(a) / cpu(b)).toFixed(2)}x CPU`;
    console.log(`cold / raw    = ${ratio('cold', 'raw')}   (target <= 1.5x)`);
    console.log(`import / raw  = ${ratio('import', 'raw')}   (the importers alone)`);
    console.log(`cold / import = ${ratio('cold', 'import')}   (the index's own share)`);
    const again = median(results.warm!.map((m) => m.againMs ?? NaN));
    console.log(
      `warm / cold   = ${((100 * med('warm')) / med('cold')).toFixed(1)}% wall, ${((100 * cpu('warm')) / cpu('cold')).toFixed(1)}% CPU  (target < 5%; a fresh process)`,
    );
    const againCpu = median(results.warm!.map((m) => m.againCpuMs ?? NaN));
    console.log(
      `again / cold  = ${((100 * again) / med('cold')).toFixed(1)}% wall, ${((100 * againCpu) / cpu('cold')).toFixed(1)}% CPU  (${again.toFixed(0)} ms wall, ${againCpu.toFixed(0)} ms CPU: a second warm index in the same process)`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    if (!values.keep) rmSync(root, { recursive: true, force: true });
  }
}

void main();
