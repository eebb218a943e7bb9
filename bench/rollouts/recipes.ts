/**
 * Recipe scoring and SFT export on a 10,000-rollout GRPO run (1,000 instances x 10 attempts,
 * R2E-Gym JSONL, test/helpers/largeRolloutRun.ts), each as a ratio to the plain index of the
 * same run, measured side by side in one run. Each variant runs in its own child process, so its
 * peak RSS is its own:
 *   index    indexRollouts, no cache: the baseline
 *   recipes  index + every built-in recipe scored with its estimator (nine scoreRun calls)
 *   export   index + exportSft of all 10,000 rollouts to a JSONL file (streamed, atomic)
 * Usage: node --import tsx bench/rollouts/recipes.ts [--rounds N]
 */
import '../../test/helpers/families';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_RECIPES } from '../../extension/core/reward/recipes';
import { exportSft } from '../../extension/core/rollouts/curation';
import { scoreRun } from '../../extension/core/rollouts/recipeRun';
import { indexRollouts } from '../../extension/core/rollouts/rolloutIndex';
import { writeLargeRolloutRun } from '../../test/helpers/largeRolloutRun';
import { median } from '../timing';
import { answer, cpuMsSince, measureInChild, peakRssMb } from './childMeasure';

interface Measure {
  variant: string;
  ms: number;
  cpuMs: number;
  /** The part after the index: scoring or exporting alone. */
  extraMs: number;
  peakRssMb: number;
  rollouts: number;
  detail: string;
}

async function child(variant: string, root: string, out: string): Promise<void> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const index = await indexRollouts(root);
  const indexed = performance.now();
  let detail = '';
  if (variant === 'recipes') {
    let scored = 0;
    for (const recipe of BUILT_IN_RECIPES) scored += scoreRun(index.rollouts, recipe).statistics.scored;
    detail = `${scored} scores over ${BUILT_IN_RECIPES.length} recipes`;
  } else if (variant === 'export') {
    const s = await exportSft(index.root, index.rollouts, join(out, 'sft.jsonl'));
    detail = `${s.written} lines, ${(statSync(join(out, 'sft.jsonl')).size / 1e6).toFixed(1)} MB`;
  }
  const end = performance.now();
  answer({
    variant,
    ms: end - start,
    cpuMs: cpuMsSince(cpu),
    extraMs: end - indexed,
    peakRssMb: peakRssMb(),
    rollouts: index.rollouts.length,
    detail,
  } satisfies Measure);
}

function measure(variant: string, root: string, out: string): Measure {
  return measureInChild<Measure>(__filename, variant, { root, out });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { child: { type: 'string' }, root: { type: 'string' }, out: { type: 'string' }, rounds: { type: 'string' } } });
  if (values.child) return child(values.child, values.root!, values.out!);
  const rounds = Number(values.rounds ?? 3);
  const run = writeLargeRolloutRun();
  const out = mkdtempSync(join(tmpdir(), 'swe-workbench-bench-export-'));
  try {
    console.log(`run: ${run.rollouts} rollouts, ${run.instances} instances`);
    const variants = ['index', 'recipes', 'export'];
    const results: Record<string, Measure[]> = Object.fromEntries(variants.map((v) => [v, []]));
    for (let i = 0; i < rounds; i++) for (const v of variants) results[v]!.push(measure(v, run.root, out));
    const med = (v: string) => median(results[v]!.map((m) => m.ms));
    const cpu = (v: string) => median(results[v]!.map((m) => m.cpuMs));
    const extra = (v: string) => median(results[v]!.map((m) => m.extraMs));
    const rss = (v: string) => Math.max(...results[v]!.map((m) => m.peakRssMb));
    for (const v of variants)
      console.log(
        `${v.padEnd(8)} ${med(v).toFixed(0).padStart(6)} ms wall (${extra(v).toFixed(0)} ms after the index), ${cpu(v).toFixed(0).padStart(6)} ms CPU (medians of ${rounds})  peak RSS ${rss(v).toFixed(0)} MB  ${results[v]![0]!.detail}`,
      );
    for (const v of ['recipes', 'export']) {
      console.log(
        `${v} / index = ${(med(v) / med('index')).toFixed(2)}x wall, ${(cpu(v) / cpu('index')).toFixed(2)}x CPU, ${(rss(v) / rss('index')).toFixed(2)}x peak RSS; the ${v === 'recipes' ? 'nine scorings' : 'export'} alone ${(extra(v) / median(results.index!.map((m) => m.ms))).toFixed(2)}x the index`,
      );
    }
  } finally {
    run.cleanup();
    rmSync(out, { recursive: true, force: true });
  }
}

void main();
