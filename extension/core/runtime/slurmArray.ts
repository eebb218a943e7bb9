/**
 * Batch work past one machine, on an existing scheduler: the work's items are split into shards,
 * one Slurm job array runs the same CLI on each shard (`--shard K/N --shard-out DIR`, the local
 * code path on a subset), and the submitter follows the array, names every task that failed or
 * was lost (node, exit state, log), and hands back the shards' results for the command to merge
 * into exactly what a local run writes. Everything lives in OUT/slurm/ on the shared filesystem:
 * the plan (so `--resume` submits only the shards without a result), the job script, one folder
 * per shard, the tasks' logs.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CancelledError, errorText } from '../errors';

/** What the person asked of Slurm on the command line. */
export interface SlurmSettings {
  shards: number;
  partition?: string | undefined;
  /** sbatch --time, as Slurm writes it (minutes, or [D-]HH:MM:SS). */
  time?: string | undefined;
  cpusPerTask?: number | undefined;
  /** sbatch --mem, e.g. 4G. */
  mem?: string | undefined;
  /** Further sbatch options, each one word (`--sbatch-arg=--qos=low`). */
  sbatchArgs: readonly string[];
  /** Submit only the shards of OUT/slurm that have no result yet. */
  resume: boolean;
}

/** The CLI as the nodes must run it: the same Node, flags and entry, at the same paths. */
interface CliInvocation {
  node: string;
  execArgv: readonly string[];
  entry: string;
  cwd: string;
}

export interface ArrayWork {
  /** The output folder, on a filesystem every node mounts. */
  outDir: string;
  /** The command's own arguments (no scheduler flags): each task adds `--shard K/N --shard-out DIR`. */
  argv: readonly string[];
  /** How many items the work has; shard K takes the items whose index is K modulo the shard count. */
  items: number;
  /** Images the tasks' containers start from; the preflight checks each node has them (and, when there are any, an engine). */
  images: readonly string[];
  cli: CliInvocation;
}

export interface SlurmHooks {
  signal?: AbortSignal | undefined;
  /** A line of progress (shards done, running with their nodes, pending, failed), when it changes. */
  onProgress?: ((line: string) => void) | undefined;
  /** How often squeue is asked (default 1 s). */
  pollMs?: number | undefined;
}

/** The folder Slurm's files live in, inside the output folder. */
const slurmDir = (outDir: string): string => path.join(outDir, 'slurm');
const shardDir = (outDir: string, k: number): string => path.join(slurmDir(outDir), 'shards', String(k));
const RESULT = 'result.json';
const STATUS = 'status.json';

/** A fault of the cluster or its setup, said in words, with what to do. */
export class SlurmError extends Error {
  override readonly name = 'SlurmError';
}

/** The items of shard `k` of `n`: every n-th, from k (so shards differ in size by one at most). */
export function shardItems<T>(items: readonly T[], k: number, n: number): { index: number; item: T }[] {
  return items.flatMap((item, index) => (index % n === k ? [{ index, item }] : []));
}

/** `K/N` of `--shard`, checked. */
export function parseShard(text: string): { k: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k >= n) throw new SlurmError(`--shard expects K/N with 0 <= K < N, got '${text}'`);
  return { k, n };
}

/** A shard's result, written whole (a task killed while writing leaves none). */
export async function writeShardResult(dir: string, entries: readonly { index: number; value: unknown }[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const tmp = path.join(dir, `${RESULT}.${process.pid}.tmp`);
  await writeFile(tmp, JSON.stringify({ entries }) + '\n');
  await rename(tmp, path.join(dir, RESULT));
}

interface Plan {
  argv: string[];
  items: number;
  shards: number;
  jobs: string[];
}

interface ShardState {
  shard: number;
  state: 'done' | 'running' | 'pending' | 'failed';
  node?: string;
  detail?: string;
}

function run(cmd: string, args: readonly string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 16 << 20, ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return reject(new SlurmError(`${cmd} is not installed here: submitting to Slurm needs its client commands (sbatch, squeue, scancel, sinfo, scontrol)`));
      if (signal?.aborted) return reject(new CancelledError(typeof signal.reason === 'string' ? signal.reason : 'cancelled'));
      reject(new SlurmError(`${cmd} ${args.join(' ')} failed: ${(stderr || errorText(err)).trim()}`));
    });
  });
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function sbatchOptions(s: SlurmSettings): string[] {
  return [
    ...(s.partition ? [`--partition=${s.partition}`] : []),
    ...(s.time ? [`--time=${s.time}`] : []),
    ...(s.cpusPerTask ? [`--cpus-per-task=${s.cpusPerTask}`] : []),
    ...(s.mem ? [`--mem=${s.mem}`] : []),
    ...s.sbatchArgs,
  ];
}

