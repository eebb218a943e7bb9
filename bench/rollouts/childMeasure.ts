/**
 * Each variant of a rollouts bench runs in its own child process, so its peak RSS is its own:
 * the parent runs its own script again with `--child VARIANT` and the child answers with one
 * JSON line on stdout, the last it writes.
 */
import { spawnSync } from 'node:child_process';

/** Runs `script --child variant --name value...` under tsx (and `nodeFlags`) and returns the child's answer. */
export function measureInChild<T>(
  script: string,
  variant: string,
  args: Record<string, string>,
  nodeFlags: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): T {
  const flags = Object.entries(args).flatMap(([name, value]) => [`--${name}`, value]);
  const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', script, '--child', variant, ...flags], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(`${variant} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as T;
}

/** The child's answer. */
export function answer(measure: unknown): void {
  process.stdout.write(JSON.stringify(measure) + '\n');
}

/** This process's peak resident set so far, MB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** User and system CPU since `start` (a `process.cpuUsage()`), ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}
