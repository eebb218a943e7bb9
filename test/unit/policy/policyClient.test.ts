import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { PolicyClient, PolicyError, type PolicyClientOptions } from '../../../extension/core/policy/policyClient';
import { CancelledError } from '../../../extension/core/errors';
import { startPolicyServer, type PolicyServer, type PolicyServerOptions, type Script } from '../../../scripts/demo/policy/scriptedPolicyServer';

const user = [{ role: 'user' as const, content: 'Fix the bug in calc.py' }];
const openTool = {
  type: 'function' as const,
  function: { name: 'open', description: 'Open a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
};

let server: PolicyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function connect(script: Script, clientOptions: Partial<PolicyClientOptions> = {}, serverOptions: PolicyServerOptions = {}): Promise<PolicyClient> {
  server = await startPolicyServer(script, serverOptions);
  return PolicyClient.connect({ baseUrl: server.url, retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...clientOptions });
}

describe('policy client: models', () => {
  test('picks the only model the server serves and reads its context length', async () => {
    const client = await connect([], {}, { models: ['Qwen/Qwen3-8B'], maxModelLen: 40960 });
    assert.equal(client.model, 'Qwen/Qwen3-8B');
    assert.equal(client.maxModelLen, 40960);
  });

  test('a model the server does not serve is refused with the names it does serve', async () => {
    await assert.rejects(connect([], { model: 'gpt-4o' }, { models: ['a', 'b'] }), (err: PolicyError) => {
      assert.equal(err.kind, 'not-found');
      assert.match(err.message, /does not serve model 'gpt-4o'; it serves: a, b/);
      return true;
    });
  });
});

describe('policy client: API key', () => {
  test('the key is sent as a bearer token; a wrong key is refused at once, without retries', async () => {
    const client = await connect([{ content: 'ok' }], { apiKey: 'sk-local' }, { apiKey: 'sk-local' });
    assert.equal((await client.complete(user)).content, 'ok');
    assert.equal(server!.requests.at(-1)!.headers.authorization, 'Bearer sk-local');
    await assert.rejects(
      PolicyClient.connect({ baseUrl: server!.url, apiKey: 'sk-wrong' }),
      (err: PolicyError) => err.kind === 'auth' && err.retries.length === 0 && /HTTP 401: Unauthorized/.test(err.message),
    );
  });
});

describe('policy client: replies', () => {
  test('sends the sampling parameters (vLLM extras in the body) and records them on the reply', async () => {
    const client = await connect([{ content: 'ok' }], {
      sampling: {
        temperature: 0.7,
        topP: 0.95,
        topK: 20,
        minP: 0.05,
        maxTokens: 512,
        seed: 7,
        stop: ['</s>'],
        extraBody: { chat_template_kwargs: { enable_thinking: false } },
      },
    });
    const reply = await client.complete(user);
    const sent = server!.chatRequests[0]!;
    assert.equal(sent.temperature, 0.7);
    assert.equal(sent.top_p, 0.95);
    assert.equal(sent.top_k, 20);
    assert.equal(sent.min_p, 0.05);
    assert.equal(sent.max_tokens, 512);
    assert.equal(sent.seed, 7);
    assert.deepEqual(sent.stop, ['</s>']);
    assert.deepEqual(sent.chat_template_kwargs, { enable_thinking: false });
    assert.deepEqual(reply.sampling, {
      temperature: 0.7,
      top_p: 0.95,
      top_k: 20,
      min_p: 0.05,
      max_tokens: 512,
      stop: ['</s>'],
      seed: 7,
      chat_template_kwargs: { enable_thinking: false },
    });
  });

  test('non-streaming: tool call, reasoning, per-token logprobs with alternatives, usage', async () => {
    const client = await connect(
      [
        {
          content: 'Let me look',
          reasoning: 'The bug is in add',
          toolCalls: [{ name: 'open', arguments: '{"path": "calc.py"}' }],
          tokenLogprobs: [-0.5, -2.25, -0.125],
        },
      ],
      { logprobs: true, topLogprobs: 3 },
    );
    const reply = await client.complete(user, { tools: [openTool] });
    assert.equal(reply.content, 'Let me look');
    assert.equal(reply.reasoning, 'The bug is in add');
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.name, c.arguments]),
      [['open', '{"path": "calc.py"}']],
    );
    assert.equal(reply.finishReason, 'tool_calls');
    assert.deepEqual(
      reply.logprobs?.map((t) => [t.token, t.logprob]),
      [
        ['Let', -0.5],
        [' me', -2.25],
        [' look', -0.125],
      ],
    );
    assert.equal(reply.logprobs?.[1]?.top?.length, 3);
    assert.equal(reply.usage?.completion, 3 + 3);
    assert.equal(server!.chatRequests[0]!.tool_choice, 'auto');
    assert.equal(server!.chatRequests[0]!.top_logprobs, 3);
  });

  test('streaming: text, reasoning and logprobs in order, tool-call argument fragments joined by index', async () => {
    const args = '{"command": "str_replace", "path": "/repo/calc.py", "old_str": "a - b", "new_str": "a + b"}';
    const client = await connect(
      [
        {
          content: 'I will fix it now',
          reasoning: 'subtraction where addition belongs',
          toolCalls: [
            { name: 'str_replace_editor', arguments: args },
            { name: 'bash', arguments: '{"command": "pytest -q"}' },
          ],
        },
      ],
      { stream: true, logprobs: true },
    );
    const deltas: string[] = [];
    const reply = await client.complete(user, { tools: [openTool], onDelta: (d) => d.content && deltas.push(d.content) });
    assert.equal(reply.content, 'I will fix it now');
    assert.deepEqual(deltas, ['I', ' will', ' fix', ' it', ' now']);
    assert.equal(reply.reasoning, 'subtraction where addition belongs');
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.name, c.arguments]),
      [
        ['str_replace_editor', args],
        ['bash', '{"command": "pytest -q"}'],
      ],
    );
    assert.deepEqual(
      reply.logprobs?.map((t) => t.token),
      ['I', ' will', ' fix', ' it', ' now'],
    );
    assert.equal(reply.usage?.completion, 5 + tokenCount(args) + 1 + 3 + 1);
    assert.equal(reply.interrupted, undefined);
    assert.equal(server!.chatRequests[0]!.stream, true);
  });
});

