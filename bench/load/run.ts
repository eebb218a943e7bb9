/**
 * Loading a large SWE-agent trajectory: `loadTrajectory` against the raw `readFile` +
 * `JSON.parse` it wraps, side by side in one run. Each measurement runs in its own child
 * process so one variant's heap does not pollute the other's peak.
 *
 *   node --import tsx bench/load/run.ts [--steps 150] [--mb 50] [--reps 5]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { median } from '../timing';

type Variant = 'raw' | 'load';

interface Sample {
  ms: number;
  /** Peak resident set size above the process's size just before the work, in bytes. */
  peakAboveBaseline: number;
  peakRss: number;
}

/** Deterministic source-like text, so runs are comparable. */
function codeLines(seed: number, bytes: number): string {
  const words = ['self', 'value', 'return', 'total_seconds', 'base_unit', 'int', 'round', 'field', 'serialize', 'precision', 'obj', 'attr', 'kwargs'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let x = (seed * 7919 + i * 104729) >>> 0;
    const parts: string[] = [];
    for (let w = 0; w < 6 + (i % 7); w++) {
      x = (x * 1103515245 + 12345) >>> 0;
      parts.push(words[x % words.length]!);
    }
    const line = `${String(i + 1).padStart(6)}\t        ${parts.join(' ')}(${x % 997})\r`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** A SWE-agent 1.x trajectory: each observation appears in `trajectory[]` and again in `history[]`, as SWE-agent writes it. */
function writeTrajectory(file: string, steps: number, megabytes: number): void {
  const perObservation = Math.floor((megabytes * 1_000_000) / steps / 2);
  const trajectory = [];
  const history: unknown[] = [
    { role: 'system', content: 'SETTING: You are an autonomous programmer.', agent: 'main', message_type: 'system_prompt' },
    { role: 'user', content: 'Fix the TimeDelta precision bug.', agent: 'main', message_type: 'observation' },
  ];
  for (let i = 0; i < steps; i++) {
    const observation = codeLines(i, perObservation);
    const command = `str_replace_editor view /testbed/src/module_${i}.py`;
    const call = {
      id: `call_${i}`,
      type: 'function',
      function: { name: 'str_replace_editor', arguments: JSON.stringify({ command: 'view', path: `/testbed/src/module_${i}.py` }) },
    };
    trajectory.push({
      action: command,
      observation,
      response: `Look at module ${i}.`,
      thought: `Look at module ${i}.`,
      execution_time: 0.12,
      state: { open_file: null, working_dir: '/testbed' },
      query: [],
      extra_info: {},
    });
    history.push({
      role: 'assistant',
      content: `Look at module ${i}.`,
      thought: `Look at module ${i}.`,
      action: command,
      agent: 'main',
      message_type: 'action',
      tool_calls: [call],
    });
    history.push({ role: 'tool', content: observation, agent: 'main', message_type: 'observation', tool_call_ids: [call.id] });
  }
  const replayConfig = JSON.stringify({
    agent: {
      tools: {
        bundles: [{ path: 'tools/registry' }, { path: 'tools/edit_anthropic' }, { path: 'tools/submit' }],
        parse_function: { type: 'function_calling' },
      },
      model: { name: 'bench' },
    },
  });
  const info = {
    exit_status: 'submitted',
    submission: 'diff --git a/x b/x\n',
    model_stats: { instance_cost: 1.5, tokens_sent: 1_000_000, tokens_received: 20_000, api_calls: steps },
  };
  writeFileSync(file, JSON.stringify({ environment: 'bench', trajectory, history, info, replay_config: replayConfig }, null, 2));
}

async function child(variant: Variant, file: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  const start = performance.now();
  let steps: number;
  if (variant === 'raw') {
    const value = JSON.parse(await readFile(file, 'utf8')) as { trajectory: unknown[] };
    steps = value.trajectory.length;
  } else {
    steps = (await loadTrajectory(file)).trajectory.steps.length;
  }
  const ms = performance.now() - start;
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ms, peakRss, peakAboveBaseline: peakRss - baseline, steps }) + '\n');
}

function measure(variant: Variant, file: string): Sample {
  const out = execFileSync(process.execPath, ['--import', 'tsx', __filename, '--child', variant, file], { encoding: 'utf8' });
  return JSON.parse(out) as Sample;
}

const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

function main(): void {
  const { values } = parseArgs({
    options: { steps: { type: 'string', default: '150' }, mb: { type: 'string', default: '50' }, reps: { type: 'string', default: '5' } },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-bench-load-'));
  try {
    const file = path.join(dir, 'large.traj');
    writeTrajectory(file, Number(values.steps), Number(values.mb));
    const size = statSync(file).size;
    const samples: Record<Variant, Sample[]> = { raw: [], load: [] };
    for (let r = 0; r < Number(values.reps); r++) {
      // Alternate the order so drift on a shared machine falls on both variants alike.
      for (const variant of (r % 2 === 0 ? ['raw', 'load'] : ['load', 'raw']) as Variant[]) samples[variant].push(measure(variant, file));
    }
    const time = (v: Variant) => median(samples[v].map((s) => s.ms));
    const above = (v: Variant) => median(samples[v].map((s) => s.peakAboveBaseline));
    const peak = (v: Variant) => median(samples[v].map((s) => s.peakRss));
    const lines = [
      `file: ${values.steps} steps, ${mb(size)} (SWE-agent .traj with history)`,
      `time, median of ${values.reps}:  readFile+JSON.parse ${time('raw').toFixed(0)} ms   loadTrajectory ${time('load').toFixed(0)} ms   ratio ${(time('load') / time('raw')).toFixed(2)}x (target <= 1.3x)`,
      `peak RSS above process baseline / file size:  raw ${(above('raw') / size).toFixed(2)}x   loadTrajectory ${(above('load') / size).toFixed(2)}x (target <= 3x)`,
      `peak RSS (whole process):  raw ${mb(peak('raw'))}   loadTrajectory ${mb(peak('load'))}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
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
