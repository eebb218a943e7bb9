/**
 * Per-call latency of the agent's tools in one container, measured side by side (interleaved,
 * so the machine's noise falls on all variants alike):
 *   raw    the same work as one round trip through the sandbox's persistent shell
 *   ours   the tool call through AciSession (parsing, the tool's script, formatting, step state)
 *   fresh  the raw work as a new `docker exec` per call (what a tool-per-process design pays)
 * Reports medians and the ratios ours/raw (target: under 1.3) and fresh/raw. Every scaffold
 * family's calls, each beside its own raw work: bench/aci/families.ts.
 * Usage: node --import tsx bench/aci/tools.ts [--rounds N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AciSession } from '../../extension/core/aci/aciSession';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { median, timed } from '../timing';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';

const IMAGE = 'swe-workbench/base:bookworm';

interface Case {
  tool: string;
  /** The agent's command for our tool. */
  command: string;
  /** The same work as a plain shell command. */
  raw: string;
}

const CASES: Case[] = [
  // The window as the tool prints it (`N:text`) and the line count for its header, in one process.
  { tool: 'open', command: 'open ledger/journal.py 150', raw: `awk 'NR>=133&&NR<=232{print NR":"$0} END{print NR}' ledger/journal.py` },
  { tool: 'search_dir', command: 'search_dir Money', raw: 'grep -rc -- Money /repo' },
  { tool: 'bash', command: 'ls -la ledger', raw: 'ls -la ledger' },
];

/** A new exec per call through the Docker API, read to its end. */
async function freshExec(sandbox: Sandbox, command: string): Promise<void> {
  const container = dockerFromEnv().getContainer(sandbox.id);
  const exec = await container.exec({ Cmd: ['bash', '-c', command], WorkingDir: sandbox.repoPath, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
    stream.resume();
  });
  const info = await exec.inspect();
  if (info.ExitCode !== 0) throw new Error(`docker exec '${command}' exited ${info.ExitCode}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '60' } } });
  const rounds = Number(values.rounds);
  const host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-bench-aci-'));
  let sandbox: Sandbox | undefined;
  try {
    const repo = await materializeSampleRepo(path.join(host, 'repo'));
    sandbox = await DockerSandbox.create({ image: IMAGE, repoDir: repo.dir, repoPath: '/repo', labels: { 'swe-workbench.bench': 'aci-tools' } });
    const session = new AciSession(sandbox, { tools: toolSetFor() });
    const box = sandbox;
    console.log(`aci tools: ${rounds} rounds per variant (fresh exec: ${Math.ceil(rounds / 3)}), image ${IMAGE}, sample repository at /repo`);
    console.log('tool        raw ms  ours ms  fresh ms  ours/raw  fresh/raw');
    for (const c of CASES) {
      const checked = await session.runCommand(c.command);
      if (checked.exitCode !== 0) throw new Error(`${c.command}: exit ${checked.exitCode}: ${checked.observation}`);
      const raw: number[] = [];
      const ours: number[] = [];
      const fresh: number[] = [];
      for (let i = 0; i < rounds; i++) {
        raw.push(await timed(() => box.exec(c.raw)));
        ours.push(await timed(() => session.runCommand(c.command)));
        if (i % 3 === 0) fresh.push(await timed(() => freshExec(box, c.raw)));
      }
      const [r, o, f] = [median(raw), median(ours), median(fresh)];
      console.log(
        `${c.tool.padEnd(10)} ${r.toFixed(2).padStart(7)} ${o.toFixed(2).padStart(8)} ${f.toFixed(2).padStart(9)} ${(o / r).toFixed(2).padStart(9)} ${(f / r).toFixed(2).padStart(10)}`,
      );
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
