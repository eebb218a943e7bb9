import '../../helpers/families';
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PolicyClient } from '../../../extension/core/policy/policyClient';
import { startPolicyServer, type PolicyServer, type PolicyServerOptions, type Script } from '../../../scripts/demo/policy/scriptedPolicyServer';
import { IM_END, IM_START, toyChatIds, toyDecode, toyEncode } from '../../../scripts/demo/policy/toyTokenizer';
import { compareToken, summarize, totalsOf } from '../../../extension/core/tokens/compare';
import { rescoreRollouts, runReport, type RolloutReport, type RunOptions } from '../../../extension/core/tokens/rescore';
import { TokenServer, type ScoringApi } from '../../../extension/core/tokens/tokenServer';
import { importTrajectory, loadTrajectory } from '../../../extension/core/trajectory/load';
import type { Step, Trajectory } from '../../../extension/core/trajectory/model';

const close = (a: number | null | undefined, b: number, digits = 9) => {
  assert.ok(a !== null && a !== undefined, `expected ${b}, got ${a}`);
  assert.ok(Math.abs(a - b) < 10 ** -digits, `expected ${b}, got ${a}`);
};

/** One recording re-scored as `rescoreRollouts` re-scores each of a run's rollouts: its report as `onRollout` hands it over. */
async function rescoreTrajectory(recording: Trajectory, tokens: TokenServer, options: RunOptions = {}): Promise<RolloutReport> {
  let report: RolloutReport | { error: string } | undefined;
  await rescoreRollouts(['the recording'], () => Promise.resolve(recording), tokens, { ...options, onRollout: (_name, r) => (report = r) });
  if (report === undefined || 'error' in report) throw new Error(`not re-scored: ${report?.error ?? 'no report'}`);
  return report;
}

let server: PolicyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function tokenServer(options: PolicyServerOptions = {}, api: ScoringApi = 'vllm', script: Script = []): Promise<TokenServer> {
  server = await startPolicyServer(script, options);
  const client = await PolicyClient.connect({ baseUrl: server.url, retry: { maxAttempts: 1 } });
  return new TokenServer(client, api);
}

const noAction = { raw: '', tool: null, args: {} };

function step(index: number, fields: Partial<Step>): Step {
  return { index, thought: 'ls', action: noAction, observation: 'a.py', ...fields };
}

function trajectory(steps: Step[], meta: Trajectory['meta'] = { systemPrompt: 'S', instructions: 'T' }): Trajectory {
  return { format: 'openai-messages', task: {}, steps, outcome: {}, meta };
}

// The toy rule (toyTokenizer.ts): token t at position p has logprob -(((t + p) % 20) + 1) / 10.
// Prompt [10, 20], completion [30, 40]: 30 at position 2 -> (32 % 20 = 12) -> -1.3; 40 at 3 -> (43 % 20 = 3) -> -0.4.
const ids = { prompt: [10, 20], completion: [30, 40] };
const lp = (token: string, logprob: number) => ({ token, logprob });

describe('tokens: the comparison of one token', () => {
  test('difference, ratio, bounds and k3 as worked by hand', () => {
    const a = compareToken(0, 5, -1.0, -0.5);
    close(a.diff, 0.5);
    close(a.ratio, 1.6487212707); // e^0.5
    assert.equal(a.outside, true); // above 1.25
    close(a.k3, 0.1487212707); // e^0.5 - 1 - 0.5
    const b = compareToken(1, 6, -0.2, -0.3);
    close(b.diff, -0.1);
    close(b.ratio, 0.904837418);
    assert.equal(b.outside, false); // inside [0.8, 1.25]
    close(b.k3, 0.004837418); // e^-0.1 - 1 + 0.1
    assert.equal(compareToken(1, 6, -0.2, -0.3, { low: 0.95, high: 1.05 }).outside, true);
    const same = compareToken(2, 7, -0.7, -0.7);
    assert.equal(same.diff, 0);
    assert.equal(same.k3, 0);
    const s = summarize(totalsOf([a, b, same]));
    close(s.maxAbsDiff, 0.5);
    close(s.meanAbsDiff, 0.2); // (0.5 + 0.1 + 0) / 3
    assert.equal(s.outside, 1);
    close(s.kl, (0.1487212707 + 0.004837418) / 3);
  });

  test('no token re-scored is unknown, not 0', () => {
    assert.deepEqual(summarize(totalsOf([])), { tokens: 0, maxAbsDiff: null, meanAbsDiff: null, outside: 0, kl: null });
  });
});

