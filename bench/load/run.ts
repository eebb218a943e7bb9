/**
 * Opening a large SWE-agent trajectory, each way against the raw `readFile` + `JSON.parse`, side
 * by side in one run: `loadTrajectory` (the whole file parsed; only while the file is within the
 * one-document limit, raised here to 1 GiB for the 500 MB case) and `openSteps` over the byte
 * index (each step parsed from its range): its first step, and every step read once in turn; and
 * the stepper: until it shows a step (a large file's first step, read while the index is built,
 * with the header loading) and until its header is final (the whole path below 64 MiB). Each
 * measurement runs in its own child process so one variant's heap does not pollute another's peak,
 * after the file has been read through once so each starts from the page cache.
 *
 *   node --import tsx bench/load/run.ts [--steps 150] [--mb 50,500] [--reps 3]
 */
import '../../test/helpers/families';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { openSteps } from '../../extension/core/trajectory/stepSource';
import { median } from '../timing';
import { previewBootPayload, toStepSummary } from '../../extension/views/stepView';
import { writeTrajectory } from './largeTrajectory';

const VARIANTS = ['raw', 'load', 'first', 'all', 'stepper'] as const;
type Variant = (typeof VARIANTS)[number];
const LABEL: Record<Variant, string> = {
  raw: 'readFile+JSON.parse',
  load: 'loadTrajectory',
  first: 'indexed, first step',
  all: 'indexed, every step',
  stepper: 'stepper header',
};

interface Sample {
  ms: number;
  /** openSteps: until the index is built and the first step parsed. */
  firstMs?: number;
  /** openSteps: until the first step is shown from its own bytes, while the index is still being built. */
  previewMs?: number;
  /** Peak resident set size above the process's size just before the work, in bytes. */
  peakAboveBaseline: number;
  peakRss: number;
  steps: number;
}

async function child(variant: Variant, file: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  const start = performance.now();
  let steps: number;
  let firstMs: number | undefined;
  let previewMs: number | undefined;
  if (variant === 'raw') {
    const value = JSON.parse(await readFile(file, 'utf8')) as { trajectory: unknown[] };
    steps = value.trajectory.length;
  } else if (variant === 'load') {
    steps = (await loadTrajectory(file, { limits: { maxBytes: 1 << 30 } })).trajectory.steps.length;
  } else if (variant === 'stepper') {
    // What the stepper waits for before it shows a step (TrajectoryDocument, StepperSession.boot): an indexed file's preview,
    // made into the page's boot; then, for the final header, openSteps deciding by size, the steps without observations,
    // the step itself, and the summaries when the file was read whole.
    const source = await openSteps(file, {
      onPreview: (step) => {
        if (!step) return;
        JSON.stringify(previewBootPayload(step, 'swe-agent', path.basename(file)));
        previewMs = performance.now() - start;
      },
    });
    await source.lightSteps();
    await source.step(0);
    if (source.mode === 'whole') await source.steps(0, source.stepCount).then((all) => all.map(toStepSummary));
    steps = source.stepCount;
  } else {
    const source = await openSteps(file, {
      indexFromBytes: 0,
      onPreview: (step) => {
        if (step) previewMs = performance.now() - start;
      },
    });
    if (source.mode !== 'indexed') throw new Error(`${file} was not indexed`);
    await source.step(0);
    firstMs = performance.now() - start;
    steps = source.stepCount;
    if (variant === 'all') for (let i = 1; i < source.stepCount; i++) await source.step(i);
  }
  const ms = performance.now() - start;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ms, firstMs, previewMs, peakRss, peakAboveBaseline: peakRss - baseline, steps }) + '\n');
}

/** Reads the file through once, so every variant starts from the page cache rather than from whatever the previous one left there. */
function warm(file: string): void {
  const fd = openSync(file, 'r');
  const buffer = Buffer.allocUnsafe(8 << 20);
  try {
    while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

function measure(variant: Variant, file: string): Sample | string {
  warm(file);
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, '--child', variant, file], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return JSON.parse(out) as Sample;
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err)
      .trim()
      .split('\n')[0]!;
  }
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

function report(size: number, steps: string, reps: number, samples: Record<Variant, Array<Sample | string>>): string[] {
  const ok = (v: Variant) => samples[v].filter((s): s is Sample => typeof s !== 'string');
  const failed = (v: Variant) => samples[v].find((s): s is string => typeof s === 'string');
  const time = (v: Variant) => median(ok(v).map((s) => s.ms));
  const lines = [`file: ${steps} steps, ${mb(size)} (SWE-agent .traj with history); medians of ${reps}`];
  for (const v of VARIANTS) {
    if (ok(v).length === 0) {
      lines.push(`  ${LABEL[v].padEnd(22)} failed: ${failed(v) ?? 'no sample'}`);
      continue;
    }
    const above = median(ok(v).map((s) => s.peakAboveBaseline)) / size;
    const at = (key: 'firstMs' | 'previewMs') => median(ok(v).map((s) => s[key]!)).toFixed(0);
    const previewed = ok(v).every((s) => s.previewMs !== undefined);
    const first =
      v === 'first' || v === 'all'
        ? `   (first step shown at ${at('previewMs')} ms, index built at ${at('firstMs')} ms)`
        : v === 'stepper'
          ? previewed
            ? `   (first step shown at ${at('previewMs')} ms, header loading until the time given)`
            : '   (first step shown with the header: read whole)'
          : '';
    const ratio = v === 'raw' ? '' : `   ${(time(v) / time('raw')).toFixed(2)}x raw`;
    lines.push(
      `  ${LABEL[v].padEnd(22)} ${time(v).toFixed(0).padStart(6)} ms${ratio}   peak RSS above baseline ${above.toFixed(2)}x the file (${mb(median(ok(v).map((s) => s.peakRss)))} whole process)${first}`,
    );
  }
  return lines;
}

function main(): void {
  const { values } = parseArgs({
    options: { steps: { type: 'string', default: '150' }, mb: { type: 'string', default: '50,500' }, reps: { type: 'string', default: '3' } },
  });
  const reps = Number(values.reps);
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-bench-load-'));
  try {
    for (const megabytes of values.mb.split(',').map(Number)) {
      const file = path.join(dir, `large-${megabytes}.traj`);
      writeTrajectory(file, Number(values.steps), megabytes);
      const size = statSync(file).size;
      const samples: Record<Variant, Array<Sample | string>> = { raw: [], load: [], first: [], all: [], stepper: [] };
      for (let r = 0; r < reps; r++) {
        // Rotate the order so drift on a shared machine falls on every variant alike.
        for (let k = 0; k < VARIANTS.length; k++) {
          const variant = VARIANTS[(k + r) % VARIANTS.length]!;
          samples[variant].push(measure(variant, file));
        }
      }
      process.stdout.write(report(size, values.steps, reps, samples).join('\n') + '\n');
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  child(process.argv[3] as Variant, process.argv[4]!).catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exitCode = 1;
  });
} else {
  main();
}