/** The job script every task runs: the CLI on its shard, its containers removed however it ends, its status kept. */
function jobScript(work: ArrayWork, shards: number): string {
  const cli = [work.cli.node, ...work.cli.execArgv, work.cli.entry, ...work.argv].map(quote).join(' ');
  const base = quote(path.join(slurmDir(work.outDir), 'shards'));
  return `#!/bin/bash
# Written by swe-workbench: task K of this array runs the command below on shard K of ${shards},
# writing into ${path.join(slurmDir(work.outDir), 'shards')}/K; the submitter merges the shards.
set -u
k=$SLURM_ARRAY_TASK_ID
dir=${base}/$k
mkdir -p "$dir"
rm -f "$dir/${STATUS}"
cd ${quote(work.cli.cwd)} || exit 97
${cli} --shard "$k/${shards}" --shard-out "$dir" &
child=$!
# scancel's SIGTERM reaches the CLI, which removes its containers; this shell waits for it.
trap 'kill -TERM "$child" 2>/dev/null' TERM INT
while :; do
  wait "$child"; code=$?
  kill -0 "$child" 2>/dev/null || break
done
# Containers the CLI could not remove itself (killed outright) carry its owner label.
for engine in docker podman; do
  if command -v "$engine" >/dev/null 2>&1; then
    "$engine" ps -aq --filter "label=swe-workbench.owner=$(hostname):$child" 2>/dev/null | xargs -r "$engine" rm -f >/dev/null 2>&1
  fi
done
printf '{"shard":%s,"node":"%s","exitCode":%s}\\n' "$k" "\${SLURMD_NODENAME:-$(hostname)}" "$code" >"$dir/${STATUS}.tmp" && mv "$dir/${STATUS}.tmp" "$dir/${STATUS}"
exit "$code"
`;
}

/** The probe one task runs on each node: the shared folder, the CLI, a container engine, the images. */
function probeScript(work: ArrayWork, probeFile: string, token: string, replyDir: string): string {
  const node = quote(work.cli.node);
  const entry = quote(work.cli.entry);
  const images = work.images.map(quote).join(' ');
  return `#!/bin/bash
n=\${SLURMD_NODENAME:-$(hostname)}
reply=${quote(replyDir)}/$n.txt
{
  if [ "$(cat ${quote(probeFile)} 2>/dev/null)" = ${quote(token)} ]; then echo "ok shared"; else echo "fail shared"; fi
  if [ -x ${node} ] && [ -e ${entry} ]; then echo "ok cli"; else echo "fail cli"; fi
  engine=
  for e in docker podman; do
    if command -v "$e" >/dev/null 2>&1 && "$e" version >/dev/null 2>&1; then engine=$e; break; fi
  done
  if [ -n "$engine" ]; then echo "ok engine $engine"; else echo "fail engine"; fi
  for image in ${images}; do
    if [ -n "$engine" ] && "$engine" image inspect "$image" >/dev/null 2>&1; then echo "ok image $image"; else echo "fail image $image"; fi
  done
} >"$reply.tmp" 2>/dev/null && mv "$reply.tmp" "$reply"
`;
}

async function nodesUp(settings: SlurmSettings, signal?: AbortSignal): Promise<{ up: string[]; down: string[] }> {
  const out = await run('sinfo', ['-h', '-N', '-o', '%N %t', ...(settings.partition ? ['-p', settings.partition] : [])], signal);
  const up = new Set<string>();
  const down = new Set<string>();
  for (const line of out.split('\n')) {
    const [name, state] = line.trim().split(/\s+/);
    if (!name || !state) continue;
    if (/^(down|drain|fail|maint|futr|unk|no_respond|powered)/.test(state) || state.endsWith('*')) down.add(name);
    else up.add(name);
  }
  return { up: [...up].sort(), down: [...down].filter((n) => !up.has(n)).sort() };
}

