/**
 * Re-scoring a run against the scripted stand-in server (vLLM's /v1/completions with
 * prompt_logprobs, the toy logprob rule), at two sizes side by side to show how time and memory
 * grow: rollouts of 30 turns, each turn one request of 2,000 tokens (1,800 prompt ids and 200
 * sampled ones), no drift requests. The server runs in a child process, as a real one would;
 * rollouts are made when the run asks for them, as files would be read. Prints wall time,
 * requests, this process's CPU seconds (which a busy machine moves less than wall time), peak
 * heap and RSS of this process (sampled every 20 ms), and large/small ratios.
 * No figure is asserted.
 * Usage: node --import tsx bench/tokens/rescore.ts [--rollouts 1000] [--small 500] [--in-flight 8]
 */
import '../../test/helpers/families';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { PolicyClient } from '../../extension/core/policy/policyClient';
import { toyLogprob } from '../../scripts/demo/policy/toyTokenizer';
import { rescoreRollouts, runReport } from '../../extension/core/tokens/rescore';
import { TokenServer } from '../../extension/core/tokens/tokenServer';
import type { Step, Trajectory } from '../../extension/core/trajectory/model';

const { values } = parseArgs({
  options: {
    rollouts: { type: 'string', default: '1000' },
    small: { type: 'string' },
    'in-flight': { type: 'string', default: '8' },
    turns: { type: 'string', default: '30' },
  },
});
const large = Number(values.rollouts);
const small = Number(values.small ?? Math.floor(large / 2));
const inFlight = Number(values['in-flight']);
const TURNS = Number(values.turns);
const PROMPT = 1800;
const COMPLETION = 200;

/** Rollout `r`: each turn's ids drawn from a fixed generator; every 50th sampled token recorded 0.1 off. */
function rollout(r: number): Trajectory {
  let seed = (r + 1) * 2654435761;
  const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 50_000) + 256;
  const steps: Step[] = Array.from({ length: TURNS }, (_, t) => {
    const prompt = Array.from({ length: PROMPT }, next);
    const completion = Array.from({ length: COMPLETION }, next);
    const logprobs = completion.map((id, i) => ({ token: String(id), logprob: toyLogprob(id, PROMPT + i)! + (i % 50 === 0 ? 0.1 : 0) }));
    return { index: t, thought: '', action: { raw: '', tool: null, args: {} }, observation: '', tokenIds: { prompt, completion }, logprobs };
  });
  return { format: 'canonical', task: {}, steps, outcome: {}, meta: {} };
}

async function startServer(): Promise<{ url: string; stop: () => void }> {
  const code = `
    import { startPolicyServer } from './scripts/demo/policy/scriptedPolicyServer.ts';
    const s = await startPolicyServer([], { maxModelLen: 65536, recordRequests: false });
    console.log(s.url);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const [url] = await createInterface({ input: child.stdout })
    [Symbol.asyncIterator]()
    .next()
    .then((r) => [r.value as string]);
  return { url: url!, stop: () => child.kill() };
}

interface Measure {
  rollouts: number;
  seconds: number;
  cpuSeconds: number;
  requests: number;
  tokens: number;
  peakHeapMb: number;
  peakRssMb: number;
}

async function measure(server: TokenServer, rollouts: number): Promise<Measure> {
  let requests = 0;
  const score = server.score.bind(server);
  server.score = (ids, from, signal) => {
    requests++;
    return score(ids, from, signal);
  };
  globalThis.gc?.();
  let peakHeap = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const names = Array.from({ length: rollouts }, (_, i) => String(i));
  const start = performance.now();
  const cpu = process.cpuUsage();
  const run = await runReport(await rescoreRollouts(names, async (name) => rollout(Number(name)), server, { inFlight, drift: false }), server, { inFlight });
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  clearInterval(sampler);
  server.score = score;
  if (run.errors > 0 || run.unreadable > 0) throw new Error(`${run.errors} step(s) failed: the benchmark measures nothing`);
  return { rollouts, seconds, cpuSeconds, requests, tokens: run.summary.tokens, peakHeapMb: peakHeap / 2 ** 20, peakRssMb: peakRss / 2 ** 20 };
}

async function main(): Promise<void> {
  const { url, stop } = await startServer();
  try {
    const client = await PolicyClient.connect({ baseUrl: url });
    const server = new TokenServer(client, 'vllm');
    await measure(server, Math.min(small, 20)); // warm-up: JIT, connections
    const rows = [await measure(server, small), await measure(server, large)];
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    console.log(`${TURNS} turns of ${PROMPT + COMPLETION} tokens (${COMPLETION} re-scored) per rollout, ${inFlight} requests in flight`);
    console.log(
      `${pad('rollouts', 9)} ${pad('requests', 9)} ${pad('tokens', 10)} ${pad('time s', 8)} ${pad('CPU s', 7)} ${pad('req/s', 7)} ${pad('peak heap MB', 13)} ${pad('peak RSS MB', 12)}`,
    );
    for (const r of rows)
      console.log(
        `${pad(r.rollouts, 9)} ${pad(r.requests, 9)} ${pad(r.tokens, 10)} ${pad(r.seconds.toFixed(1), 8)} ${pad(r.cpuSeconds.toFixed(1), 7)} ${pad((r.requests / r.seconds).toFixed(0), 7)} ${pad(r.peakHeapMb.toFixed(0), 13)} ${pad(r.peakRssMb.toFixed(0), 12)}`,
      );
    const [a, b] = rows as [Measure, Measure];
    console.log(
      `large/small: rollouts ${(b.rollouts / a.rollouts).toFixed(2)}x, time ${(b.seconds / a.seconds).toFixed(2)}x, CPU ${(b.cpuSeconds / a.cpuSeconds).toFixed(2)}x, peak heap ${(b.peakHeapMb / a.peakHeapMb).toFixed(2)}x, peak RSS ${(b.peakRssMb / a.peakRssMb).toFixed(2)}x`,
    );
  } finally {
    stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
