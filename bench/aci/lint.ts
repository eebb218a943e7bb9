/**
 * The linted `edit` (tools/windowed_edit_linting) in one container, measured side by side,
 * interleaved, medians:
 *   warm     our edit with the warm flake8 (core/scaffolds/swe-agent/tools/flake8Server.ts): one check in memory
 *   command  our edit with the flake8 command before and after, as SWE-agent runs it
 *   raw      the edited text written through the persistent shell plus one in-memory check of it
 * for an applied edit and a refused one (F821). Every round's edit is new text, so no check is
 * answered from the server's cache except the "before" of a file an earlier round left as it is.
 * Target (issue 15): warm within 1.3x of raw.
 * Usage: node --import tsx bench/aci/lint.ts [--rounds N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AciSession } from '../../extension/core/aci/aciSession';
import { warmFlake8For } from '../../extension/core/scaffolds/swe-agent/tools/flake8Server';
import { writeScript } from '../../extension/core/aci/sandboxFiles';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { median, timed } from '../timing';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';

const IMAGE = 'swe-workbench/base:bookworm';
const BUNDLES = ['tools/registry', 'tools/windowed', 'tools/windowed_edit_linting'];

/** Line 14 of ledger/money.py, edited so that the guard lets it through or refuses it. */
const applied = (n: number) => `edit 14:14\n        raise TypeError("use a string or Decimal, not float (${n})")\nend_of_edit`;
const refused = (n: number) => `edit 14:14\n        raise TypeError(undefined_${n})\nend_of_edit`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
  const rounds = Number(values.rounds);
  const host = await mkdtemp(path.join(tmpdir(), 'swe-workbench-bench-lint-'));
  let sandbox: Sandbox | undefined;
  try {
    const repo = await materializeSampleRepo(path.join(host, 'repo'));
    sandbox = await DockerSandbox.create({ image: IMAGE, repoDir: repo.dir, repoPath: '/repo', labels: { 'swe-workbench.bench': 'aci-lint' } });
    const box = sandbox;
    await box.exec('cp ledger/money.py ledger/money_warm.py && cp ledger/money.py ledger/money_command.py');
    const original = await box.readFile('/repo/ledger/money.py');
    const warm = new AciSession(box, { tools: toolSetFor(BUNDLES) });
    const command = new AciSession(box, { tools: toolSetFor(BUNDLES), config: { warmLinter: false } });
    await warm.runCommand('open ledger/money_warm.py');
    await command.runCommand('open ledger/money_command.py');
    // Starts the warm server (and checks the setup), outside the measurements.
    for (const [session, name] of [
      [warm, 'warm'],
      [command, 'command'],
    ] as const) {
      const r = await session.runCommand(refused(0));
      if (r.exitCode === 0 || !r.observation.includes('F821')) throw new Error(`${name}: the guard let a broken edit through: ${r.observation}`);
    }
    const server = await warmFlake8For(box, () => Promise.reject(new Error('the warm session should have started the server')));
    if (!server) throw new Error('the warm flake8 did not start in this image');
    const lines = original.split('\n');
    const rawEdit = async (replacement: string) => {
      const text = [...lines.slice(0, 13), replacement, ...lines.slice(14)].join('\n');
      await box.exec(writeScript('/repo/ledger/money_raw.py', text));
      await server.check('/repo/ledger/money_raw.py', text);
    };
    const samples = { appliedWarm: [] as number[], appliedCommand: [] as number[], appliedRaw: [] as number[] };
    const refusedSamples = { warm: [] as number[], command: [] as number[], raw: [] as number[] };
    for (let i = 1; i <= rounds; i++) {
      samples.appliedWarm.push(await timed(() => warm.runCommand(applied(i))));
      samples.appliedCommand.push(await timed(() => command.runCommand(applied(i))));
      samples.appliedRaw.push(await timed(() => rawEdit(`        raise TypeError("use a string or Decimal, not float (${i})")`)));
      refusedSamples.warm.push(await timed(() => warm.runCommand(refused(i))));
      refusedSamples.command.push(await timed(() => command.runCommand(refused(i))));
      refusedSamples.raw.push(await timed(() => rawEdit(`        raise TypeError(undefined_${i})`)));
    }
    console.log(`linted edit: ${rounds} rounds interleaved, image ${IMAGE} (flake8 ${server.version}), sample repository at /repo`);
    console.log('edit       warm ms  command ms  raw+check ms  warm/raw  command/raw  command/warm');
    const row = (name: string, w: number[], c: number[], r: number[]) => {
      const [mw, mc, mr] = [median(w), median(c), median(r)];
      console.log(
        `${name.padEnd(9)} ${mw.toFixed(1).padStart(8)} ${mc.toFixed(1).padStart(11)} ${mr.toFixed(1).padStart(13)} ${(mw / mr).toFixed(2).padStart(9)} ${(mc / mr).toFixed(2).padStart(12)} ${(mc / mw).toFixed(2).padStart(13)}`,
      );
    };
    row('applied', samples.appliedWarm, samples.appliedCommand, samples.appliedRaw);
    row('refused', refusedSamples.warm, refusedSamples.command, refusedSamples.raw);
    await warm.dispose();
    sandbox = undefined;
  } finally {
    await sandbox?.dispose();
    await rm(host, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
