import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { env } from 'node:process';

/**
 * Whether the two-node test cluster of scripts/slurm/start.sh (nodes n1 and n2) answers. Tests
 * that need it are skipped with this reason where it does not; with
 * `SWE_WORKBENCH_REQUIRE_SLURM=1` (.ci/run, whose setup starts the cluster) they fail instead.
 */
export function slurmMissing(): string | undefined {
  const r = spawnSync('sinfo', ['-h', '-N', '-o', '%N %t'], { encoding: 'utf8', timeout: 20_000 });
  const up =
    r.status === 0 ? new Set(r.stdout.split('\n').flatMap((l) => (/^(n1|n2) (idle|mix|alloc)/.exec(l.trim()) ? [l.trim().split(' ')[0]] : []))) : new Set();
  if (up.has('n1') && up.has('n2')) return undefined;
  const why = `the two-node Slurm test cluster does not answer with n1 and n2 up (${r.error ? 'sinfo is not installed' : r.stdout.trim() || r.stderr.trim()}); start it: sudo bash scripts/slurm/start.sh`;
  if (env.SWE_WORKBENCH_REQUIRE_SLURM === '1') throw new Error(`required here (SWE_WORKBENCH_REQUIRE_SLURM=1): ${why}`);
  return why;
}

/** The array tasks of `job` in the queue: task id, state, node. */
export function queued(job: string): { task: number; state: string; node: string }[] {
  const out = execFileSync('squeue', ['-h', '-r', '-j', job, '-o', '%K|%T|%N'], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [task, state, node] = l.trim().split('|');
      return { task: Number(task), state: state!, node: node ?? '' };
    });
}

/**
 * A node lost as a machine is lost: its slurmd and every process of its jobs (found by the
 * SLURMD_NODENAME their environment carries, and their slurmstepd) killed at once. Returns the
 * pids of the killed processes.
 */
export function killNode(node: string): number[] {
  const state = env.SWE_WORKBENCH_STATE ?? '/var/lib/swe-workbench';
  const killed: number[] = [];
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // already gone
    }
  };
  kill(Number(readFileSync(`${state}/slurm/slurmd-${node}.pid`, 'utf8').trim()));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let environ = '';
    let cmdline = '';
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    const ofNode = environ.split('\0').includes(`SLURMD_NODENAME=${node}`);
    const stepd = /^slurmstepd: \[(\d+)\./.exec(cmdline);
    if (ofNode || (stepd && stepdOnNode(Number(stepd[1]), node))) kill(pid);
  }
  return killed;
}

/** Whether raw job id `id` (one array task) runs on `node`. */
function stepdOnNode(id: number, node: string): boolean {
  // The array's first task shares its raw id with the array, whose every task scontrol then lists: one line each.
  const out = spawnSync('scontrol', ['-o', 'show', 'job', String(id)], { encoding: 'utf8' }).stdout ?? '';
  const own = out.split('\n').find((l) => l.startsWith(`JobId=${id} `));
  return own !== undefined && new RegExp(`\\bNodeList=${node}\\b`).test(own);
}
