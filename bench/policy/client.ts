/**
 * Per-call latency of the policy client against the scripted vLLM-style server on 127.0.0.1,
 * measured side by side (interleaved rounds, so the machine's noise falls on all variants):
 *   raw         one fetch POST to /v1/chat/completions, the body read and JSON.parse'd
 *   ours        PolicyClient.complete: the openai client, zod validation, logprobs mapping
 *   raw-stream  the same request with stream: true, the SSE body read and each chunk JSON.parse'd
 *   ours-stream PolicyClient.complete with streaming: chunk validation and accumulation
 * Reports medians and the ratios ours/raw. The reply is 200 tokens with 5 top logprobs each.
 * Usage: node --import tsx bench/policy/client.ts [--rounds N]
 */
import { parseArgs } from 'node:util';
import { PolicyClient } from '../../extension/core/policy/policyClient';
import { startPolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { median, timed } from '../timing';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Number(values.rounds);
const content = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
const messages = [{ role: 'user' as const, content: 'Fix the bug.' }];

function parseSse(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice(6)) as unknown);
}

async function main(): Promise<void> {
  const server = await startPolicyServer(() => ({ content }));
  try {
    const plain = await PolicyClient.connect({ baseUrl: server.url, logprobs: true, topLogprobs: 5 });
    const streaming = await PolicyClient.connect({ baseUrl: server.url, logprobs: true, topLogprobs: 5, stream: true });
    const body = (stream: boolean) =>
      JSON.stringify({ model: plain.model, messages, logprobs: true, top_logprobs: 5, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) });
    const post = (stream: boolean) =>
      fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(stream) });
    const variants: Record<string, () => Promise<unknown>> = {
      raw: async () => JSON.parse(await (await post(false)).text()),
      ours: () => plain.complete(messages),
      'raw-stream': async () => parseSse(await (await post(true)).text()),
      'ours-stream': () => streaming.complete(messages),
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
    for (let round = -10; round < rounds; round++) {
      for (const [name, work] of Object.entries(variants)) {
        const ms = await timed(work);
        if (round >= 0) times[name]!.push(ms);
      }
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    for (const [name, ms] of Object.entries(m)) console.log(`${name.padEnd(12)} median ${ms.toFixed(2)} ms`);
    console.log(`ratio ours/raw (complete)         ${(m.ours! / m.raw!).toFixed(2)}`);
    console.log(`ratio ours-stream/raw-stream      ${(m['ours-stream']! / m['raw-stream']!).toFixed(2)}`);
    console.log(`rounds ${rounds}, reply 200 tokens with 5 top logprobs each`);
  } finally {
    await server.close();
  }
}

void main();