function tokenCount(text: string): number {
  return text.match(/\s*\S+/g)?.length ?? 0;
}

describe('policy client: faults', () => {
  test('HTTP 500 is retried, then the reply is returned with the retry on record', async () => {
    const client = await connect([{ fault: { kind: 'status', status: 500, message: 'CUDA out of memory' } }, { content: 'recovered' }]);
    const reply = await client.complete(user);
    assert.equal(reply.content, 'recovered');
    assert.equal(server!.chatRequests.length, 2);
    assert.equal(reply.retries.length, 1);
    assert.match(reply.retries[0]!.reason, /HTTP 500: CUDA out of memory/);
  });

  test('429 waits as long as Retry-After says', async () => {
    const client = await connect([{ fault: { kind: 'status', status: 429, message: 'slow down', retryAfterSeconds: 1 } }, { content: 'ok' }]);
    const reply = await client.complete(user);
    assert.equal(reply.content, 'ok');
    assert.equal(reply.retries[0]!.delayMs, 1000);
  });

  test('retries run out: a clean stop saying why and how often it was tried', async () => {
    const fault = { kind: 'status' as const, status: 503, message: 'overloaded' };
    const client = await connect([{ fault }, { fault }, { fault }, { content: 'too late' }], { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await assert.rejects(client.complete(user), (err: PolicyError) => {
      assert.equal(err.kind, 'server');
      assert.equal(err.status, 503);
      assert.equal(err.retries.length, 2);
      assert.match(err.message, /HTTP 503: overloaded \(gave up after 3 attempts\)/);
      return true;
    });
    assert.equal(server!.chatRequests.length, 3);
  });

  for (const status of [400, 401, 404]) {
    test(`HTTP ${status} is not retried`, async () => {
      const client = await connect([{ fault: { kind: 'status', status, message: `refused with ${status}` } }, { content: 'never' }]);
      await assert.rejects(client.complete(user), (err: PolicyError) => err.status === status && !err.retryable && err.retries.length === 0);
      assert.equal(server!.chatRequests.length, 1);
    });
  }

  test('tools without --enable-auto-tool-choice: HTTP 400 explained in plain words', async () => {
    const client = await connect([{ content: 'never' }], {}, { autoToolChoice: false });
    await assert.rejects(client.complete(user, { tools: [openTool] }), (err: PolicyError) => {
      assert.equal(err.kind, 'bad-request');
      assert.match(err.message, /only when started with --enable-auto-tool-choice --tool-call-parser <name>/);
      assert.match(err.message, /use a text scaffold/);
      return true;
    });
    assert.equal(server!.chatRequests.length, 1);
  });

  test('a conversation longer than the context is explained with what to do', async () => {
    const said =
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4488 in the messages, 512 in the completion). Please reduce the length of the messages or completion.";
    const client = await connect([{ fault: { kind: 'status', status: 400, message: said } }], {}, { maxModelLen: 4096 });
    await assert.rejects(client.complete(user), (err: PolicyError) => {
      assert.match(
        err.message,
        /no longer fits the model's context of 4096 tokens\. Fold older observations \(the observation window, e\.g\. --observation-window 5\)/,
      );
      assert.ok(err.message.endsWith(said));
      return true;
    });
  });

  test("older vLLM's top-level error shape keeps the server's message", async () => {
    const client = await connect(
      [{ fault: { kind: 'status', status: 400, message: 'max_tokens must be at least 1, got 0.' } }],
      {},
      { errorShape: 'vllm-legacy' },
    );
    await assert.rejects(client.complete(user), /answered HTTP 400: max_tokens must be at least 1, got 0\./);
  });

  test('a server that hangs past the timeout fails as a timeout', async () => {
    const client = await connect([{ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } }], {
      timeoutMs: 300,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    });
    await assert.rejects(client.complete(user), (err: PolicyError) => {
      assert.equal(err.kind, 'timeout');
      assert.match(err.message, /did not answer within 300 ms\. \(gave up after 2 attempts\)/);
      return true;
    });
    assert.equal(server!.chatRequests.length, 2);
  });

  test('a connection reset before any reply is retried', async () => {
    const client = await connect([{ fault: { kind: 'reset' } }, { content: 'second try' }]);
    const reply = await client.complete(user);
    assert.equal(reply.content, 'second try');
    assert.match(reply.retries[0]!.reason, /could not be reached/);
  });

  test('a stream cut mid-JSON keeps what arrived and says it was interrupted', async () => {
    const client = await connect([{ content: 'one two three four five', fault: { kind: 'truncate', afterChunks: 3 } }], { stream: true });
    const reply = await client.complete(user);
    assert.equal(reply.content, 'one two');
    assert.match(reply.interrupted ?? '', /the reply stream broke after 3 chunk\(s\)/);
    assert.equal(server!.chatRequests.length, 1);
  });

  test('a stream that stalls past the timeout keeps what arrived instead of starting over', async () => {
    const client = await connect([{ content: 'alpha beta gamma delta', fault: { kind: 'stall', afterChunks: 3 } }, { content: 'never' }], {
      stream: true,
      timeoutMs: 300,
    });
    const reply = await client.complete(user);
    assert.equal(reply.content, 'alpha beta');
    assert.equal(reply.interrupted, 'the reply stream broke after 3 chunk(s): no complete reply within 300 ms');
    assert.equal(server!.chatRequests.length, 1);
  });

  test('invalid JSON in tool-call arguments is handed back as written', async () => {
    const client = await connect([{ toolCalls: [{ name: 'open', arguments: '{"path": "calc.py"' }] }], { stream: true });
    const reply = await client.complete(user, { tools: [openTool] });
    assert.equal(reply.toolCalls[0]!.arguments, '{"path": "calc.py"');
  });

  test('aborting the signal cancels a call that is waiting', async () => {
    const client = await connect([{ fault: { kind: 'hang' } }], { timeoutMs: 60_000 });
    const controller = new AbortController();
    const call = client.complete(user, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(call, CancelledError);
  });
});
