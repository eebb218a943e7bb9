/**
 * Per-call latency of every scaffold family's non-edit tool calls, each beside the same work
 * done raw, interleaved in one container so the machine's noise falls on both alike:
 *   persistent-shell families (SWE-agent 1.x and 0.7, OpenHands): raw is one command through the
 *     same persistent shell that prints what the tool shows (the window's numbered lines through
 *     one awk, `grep -n`, `cat -n`, `find`, ...);
 *   fresh-process families (R2E-Gym, mini-swe-agent): raw is the same command line as a plain
 *     `docker exec` (create, start, read to the end, inspect for the exit code), as the scaffold's
 *     own runtime starts it.
 * Ours is the whole tool call through AciSession with the family's scaffold (parsing, the tool's
 * command, the observation's wording, the step state). Prints medians, ours/raw and the sandbox
 * calls (shell commands and processes) each call of ours made; `p10 o/r` is the same ratio of the
 * 10th percentiles, which a busy machine's descheduling (a whole time slice on one side of a
 * pair) moves less than the medians.
 * Usage: node --import tsx bench/aci/families.ts [--rounds N] [--tty]
 *   --tty runs the sandbox's shell under a pseudo-terminal, as SWE-agent 1.x recordings do.
 */
import '../../test/helpers/families';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type Docker from 'dockerode';
import { AciSession, type AciStepResult } from '../../extension/core/aci/aciSession';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { chooseScaffold, parseScaffoldSpec } from '../../extension/core/scaffolds/registry';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { median, timed } from '../timing';
import { DEFAULT_R2E_IMAGE } from '../../extension/core/scaffolds/r2e-gym/image';

/** The 10th percentile (nearest rank). */
function p10(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length / 10) - 1)] ?? NaN;
}

/** Has R2E-Gym's `/root/.venv/bin/python`; the other families need only bash and coreutils. */
const IMAGE = DEFAULT_R2E_IMAGE;
const REPO = '/repo';

interface Call {
  family: string;
  /** What the agent asked for, as shown in the table. */
  label: string;
  run(session: AciSession): Promise<AciStepResult>;
  /** The same work done raw, given what our call printed (the window's bounds). */
  raw(observation: string): Raw;
}

type Raw = { shell: string } | { fresh: string[]; env?: string[] };

/** The window's lines as the windowed viewer numbers them (`N:text`), and the line count, in one awk. */
function windowRaw(file: string, observation: string): Raw {
  const numbered = observation.split('\n').flatMap((line) => /^(\d+):/.exec(line)?.[1] ?? []);
  const [first, last] = [numbered[0], numbered[numbered.length - 1]];
  if (!first || !last) throw new Error(`no window in: ${observation.slice(0, 200)}`);
  return { shell: `awk 'NR>=${first}&&NR<=${last}{print NR":"$0} END{print NR}' ${file}` };
}

const command = (text: string) => (session: AciSession) => session.runCommand(text);
const tool = (name: string, args: Record<string, unknown>) => (session: AciSession) => session.runTool(name, args);
const shell = (text: string) => (): Raw => ({ shell: text });

const R2E_PATH = ['PATH=/root/.venv/bin:/root/.local/bin:/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'];
const r2e = (line: string) => (): Raw => ({ fresh: ['/bin/sh', '-c', `timeout 90 ${line} `], env: R2E_PATH });

function sweAgentCalls(family: string): Call[] {
  return [
    { family, label: 'open ledger/money.py 20', run: command('open ledger/money.py 20'), raw: (o) => windowRaw('ledger/money.py', o) },
    { family, label: 'goto 200 (journal.py)', run: command('goto 200'), raw: (o) => windowRaw('ledger/journal.py', o) },
    // Scrolls from line 1; repeated, the window settles at the file's end, still a whole window.
    { family, label: 'scroll_down (journal.py)', run: command('scroll_down'), raw: (o) => windowRaw('ledger/journal.py', o) },
    { family, label: 'search_file Money', run: command('search_file Money ledger/money.py'), raw: shell('grep -n -- Money ledger/money.py') },
    {
      family,
      label: 'search_dir Money',
      run: command('search_dir Money'),
      raw: shell(`grep -rcI --exclude-dir='.*' --exclude='.*' -- Money ${REPO}`),
    },
    { family, label: 'find_file money.py', run: command('find_file money.py'), raw: shell('find . -type f -name money.py') },
  ];
}

