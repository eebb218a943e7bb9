/**
 * `--scheduler slurm` and its options, shared by the batch commands: parsed here into the core's
 * settings (core/runtime/slurmArray.ts decides everything else), and the hidden `--shard K/N
 * --shard-out DIR` a job array's task runs the same command with.
 */
import path from 'node:path';
import { CancelledError } from '../core/errors';
import { parseShard, runArray, SlurmError, type SlurmSettings } from '../core/runtime/slurmArray';
import { CliError, type CommandContext } from './command';
import { positiveInt } from './sandboxFlags';

const str = { type: 'string' } as const;
export const SLURM_OPTIONS = {
  scheduler: str,
  shards: str,
  partition: str,
  time: str,
  'cpus-per-task': str,
  mem: str,
  'sbatch-arg': { type: 'string', multiple: true },
  resume: { type: 'boolean' },
  shard: str,
  'shard-out': str,
} as const;

export const SLURM_HELP = `  --scheduler S     local (default) or slurm: one Slurm job array, each task running this command
                    on a shard of the work with its node's container engine; needs --out DIR on a
                    filesystem every node mounts, where the job script, shards and logs go (DIR/slurm)
  --shards N        tasks in the array (default 4); --partition P, --time T, --cpus-per-task N,
                    --mem M go to sbatch, and --sbatch-arg ARG (repeatable) any other sbatch option
  --resume          submit only the shards of DIR/slurm that have no result yet`;

interface SlurmValues {
  scheduler?: string | undefined;
  shards?: string | undefined;
  partition?: string | undefined;
  time?: string | undefined;
  'cpus-per-task'?: string | undefined;
  mem?: string | undefined;
  'sbatch-arg'?: string[] | undefined;
  resume?: boolean | undefined;
  shard?: string | undefined;
  'shard-out'?: string | undefined;
}

export type Schedule = { mode: 'local' } | { mode: 'shard'; k: number; n: number; dir: string } | { mode: 'slurm'; settings: SlurmSettings; outDir: string };

/** Where this run's work goes: here, one shard of an array (a task), or to Slurm. */
export function scheduleOf(values: SlurmValues, outDir: string | undefined): Schedule {
  if (values.shard !== undefined || values['shard-out'] !== undefined) {
    if (values.shard === undefined || values['shard-out'] === undefined) throw new CliError('--shard and --shard-out go together (a Slurm task sets both)');
    try {
      return { mode: 'shard', ...parseShard(values.shard), dir: values['shard-out'] };
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  }
  const scheduler = values.scheduler ?? 'local';
  if (scheduler !== 'local' && scheduler !== 'slurm') throw new CliError(`--scheduler expects local or slurm, got '${scheduler}'`);
  const slurmOnly = (['shards', 'partition', 'time', 'cpus-per-task', 'mem', 'sbatch-arg', 'resume'] as const).filter((k) => values[k] !== undefined);
  if (scheduler === 'local') {
    if (slurmOnly.length > 0) throw new CliError(`--${slurmOnly[0]} goes with --scheduler slurm`);
    return { mode: 'local' };
  }
  if (outDir === undefined) throw new CliError('--scheduler slurm needs --out DIR: a folder on a filesystem every node mounts');
  return {
    mode: 'slurm',
    outDir: path.resolve(outDir),
    settings: {
      shards: positiveInt(values.shards, 'shards', 4),
      partition: values.partition,
      time: values.time,
      cpusPerTask: values['cpus-per-task'] === undefined ? undefined : positiveInt(values['cpus-per-task'], 'cpus-per-task', 1),
      mem: values.mem,
      sbatchArgs: values['sbatch-arg'] ?? [],
      resume: values.resume ?? false,
    },
  };
}

const SCHEDULER_FLAGS = new Set(['--scheduler', '--shards', '--partition', '--time', '--cpus-per-task', '--mem', '--sbatch-arg', '--resume']);

/** The command line a task runs: this one without the scheduler's flags (paths made absolute by the task's working folder, the submitter's). */
export function taskArgv(prefix: readonly string[], argv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.split('=')[0]!;
    if (a === '--') {
      kept.push(...argv.slice(i));
      break;
    }
    if (!SCHEDULER_FLAGS.has(name)) kept.push(a);
    else if (!a.includes('=') && name !== '--resume') i++;
  }
  return [...prefix, ...kept];
}

/**
 * Runs `items` work items through Slurm and returns their values by index, progress on stderr;
 * the scheduler's faults become CLI errors (exit 1) with their words, never a stack.
 */
export async function onSlurm(
  schedule: Extract<Schedule, { mode: 'slurm' }>,
  work: { argv: string[]; items: number; images: string[] },
  ctx: CommandContext,
): Promise<unknown[]> {
  try {
    return await runArray(
      {
        outDir: schedule.outDir,
        argv: work.argv,
        items: work.items,
        images: work.images,
        cli: { node: process.execPath, execArgv: process.execArgv, entry: path.resolve(process.argv[1] ?? ''), cwd: process.cwd() },
      },
      schedule.settings,
      { signal: ctx.signal, onProgress: (line) => ctx.stderr.write(line + '\n') },
    );
  } catch (err) {
    if (err instanceof SlurmError || err instanceof CancelledError) throw new CliError(err.message, 1);
    throw err;
  }
}

/**
 * The merged values of work whose items are a folder's rollouts, each value naming its own: every
 * task lists the folder again, so a folder changed while the array ran would put other rollouts
 * under these names. Refused, naming the first that moved.
 */
export function sameRollouts<T extends { name: string }>(values: unknown[], names: readonly string[], folder: string): T[] {
  const merged = values as T[];
  const moved = merged.findIndex((v, i) => v.name !== names[i]);
  if (moved >= 0)
    throw new CliError(
      `${folder} changed while the array ran: a task took ${merged[moved]!.name} where ${names[moved]} is now; run again with another --out`,
      1,
    );
  return merged;
}
