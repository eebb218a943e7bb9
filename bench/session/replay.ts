/**
 * What the debugger adds to each replayed step, measured side by side in one container
 * (interleaved rounds):
 *   raw   the recorded actions run straight through AciSession, one after another
 *   ours  the same actions replayed by DebugSession: source, breakpoint checks, events,
 *         recording, and the observation compared with the recorded one through every normaliser
 * Reports the median time per step of each and the ratio ours/raw.
 * Usage: node --import tsx bench/session/replay.ts [--rounds N]
 */
import '../../test/helpers/families';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AciSession } from '../../extension/core/aci/aciSession';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { RecordingSource } from '../../extension/core/session/actionSources';
import { DebugSession } from '../../extension/core/session/debugSession';
import type { Step } from '../../extension/core/trajectory/model';
import { materializeSampleRepo } from '../../test/helpers/sampleRepo';
import { median } from '../timing';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Number(values.rounds);
const COMMANDS = ['open "ledger/money.py" 75', 'goto 20', 'scroll_down', 'grep -n "def " ledger/money.py', 'search_file allocate'];

async function main(): Promise<void> {
  const parent = await mkdtemp(path.join(tmpdir(), 'swb-bench-session-'));
  const repo = await materializeSampleRepo(path.join(parent, 'repo'));
  const sandbox = await DockerSandbox.create({
    image: 'swe-workbench/base:bookworm',
    repoDir: repo.dir,
    repoPath: '/repo',
    labels: { 'swe-workbench.role': 'bench' },
  });
  try {
    const aci = new AciSession(sandbox, { tools: toolSetFor() });
    const steps: Step[] = [];
    for (const [index, command] of COMMANDS.entries()) {
      const parsed = aci.tools.parseCommand(command);
      if ('error' in parsed) throw new Error(parsed.error);
      const result = await aci.run(parsed);
      steps.push({ index, thought: '', action: { raw: command, tool: parsed.tool, args: parsed.args }, observation: result.observation });
    }
    const raw: number[] = [];
    const ours: number[] = [];
    for (let round = -2; round < rounds; round++) {
      let start = performance.now();
      for (const step of steps) await aci.run({ tool: step.action.tool!, args: step.action.args });
      const rawMs = (performance.now() - start) / steps.length;
      start = performance.now();
      const session = new DebugSession({
        aci,
        sources: [new RecordingSource(steps, aci.tools)],
        task: {},
        breakpoints: [{ kind: 'divergence' }, { kind: 'exit-code' }],
      });
      const stop = await session.continue();
      if (stop.reason !== 'exhausted') throw new Error(`replay stopped early: ${stop.reason} at ${stop.index}`);
      const oursMs = (performance.now() - start) / steps.length;
      if (round >= 0) {
        raw.push(rawMs);
        ours.push(oursMs);
      }
    }
    console.log(`raw   median ${median(raw).toFixed(2)} ms per step (AciSession.run)`);
    console.log(`ours  median ${median(ours).toFixed(2)} ms per step (DebugSession replay with comparison)`);
    console.log(`ratio ours/raw ${(median(ours) / median(raw)).toFixed(2)}`);
    console.log(`rounds ${rounds} of ${steps.length} steps`);
  } finally {
    await sandbox.dispose();
    await rm(parent, { recursive: true, force: true });
  }
}

void main();