const CALLS: Record<string, Call[]> = {
  'swe-agent@3ea751c0': [
    ...sweAgentCalls('swe-agent 1.x'),
    {
      family: 'swe-agent 1.x',
      label: 'str_replace_editor view file',
      run: command(`str_replace_editor view ${REPO}/ledger/money.py`),
      raw: shell(`cat -n ${REPO}/ledger/money.py`),
    },
    {
      family: 'swe-agent 1.x',
      label: 'str_replace_editor view dir',
      run: command(`str_replace_editor view ${REPO}/ledger`),
      raw: shell(`find ${REPO}/ledger -maxdepth 2 -not -path '*/\\.*'`),
    },
    { family: 'swe-agent 1.x', label: 'bash ls -la ledger', run: command('ls -la ledger'), raw: shell('ls -la ledger') },
  ],
  'swe-agent@0.7': sweAgentCalls('swe-agent 0.7'),
  openhands: [
    {
      family: 'openhands',
      label: 'str_replace_editor view file',
      run: tool('str_replace_editor', { command: 'view', path: `${REPO}/ledger/money.py` }),
      raw: shell(`cat -n ${REPO}/ledger/money.py`),
    },
    {
      family: 'openhands',
      label: 'str_replace_editor view dir',
      run: tool('str_replace_editor', { command: 'view', path: `${REPO}/ledger` }),
      raw: shell(`find -L ${REPO}/ledger -maxdepth 2 -not -path '*/.*' | sort`),
    },
    { family: 'openhands', label: 'execute_bash ls -la ledger', run: tool('execute_bash', { command: 'ls -la ledger' }), raw: shell('ls -la ledger') },
  ],
  'r2e-gym': [
    {
      family: 'r2e-gym',
      label: 'file_editor view file',
      run: tool('file_editor', { command: 'view', path: `${REPO}/ledger/money.py` }),
      raw: r2e(`file_editor view --path ${REPO}/ledger/money.py`),
    },
    {
      family: 'r2e-gym',
      label: 'search Money',
      run: tool('search', { search_term: 'Money', path: `${REPO}/ledger` }),
      raw: r2e(`search --search_term Money --path ${REPO}/ledger`),
    },
    {
      family: 'r2e-gym',
      label: 'execute_bash ls -la ledger',
      run: tool('execute_bash', { cmd: 'ls -la ledger' }),
      raw: r2e("execute_bash --cmd 'ls -la ledger'"),
    },
  ],
  'mini-swe-agent': [
    {
      family: 'mini-swe-agent',
      label: 'bash ls -la ledger',
      run: tool('bash', { command: 'ls -la ledger' }),
      raw: () => ({ fresh: ['bash', '-lc', 'ls -la ledger'] }),
    },
  ],
};

/** A new process per call through the Docker API, read to its end, its exit code inspected. */
async function freshExec(container: Docker.Container, argv: string[], env: string[] | undefined): Promise<void> {
  const exec = await container.exec({ Cmd: argv, WorkingDir: REPO, AttachStdout: true, AttachStderr: true, ...(env ? { Env: env } : {}) });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec ${JSON.stringify(argv)} exited ${info.ExitCode}`);
}

/** Counts the sandbox's shell commands and processes during a call. */
function counted(sandbox: Sandbox): { sandbox: Sandbox; take(): number } {
  let calls = 0;
  const wrapped = new Proxy(sandbox, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if ((key === 'exec' || key === 'spawn') && typeof value === 'function') {
        return (...args: unknown[]) => {
          calls++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    sandbox: wrapped,
    take: () => {
      const n = calls;
      calls = 0;
      return n;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '40' }, tty: { type: 'boolean', default: false } } });
  const rounds = Number(values.rounds);
  const host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-bench-families-'));
  let sandbox: DockerSandbox | undefined;
  try {
    const repo = await materializeSampleRepo(path.join(host, 'repo'));
    sandbox = await DockerSandbox.create({
      image: IMAGE,
      repoDir: repo.dir,
      repoPath: REPO,
      tty: values.tty,
      labels: { 'swe-workbench.bench': 'aci-families' },
    });
    const box = sandbox;
    const container = dockerFromEnv().getContainer(box.id);
    const probe = counted(box);
    console.log(
      `aci families: ${rounds} rounds per call, interleaved; image ${IMAGE}, shell ${values.tty ? 'under a pty' : 'through a pipe'}, sample repository at ${REPO}`,
    );
    console.log(
      `${'family'.padEnd(15)} ${'call'.padEnd(30)} ${'raw ms'.padStart(7)} ${'ours ms'.padStart(8)} ${'ours/raw'.padStart(8)} ${'p10 o/r'.padStart(7)}  calls`,
    );
    for (const [spec, calls] of Object.entries(CALLS)) {
      const { scaffold } = chooseScaffold({ asked: parseScaffoldSpec(spec) });
      await scaffold.prepare?.(box);
      const session = new AciSession(probe.sandbox, {
        tools: scaffold.tools,
        config: scaffold.config,
        ...(scaffold.present ? { present: scaffold.present } : {}),
      });
      // The windowed calls after `open` read the open file: journal.py for goto and scroll_down.
      for (const call of calls) {
        if (call.label.startsWith('goto') || call.label.startsWith('scroll')) await session.runCommand('open ledger/journal.py');
        const first = await call.run(session);
        if (first.exitCode !== 0 || first.formatError) throw new Error(`${spec} ${call.label}: exit ${first.exitCode}: ${first.observation.slice(0, 300)}`);
        const raw = call.raw(first.observation);
        const runRaw =
          'shell' in raw
            ? async () => {
                const r = await box.exec(raw.shell);
                if (r.exitCode !== 0) throw new Error(`${raw.shell}: exit ${r.exitCode}: ${r.output}`);
              }
            : () => freshExec(container, raw.fresh, raw.env);
        probe.take();
        const rawMs: number[] = [];
        const oursMs: number[] = [];
        const callCounts: number[] = [];
        for (let i = 0; i < rounds; i++) {
          rawMs.push(await timed(runRaw));
          oursMs.push(await timed(() => call.run(session)));
          callCounts.push(probe.take());
        }
        const [r, o] = [median(rawMs), median(oursMs)];
        console.log(
          `${call.family.padEnd(15)} ${call.label.padEnd(30)} ${r.toFixed(2).padStart(7)} ${o.toFixed(2).padStart(8)} ${(o / r).toFixed(2).padStart(8)} ${(p10(oursMs) / p10(rawMs)).toFixed(2).padStart(7)}  ${median(callCounts)}`,
        );
      }
    }
  } finally {
    await sandbox?.dispose();
    await rm(host, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