describe('tokens: re-scoring against the stand-in server', () => {
  for (const api of ['vllm', 'sglang'] as const) {
    test(`${api}: agreeing logprobs give 0, a shifted scorer gives its shift`, async () => {
      const recorded = step(0, { tokenIds: ids, logprobs: [lp('x', -1.3), lp('y', -0.4)] });
      const agreeing = await rescoreTrajectory(trajectory([recorded]), await tokenServer({}, api), { drift: false });
      assert.deepEqual(agreeing.steps[0]!.totals, { tokens: 2, sumAbsDiff: 0, maxAbsDiff: 0, outside: 0, sumK3: 0 });
      await server!.close();
      // The scorer takes 0.2 off position 3 (the token 40): -0.4 -> -0.6.
      const shifted = await rescoreTrajectory(trajectory([recorded]), await tokenServer({ logprobShift: (_id, p) => (p === 3 ? -0.2 : 0) }, api), {
        drift: false,
      });
      const worst = shifted.worst[0]!;
      assert.equal(worst.position, 1);
      assert.equal(worst.id, 40);
      assert.equal(worst.text, 'y');
      close(worst.diff, -0.2);
      close(worst.ratio, 0.818730753); // e^-0.2: inside the default bounds
      assert.equal(worst.outside, false);
      close(shifted.summary.kl, (0.818730753 - 1 + 0.2) / 2);
      close(shifted.summary.meanAbsDiff, 0.1);
    });
  }

  test('recorded logprobs that differ: outside the bounds, worst first, per step and per rollout', async () => {
    // Step 1 recorded -1.0 where the scorer says -1.3: diff -0.3, ratio e^-0.3 = 0.7408 < 0.8.
    const steps = [
      step(0, { tokenIds: ids, logprobs: [lp('30', -1.0), lp('40', -0.4)] }),
      step(1, { tokenIds: ids, logprobs: [lp('30', -1.3), lp('40', -0.35)] }),
    ];
    const report = await rescoreTrajectory(trajectory(steps), await tokenServer(), { drift: false });
    const [first, second] = report.steps;
    assert.equal(first!.totals!.outside, 1);
    close(first!.totals!.maxAbsDiff, 0.3);
    close(second!.totals!.maxAbsDiff, 0.05);
    assert.equal(second!.totals!.outside, 0);
    assert.equal(report.summary.tokens, 4);
    close(report.summary.maxAbsDiff, 0.3);
    close(report.summary.meanAbsDiff, 0.0875); // (0.3 + 0 + 0 + 0.05) / 4
    assert.equal(report.summary.outside, 1);
    assert.deepEqual(
      report.worst.slice(0, 2).map((w) => [w.step, w.position]),
      [
        [0, 0],
        [1, 1],
      ],
    );
    // Ids only: the token's text is not invented from the id.
    assert.equal(report.worst[0]!.text, undefined);
    close(report.worst[0]!.ratio, 0.740818221);
  });

  test('a server error and a prompt longer than the context are errors of their step, never 0', async () => {
    const ok = step(0, { tokenIds: ids, logprobs: [lp('x', -1.3), lp('y', -0.4)] });
    const failing = await tokenServer({}, 'vllm', [{ fault: { kind: 'status', status: 500, message: 'CUDA out of memory' } }]);
    const report = await rescoreTrajectory(trajectory([ok]), failing, { drift: false });
    assert.match(report.steps[0]!.error!, /HTTP 500: CUDA out of memory/);
    assert.equal(report.steps[0]!.totals, undefined);
    assert.equal(report.errors, 1);
    assert.equal(report.summary.maxAbsDiff, null);
    await server!.close();

    // 2 prompt + 2 completion + 1 to generate = 5 > 4.
    const short = await rescoreTrajectory(trajectory([ok]), await tokenServer({ maxModelLen: 4 }), { drift: false });
    assert.match(short.steps[0]!.error!, /4 tokens, longer than the model's context of 4/);
    assert.equal(short.summary.tokens, 0);
    assert.equal(server!.requests.filter((r) => r.path === '/v1/completions').length, 0);
  });

  test("the server's own context refusal is reported as it says it", async () => {
    // The client is not told the context (a server without max_model_len), so the server refuses.
    const blind = await tokenServer({ maxModelLen: 4, hideMaxModelLen: true });
    assert.equal(blind.maxModelLen, undefined);
    const report = await rescoreTrajectory(trajectory([step(0, { tokenIds: ids, logprobs: [lp('x', -1.3), lp('y', -0.4)] })]), blind, { drift: false });
    assert.match(report.steps[0]!.error!, /answered HTTP 400: This model's maximum context length is 4 tokens\. However, you requested 5 tokens/);
    assert.doesNotMatch(report.steps[0]!.error!, /observation/);
  });

  test('what a step lacks is said: no ids, no prompt ids, no logprobs, logprobs not lining up', async () => {
    const steps = [
      step(0, { logprobs: [lp('x', -1)] }),
      step(1, { tokenIds: { completion: [30] }, logprobs: [lp('x', -1)] }),
      step(2, { tokenIds: ids }),
      step(3, { tokenIds: ids, logprobs: [lp('x', -1)] }),
    ];
    const report = await rescoreTrajectory(trajectory(steps), await tokenServer(), { drift: false });
    assert.deepEqual(
      report.steps.map((s) => s.error),
      [
        'the recording keeps logprobs but no completion token ids: cannot re-score',
        'the recording keeps no prompt token ids: cannot re-score the completion without the prompt it followed',
        'the recording keeps no logprobs for this step: nothing to compare with',
        'the recording keeps 1 logprobs for 2 completion token ids: they do not line up',
      ],
    );
    assert.equal(report.errors, 4);
    assert.equal(server!.requests.length, 1); // /v1/models only
  });
});

describe('tokens: retokenization drift', () => {
  // The conversation before step 1: system S, user T, assistant "ls", user "a.py".
  const before0 = [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'T' },
  ];
  const before1 = [...before0, { role: 'assistant', content: 'ls' }, { role: 'user', content: 'a.py' }];
  const steps = () => [
    step(0, { tokenIds: { prompt: toyChatIds(before0, true), completion: toyEncode('ls') } }),
    step(1, { tokenIds: { prompt: toyChatIds(before1, true), completion: toyEncode('done') } }),
  ];

  test('the same template: no drift at any step', async () => {
    const report = await rescoreTrajectory(trajectory(steps()), await tokenServer());
    assert.deepEqual(
      report.steps.map((s) => s.drift),
      [{ status: 'same' }, { status: 'same' }],
    );
  });

  test('a template that differs: the first differing position and the text around it on both sides', async () => {
    const report = await rescoreTrajectory(trajectory(steps()), await tokenServer({ templateDrift: 'assistant-space' }));
    assert.deepEqual(report.steps[0]!.drift, { status: 'same' });
    // System: <|im_start|> + "system\nS" + <|im_end|> + "\n" = 11 tokens; user: 1 + "user\nT" + 2 = 9 (20);
    // assistant: <|im_start|> at 20, "assistant\nls" at 21..32, then <|im_end|> recorded, " " re-tokenized: 33.
    const drift = report.steps[1]!.drift;
    assert.equal(drift.status, 'differs');
    if (drift.status !== 'differs') return;
    assert.equal(drift.position, 33);
    assert.equal(toyChatIds(before1, true)[33], IM_END);
    assert.equal(drift.recordedText, 'stant\nls<|im_end|>\n<|im_start|>user\n');
    assert.equal(drift.retokenizedText, 'stant\nls <|im_end|>\n<|im_start|>user');
    assert.equal(drift.retokenizedLength, drift.recordedLength + 1);
    assert.equal(report.drifted, 1);
  });

  test('text only: drift cannot be checked (not 0, not "no drift")', async () => {
    const report = await rescoreTrajectory(trajectory([step(0, {})]), await tokenServer());
    assert.deepEqual(report.steps[0]!.drift, {
      status: 'unknown',
      reason: 'drift cannot be checked: the recording keeps text only, not the prompt token ids the engine saw',
    });
    assert.equal(report.driftUnknown, 1);
    assert.equal(report.drifted, 0);
  });

  test('a recording without its task text: drift cannot be checked, and says why', async () => {
    const report = await rescoreTrajectory(trajectory(steps(), {}), await tokenServer());
    assert.equal(report.steps[0]!.drift.status, 'unknown');
    assert.match((report.steps[0]!.drift as { reason: string }).reason, /neither the task's first message nor its problem statement/);
  });
});

describe('tokens: formats that carry ids', () => {
  test('a live run against a server that returns token ids records them, and re-scoring it agrees', async () => {
    server = await startPolicyServer([{ content: 'ls -a' }]);
    const client = await PolicyClient.connect({ baseUrl: server.url, logprobs: true, returnTokenIds: true });
    const messages = [
      { role: 'system' as const, content: 'S' },
      { role: 'user' as const, content: 'T' },
    ];
    const reply = await client.complete(messages);
    assert.equal((server.chatRequests[0] as { return_token_ids?: boolean }).return_token_ids, true);
    assert.deepEqual(reply.tokenIds, { prompt: toyChatIds(messages, true), completion: toyEncode('ls -a') });
    assert.equal(toyDecode(reply.tokenIds!.prompt!.slice(0, 1)), '<|im_start|>');
    assert.equal(reply.tokenIds!.prompt![0], IM_START);
    const recorded = step(0, { thought: 'ls -a', tokenIds: reply.tokenIds!, logprobs: reply.logprobs! });
    const report = await rescoreTrajectory(trajectory([recorded]), new TokenServer(client));
    assert.equal(report.summary.tokens, 5);
    assert.equal(report.summary.maxAbsDiff, 0);
    assert.deepEqual(report.steps[0]!.drift, { status: 'same' });
  });

  test('a streamed live reply keeps the ids too', async () => {
    server = await startPolicyServer([{ content: 'cat a.py' }]);
    const client = await PolicyClient.connect({ baseUrl: server.url, logprobs: true, returnTokenIds: true, stream: true });
    const reply = await client.complete([{ role: 'user', content: 'T' }]);
    assert.deepEqual(reply.tokenIds?.completion, toyEncode('cat a.py'));
    assert.equal(reply.logprobs?.length, 8);
  });

  test('rLLM: prompt_ids and response_ids become the step token ids', async () => {
    const { trajectory: t } = await loadTrajectory(join(import.meta.dirname, '../../fixtures/trajectories/rllm.episode.json'));
    assert.deepEqual(t.steps[0]!.tokenIds, { prompt: [151644, 8948, 198], completion: [40, 686, 1477, 279] });
    assert.deepEqual(
      t.steps[0]!.logprobs!.map((l) => l.logprob),
      [-0.012, -0.53, -1.204, -0.0003],
    );
  });

  const skyrl = (extra: Record<string, unknown>) => ({
    trajectory_id: 3,
    messages: [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'T' },
      { role: 'assistant', content: 'ls' },
      { role: 'user', content: 'a.py' },
      { role: 'assistant', content: 'done' },
    ],
    ...extra,
  });

  test("SkyRL generator output: each assistant turn's span of response_ids, its prompt everything before it", () => {
    const t = importTrajectory(
      skyrl({
        prompt_token_ids: [1, 2],
        response_ids: [10, 11, 90, 91, 92, 20],
        loss_mask: [1, 1, 0, 0, 0, 1],
        rollout_logprobs: [-0.1, -0.2, 0, 0, 0, -0.3],
      }),
      { file: 'r.json' },
    );
    assert.deepEqual(t.steps[0]!.tokenIds, { prompt: [1, 2], completion: [10, 11] });
    assert.deepEqual(t.steps[1]!.tokenIds, { prompt: [1, 2, 10, 11, 90, 91, 92], completion: [20] });
    assert.deepEqual(t.steps[1]!.logprobs, [{ token: '20', logprob: -0.3 }]);
  });

  test('SkyRL generator output that does not line up is a clear error naming the file and field', () => {
    assert.throws(
      () => importTrajectory(skyrl({ response_ids: [10, 20], loss_mask: [1, 0, 1] }), { file: 'r.json' }),
      /r\.json: \$\.loss_mask: 3 entries for 2 response_ids/,
    );
    assert.throws(
      () => importTrajectory(skyrl({ response_ids: [10, 20], loss_mask: [1, 1] }), { file: 'r.json' }),
      /r\.json: \$\.loss_mask: 1 assistant turn\(s\) in the loss mask for 2 assistant step\(s\)/,
    );
  });
});

describe('tokens: a run', () => {
  test('rollouts summed, an unreadable one named, requests never more than asked in flight', async () => {
    const s = await tokenServer();
    const good = trajectory([step(0, { tokenIds: ids, logprobs: [lp('30', -1.0), lp('40', -0.4)] })]);
    const rollouts: Record<string, Trajectory> = { a: good, b: good, c: good };
    const seen: string[] = [];
    const options: RunOptions = { drift: false, inFlight: 2 };
    const outcomes = await rescoreRollouts(
      ['a', 'b', 'broken', 'c'],
      async (name) => {
        const t = rollouts[name];
        if (!t) throw new Error(`${name}: not a trajectory`);
        return t;
      },
      s,
      { ...options, onRollout: (name, r) => seen.push('error' in r ? `${name}: ${r.error}` : name) },
    );
    // In the order asked, whichever finished first: a Slurm array's shards merge into the same.
    assert.deepEqual(
      outcomes.map((o) => o.name),
      ['a', 'b', 'broken', 'c'],
    );
    const run = await runReport(outcomes, s, options);
    assert.equal(run.rollouts, 3);
    assert.equal(run.unreadable, 1);
    assert.equal(run.summary.tokens, 6);
    assert.equal(run.summary.outside, 3);
    close(run.summary.maxAbsDiff, 0.3);
    assert.deepEqual(seen.sort(), ['a', 'b', 'broken: broken: not a trajectory', 'c']);
    // Only the tokens that disagree, each rollout's one; ids only, so their text is the server's decoding of id 30.
    assert.equal(run.worst.length, 3);
    assert.ok(run.worst.every((w) => w.id === 30 && w.text === '\x1e'));
    assert.ok(server!.peakInFlight <= 2, `${server!.peakInFlight} requests at once`);
    assert.ok(run.worst.every((w, i) => i === 0 || Math.abs(run.worst[i - 1]!.diff) >= Math.abs(w.diff)));
  });
});