/**
 * Before anything is submitted: one probe task per node that is up must read a file written
 * here (the output folder is shared), find the CLI at the same path, reach a container engine,
 * and find the images. Throws a SlurmError saying what each node lacks.
 */
async function preflight(work: ArrayWork, settings: SlurmSettings, hooks: SlurmHooks = {}): Promise<string[]> {
  const { up, down } = await nodesUp(settings, hooks.signal);
  if (up.length === 0) {
    throw new SlurmError(
      `no Slurm node is up${settings.partition ? ` in partition ${settings.partition}` : ''}${down.length ? ` (down: ${down.join(', ')})` : ''}; sinfo -N shows the nodes`,
    );
  }
  const dir = path.join(slurmDir(work.outDir), 'probe');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const token = randomBytes(12).toString('hex');
  const probeFile = path.join(dir, 'probe.txt');
  await writeFile(probeFile, token);
  const script = path.join(dir, 'probe.sh');
  await writeFile(script, probeScript(work, probeFile, token, dir), { mode: 0o755 });
  const opts = sbatchOptions({ ...settings, time: settings.time ?? '5' });
  const jobs = await Promise.all(
    up.map(
      async (node) =>
        (
          await run(
            'sbatch',
            [
              '--parsable',
              '--no-requeue',
              '--job-name=swe-workbench-probe',
              `--nodelist=${node}`,
              `--output=${path.join(dir, `${node}.log`)}`,
              ...opts,
              script,
            ],
            hooks.signal,
          )
        )
          .trim()
          .split(';')[0]!,
    ),
  );
  try {
    await waitGone(jobs, hooks);
  } catch (err) {
    await run('scancel', jobs).catch(() => undefined);
    throw err;
  }
  const problems: string[] = [];
  for (const node of up) {
    const reply = await readFile(path.join(dir, `${node}.txt`), 'utf8').catch(() => undefined);
    if (reply === undefined) {
      problems.push(
        `${node}: its probe task wrote nothing into ${dir}: the output folder must be on a filesystem every node mounts at the same path (its log: ${path.join(dir, `${node}.log`)})`,
      );
      continue;
    }
    for (const line of reply.split('\n')) {
      const [verdict, what, detail] = line.split(' ');
      if (verdict !== 'fail') continue;
      if (what === 'shared')
        problems.push(`${node}: read a different ${probeFile} than this machine wrote: the output folder must be the same shared folder on every node`);
      else if (what === 'cli')
        problems.push(`${node}: the CLI is not at ${work.cli.entry} (run by ${work.cli.node}): install it at the same path on every node`);
      // Work without images (re-scoring tokens against a server) starts no container.
      else if (what === 'engine' && work.images.length > 0)
        problems.push(`${node}: no container engine answers (docker, or podman with its Docker-compatible socket)`);
      else if (what === 'image')
        problems.push(`${node}: the image ${detail} is not there: build or load it on the node (swe-workbench image build, or docker load)`);
    }
  }
  await rm(dir, { recursive: true, force: true });
  if (problems.length > 0) throw new SlurmError(`the Slurm nodes are not ready:\n  ${problems.join('\n  ')}`);
  return up;
}

/** Waits until none of `jobs` is in squeue any more. */
async function waitGone(jobs: readonly string[], hooks: SlurmHooks): Promise<void> {
  const queue = squeueReader();
  for (;;) {
    if (hooks.signal?.aborted) throw new CancelledError(typeof hooks.signal.reason === 'string' ? hooks.signal.reason : 'cancelled');
    const out = await queue(['-h', '-r', '-j', jobs.join(','), '-o', '%i']);
    if (out !== undefined && out.trim() === '') return;
    await delay(hooks.pollMs ?? 1000, hooks.signal);
  }
}

/**
 * squeue, read so that one failed call (a controller busy or restarting) is a poll skipped,
 * never an empty queue: that would take every running task for ended. Undefined for a skipped
 * poll; a SlurmError once it has failed 30 times in a row.
 */
function squeueReader(): (args: readonly string[]) => Promise<string | undefined> {
  let failures = 0;
  return async (args) => {
    try {
      const out = await run('squeue', args);
      failures = 0;
      return out;
    } catch (err) {
      if (++failures >= 30) throw new SlurmError(`squeue failed ${failures} times in a row, the last: ${errorText(err)}`);
      return undefined;
    }
  };
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

const exists = (file: string) =>
  readFile(file).then(
    () => true,
    () => false,
  );

async function readPlan(outDir: string): Promise<Plan | undefined> {
  const text = await readFile(path.join(slurmDir(outDir), 'plan.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Plan;
  } catch {
    throw new SlurmError(`${path.join(slurmDir(outDir), 'plan.json')} is not JSON: this folder's Slurm run cannot be resumed; use another --out`);
  }
}

/**
 * Runs the work as one Slurm job array and returns each item's value (from the shards' results,
 * by item index) once every shard has finished. A shard that failed or was lost is named with
 * its node, exit state and log, the finished ones stay on disk, and a SlurmError says to run
 * again with --resume, which submits only the missing shards.
 */
export async function runArray(work: ArrayWork, settings: SlurmSettings, hooks: SlurmHooks = {}): Promise<unknown[]> {
  const dir = slurmDir(work.outDir);
  const previous = await readPlan(work.outDir);
  const shards = Math.max(1, Math.min(settings.shards, work.items || 1));
  let plan: Plan;
  if (settings.resume) {
    if (!previous) throw new SlurmError(`--resume: ${dir} holds no Slurm run to resume (no plan.json)`);
    if (JSON.stringify(previous.argv) !== JSON.stringify(work.argv) || previous.items !== work.items) {
      throw new SlurmError(
        `--resume: ${dir} was submitted for other work (${previous.argv.join(' ')}; ${previous.items} items); run the same command, or use another --out`,
      );
    }
    plan = previous;
  } else {
    if (previous) throw new SlurmError(`${dir} already holds a Slurm run: add --resume to finish it, or use another --out`);
    plan = { argv: [...work.argv], items: work.items, shards, jobs: [] };
  }
  const missing: number[] = [];
  for (let k = 0; k < plan.shards; k++) if (!(await exists(path.join(shardDir(work.outDir, k), RESULT)))) missing.push(k);

  if (missing.length > 0) {
    await mkdir(path.join(dir, 'logs'), { recursive: true });
    await preflight(work, settings, hooks);
    // A missing shard's earlier attempt leaves nothing behind that could be merged twice.
    for (const k of missing) await rm(shardDir(work.outDir, k), { recursive: true, force: true });
    const script = path.join(dir, 'job.sh');
    await writeFile(script, jobScript(work, plan.shards), { mode: 0o755 });
    const out = await run(
      'sbatch',
      [
        '--parsable',
        '--no-requeue',
        `--array=${missing.join(',')}`,
        '--job-name=swe-workbench',
        `--output=${path.join(dir, 'logs', '%A_%a.log')}`,
        `--chdir=${work.cli.cwd}`,
        ...sbatchOptions(settings),
        script,
      ],
      hooks.signal,
    );
    const job = out.trim().split(';')[0]!;
    plan.jobs.push(job);
    await writeFile(path.join(dir, 'plan.json'), JSON.stringify(plan, null, 2) + '\n');
    hooks.onProgress?.(
      `slurm: job array ${job} submitted: ${missing.length} of ${plan.shards} shard${plan.shards === 1 ? '' : 's'} (${missing.join(',')}), script ${script}`,
    );
    const failed = await follow(work.outDir, job, missing, plan.shards, hooks);
    if (failed.length > 0) {
      const done = plan.shards - failed.length;
      throw new SlurmError(
        `${failed.length} of ${plan.shards} shards did not finish:\n  ${failed.map((f) => `shard ${f.shard}: ${f.detail}`).join('\n  ')}\n` +
          `the ${done} finished shard${done === 1 ? ' is' : 's are'} kept in ${path.join(dir, 'shards')}; run the same command with --resume to submit only the ${failed.length} missing`,
      );
    }
  }
  return mergeResults(work.outDir, plan);
}

async function mergeResults(outDir: string, plan: Plan): Promise<unknown[]> {
  const values: unknown[] = new Array<unknown>(plan.items);
  const seen = new Set<number>();
  for (let k = 0; k < plan.shards; k++) {
    const file = path.join(shardDir(outDir, k), RESULT);
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { entries: { index: number; value: unknown }[] };
    for (const e of parsed.entries) {
      if (seen.has(e.index) || e.index % plan.shards !== k) throw new SlurmError(`${file}: item ${e.index} does not belong to shard ${k} or came twice`);
      seen.add(e.index);
      values[e.index] = e.value;
    }
  }
  if (seen.size !== plan.items) throw new SlurmError(`the shards hold ${seen.size} of ${plan.items} items`);
  return values;
}

/** Follows the array until no task is left in squeue; returns the shards that ended without a result. */
async function follow(outDir: string, job: string, shards: readonly number[], total: number, hooks: SlurmHooks): Promise<ShardState[]> {
  let last = '';
  const onAbort = () => void run('scancel', [job]).catch(() => undefined);
  hooks.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const queue = squeueReader();
    for (;;) {
      const queued = new Map<number, { state: string; node: string }>();
      const out = await queue(['-h', '-r', '-j', job, '-o', '%K|%T|%N']);
      if (out === undefined) {
        await delay(hooks.pollMs ?? 1000);
        continue;
      }
      for (const line of out.split('\n')) {
        const [task, state, node] = line.trim().split('|');
        if (task && state) queued.set(Number(task), { state, node: node ?? '' });
      }
      if (hooks.signal?.aborted) {
        // Cancelled: scancel went out; wait until every task has ended (its containers removed).
        if (queued.size === 0)
          throw new CancelledError(`${typeof hooks.signal.reason === 'string' ? hooks.signal.reason : 'cancelled'}: job array ${job} cancelled (scancel)`);
        await delay(hooks.pollMs ?? 1000);
        continue;
      }
      const states: ShardState[] = [];
      for (const k of shards) {
        const q = queued.get(k);
        if (q) {
          states.push(q.state === 'PENDING' ? { shard: k, state: 'pending' } : { shard: k, state: 'running', node: q.node });
          continue;
        }
        if (await exists(path.join(shardDir(outDir, k), RESULT))) {
          const status = await readStatus(outDir, k);
          states.push({ shard: k, state: 'done', ...(status?.node ? { node: status.node } : {}) });
        } else states.push(await failure(outDir, job, k));
      }
      const line = progressLine(job, states, total - shards.length);
      if (line !== last) hooks.onProgress?.(line);
      last = line;
      if (queued.size === 0) return states.filter((s) => s.state === 'failed');
      await delay(hooks.pollMs ?? 1000, hooks.signal);
    }
  } finally {
    hooks.signal?.removeEventListener('abort', onAbort);
  }
}

async function readStatus(outDir: string, k: number): Promise<{ node?: string; exitCode?: number } | undefined> {
  const text = await readFile(path.join(shardDir(outDir, k), STATUS), 'utf8').catch(() => undefined);
  try {
    return text === undefined ? undefined : (JSON.parse(text) as { node?: string; exitCode?: number });
  } catch {
    return undefined;
  }
}

/** A task gone from the queue without a result: its node, Slurm's state and exit code, its log. */
async function failure(outDir: string, job: string, k: number): Promise<ShardState> {
  const log = path.join(slurmDir(outDir), 'logs', `${job}_${k}.log`);
  const status = await readStatus(outDir, k);
  const shown = await run('scontrol', ['-o', 'show', 'job', `${job}_${k}`]).catch(() => '');
  const field = (name: string) => new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(shown)?.[1];
  const node = status?.node ?? field('NodeList') ?? 'unknown node';
  const state = field('JobState') ?? 'state unknown';
  const exit = status ? `the command exited with ${status.exitCode}` : `exit code ${field('ExitCode') ?? 'unknown'}`;
  return { shard: k, state: 'failed', node, detail: `task ${job}_${k} on ${node}: ${state}, ${exit}; log ${log}` };
}

function progressLine(job: string, states: readonly ShardState[], doneBefore: number): string {
  const count = (s: ShardState['state']) => states.filter((x) => x.state === s);
  const nodes = (xs: ShardState[]) => {
    const by = new Map<string, number>();
    for (const x of xs) by.set(x.node ?? '?', (by.get(x.node ?? '?') ?? 0) + 1);
    return by.size ? ` (${[...by].map(([n, c]) => `${n}: ${c}`).join(', ')})` : '';
  };
  const done = count('done');
  const running = count('running');
  const failed = count('failed');
  return `slurm ${job}: ${done.length + doneBefore} done${nodes(done)}, ${running.length} running${nodes(running)}, ${count('pending').length} pending, ${failed.length} failed${nodes(failed)}`;
}
