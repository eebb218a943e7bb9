/**
 * A scripted stand-in for a policy server, for tests and the demo (no GPU, no weights): a real
 * HTTP server on 127.0.0.1 that answers the OpenAI chat-completions protocol the way vLLM does
 * (model list with max_model_len, SSE chunks, tool-call argument fragments, logprobs,
 * reasoning_content, both error shapes), replying from a script instead of a model. Faults can
 * be scripted per reply. It is not a model: the workbench's real policy is whatever
 * OpenAI-compatible server `sweWorkbench.policy.url` names.
 *
 * For re-scoring (core/tokens) it also answers vLLM's `/tokenize`, `/detokenize` and
 * `/v1/completions` with `prompt_logprobs`, and SGLang's `/generate`, from the documented toy
 * tokenizer and logprob rule of `toyTokenizer.ts`; a chat request with `return_token_ids` is
 * answered by that toy model too, so a live run records ids and logprobs a re-score agrees with.
 *
 * It samples as a model does: a scripted turn may offer alternative replies with set
 * probabilities (`ScriptedReply.choices`). At temperature 0 (below vLLM's 1e-5, or none given:
 * the script's greedy path) the most probable is taken, as greedy decoding would; above it one is drawn. With a `seed`
 * the draw is fixed by the seed and the request (its messages), as vLLM's per-request seed makes a
 * request's output reproducible: the same seed and conversation give the same reply, another seed
 * or another conversation may not. So branches differ, and the true success probability of each
 * state is known from the script's probabilities.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { z } from 'zod';
import { toyChatIds, toyDecode, toyEncode, toyLogprob, type TemplateDrift } from './toyTokenizer';

interface ScriptedToolCall {
  name: string;
  /** The arguments exactly as the model would write them (may be invalid JSON on purpose). */
  arguments: string;
  id?: string;
}

type ServerFault =
  | { kind: 'status'; status: number; message: string; retryAfterSeconds?: number }
  /** Accepts the request and never answers, until the client gives up or the server closes. */
  | { kind: 'hang' }
  /** Destroys the connection before any byte of the reply. */
  | { kind: 'reset' }
  /** Streams the first `afterChunks` chunks, then half of the next chunk's JSON, then resets. */
  | { kind: 'truncate'; afterChunks: number }
  /** Streams the first `afterChunks` chunks, then sends nothing more while keeping the connection open. */
  | { kind: 'stall'; afterChunks: number };

export interface ScriptedReply {
  content?: string | null;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: 'stop' | 'length' | 'tool_calls';
  /** Chosen-token logprobs, one per token of `content`; generated deterministically when omitted. */
  tokenLogprobs?: number[];
  fault?: ServerFault;
  /**
   * Alternatives the policy samples among (their probabilities sum to 1), instead of the fields
   * above: see the module's comment for how one is chosen.
   */
  choices?: ReadonlyArray<{ probability: number; reply: ScriptedReply }>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export type Script = ScriptedReply[] | ((request: ChatRequest, index: number) => ScriptedReply);

export interface PolicyServerOptions {
  models?: string[];
  maxModelLen?: number;
  /** vLLM started without `--enable-auto-tool-choice`: tools with tool_choice "auto" get HTTP 400. */
  autoToolChoice?: boolean;
  /** `openai`: {"error": {...}}; `vllm-legacy`: older vLLM's top-level {"object": "error", ...}. */
  errorShape?: 'openai' | 'vllm-legacy';
  /** Characters per streamed tool-call argument fragment. */
  argumentFragmentSize?: number;
  apiKey?: string;
  /** Keep each request in `requests` (default true); a long benchmark turns it off to hold memory flat. */
  recordRequests?: boolean;
  /** Leave `max_model_len` out of the model list, as servers other than vLLM do; the context still holds. */
  hideMaxModelLen?: boolean;
  /** The chat template `/tokenize` applies: `assistant-space` differs from the one the chat route uses. */
  templateDrift?: TemplateDrift;
  /** Added to the toy logprob of the token `id` at `position` when re-scoring, to make the scorer disagree. */
  logprobShift?: (id: number, position: number) => number;
  /** Answer `/detokenize` with 404, as SGLang and other servers without it do. */
  noDetokenize?: boolean;
}

const ChatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  tools: z.array(z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) })).optional(),
  tool_choice: z.union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.literal('function') })]).optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  logprobs: z.boolean().optional(),
  top_logprobs: z.number().int().min(0).max(20).optional(),
  max_tokens: z.number().int().positive().optional(),
  return_token_ids: z.boolean().optional(),
  temperature: z.number().min(0).nullable().optional(),
  seed: z.number().int().nullable().optional(),
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

const TokenIdsSchema = z.array(z.number().int().nonnegative());
const CompletionRequestSchema = z.looseObject({
  model: z.string(),
  prompt: z.union([TokenIdsSchema.min(1), z.string()]),
  max_tokens: z.number().int().nonnegative().optional(),
  prompt_logprobs: z.number().int().min(-1).nullable().optional(),
});
const TokenizeChatSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string() })),
  add_generation_prompt: z.boolean().optional(),
});
const TokenizeRequestSchema = z.union([TokenizeChatSchema, z.looseObject({ model: z.string().optional(), prompt: z.string() })]);
const DetokenizeRequestSchema = z.looseObject({ model: z.string().optional(), tokens: TokenIdsSchema });
const GenerateRequestSchema = z.looseObject({
  input_ids: TokenIdsSchema.min(1),
  sampling_params: z.looseObject({ max_new_tokens: z.number().int().nonnegative().optional() }).optional(),
  return_logprob: z.boolean().optional(),
  logprob_start_len: z.number().int().optional(),
});

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class PolicyServer {
  readonly requests: RecordedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private completions = 0;
  private port = 0;
  private active = 0;
  /** The most requests the server was answering at once. */
  peakInFlight = 0;

  constructor(
    private script: Script,
    private readonly options: PolicyServerOptions = {},
  ) {
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  get chatRequests(): ChatRequest[] {
    return this.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as ChatRequest);
  }

  /** Replaces the script; the reply counter and the record of requests start again. */
  setScript(script: Script): void {
    this.script = script;
    this.completions = 0;
    this.requests.length = 0;
  }

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get models(): string[] {
    return this.options.models ?? ['test-policy'];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.peakInFlight = Math.max(this.peakInFlight, ++this.active);
    res.once('close', () => this.active--);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // recorded as text; the route answers 400 below
    }
    if (this.options.recordRequests !== false) this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    try {
      this.authorize(req);
      if (req.method === 'GET' && path === '/v1/models') return this.sendJson(res, 200, this.modelList());
      if (req.method === 'POST' && path === '/v1/chat/completions') return this.chat(res, raw, body);
      if (req.method === 'POST' && path === '/v1/completions') return this.sendJson(res, 200, this.completion(parseBody(CompletionRequestSchema, raw, body)));
      if (req.method === 'POST' && path === '/tokenize') return this.sendJson(res, 200, this.tokenize(parseBody(TokenizeRequestSchema, raw, body)));
      if (req.method === 'POST' && path === '/detokenize' && this.options.noDetokenize !== true)
        return this.sendJson(res, 200, { prompt: toyDecode(parseBody(DetokenizeRequestSchema, raw, body).tokens) });
      if (req.method === 'POST' && path === '/generate') return this.sendJson(res, 200, this.generate(parseBody(GenerateRequestSchema, raw, body)));
      throw new HttpFailure(404, `Not Found: ${req.method} ${path}`);
    } catch (err) {
      if (!(err instanceof HttpFailure)) throw err;
      this.sendError(res, err);
    }
  }

  private authorize(req: IncomingMessage): void {
    if (this.options.apiKey === undefined) return;
    if (req.headers.authorization !== `Bearer ${this.options.apiKey}`) throw new HttpFailure(401, 'Unauthorized');
  }

  private modelList() {
    return {
      object: 'list',
      data: this.models.map((id) => ({
        id,
        object: 'model',
        created: 1_700_000_000,
        owned_by: 'vllm',
        root: id,
        parent: null,
        ...(this.options.hideMaxModelLen ? {} : { max_model_len: this.maxModelLen }),
        permission: [],
      })),
    };
  }

  private get maxModelLen(): number {
    return this.options.maxModelLen ?? 32768;
  }

  /** The toy model's logprob of each token of `ids`, shifted as the options say. */
  private scored(ids: readonly number[], position: number): number | undefined {
    const base = toyLogprob(ids[position]!, position);
    return base === undefined ? undefined : base + (this.options.logprobShift?.(ids[position]!, position) ?? 0);
  }

  private checkLength(promptTokens: number, completionTokens: number): void {
    if (promptTokens + completionTokens <= this.maxModelLen) return;
    // vLLM's wording, which clients match on.
    throw new HttpFailure(
      400,
      `This model's maximum context length is ${this.maxModelLen} tokens. However, you requested ${promptTokens + completionTokens} tokens (${promptTokens} in the messages, ${completionTokens} in the completion). Please reduce the length of the messages or completion.`,
    );
  }

  /** A request that may have been scripted to fail: the script's reply at this index decides. */
  private scriptedFault(): void {
    if (typeof this.script === 'function' || this.script.length === 0) return;
    const fault = this.script[this.completions++]?.fault;
    if (fault?.kind === 'status') throw new HttpFailure(fault.status, fault.message);
  }

  /** vLLM's `/v1/completions`: with a token-id prompt and `prompt_logprobs`, the scorer's view of every prompt token. */
  private completion(request: z.infer<typeof CompletionRequestSchema>) {
    if (!this.models.includes(request.model)) throw new HttpFailure(404, `The model \`${request.model}\` does not exist.`);
    const ids = typeof request.prompt === 'string' ? toyEncode(request.prompt) : request.prompt;
    const maxTokens = request.max_tokens ?? 16;
    this.checkLength(ids.length, maxTokens);
    this.scriptedFault();
    const promptLogprobs =
      request.prompt_logprobs == null
        ? null
        : ids.map((id, p) => {
            const logprob = this.scored(ids, p);
            return logprob === undefined ? null : { [String(id)]: { logprob, rank: 1, decoded_token: toyDecode([id]) } };
          });
    const next = toyEncode('.').slice(0, maxTokens);
    return {
      id: `cmpl-${this.requests.length}`,
      object: 'text_completion',
      created: 1_700_000_000,
      model: request.model,
      choices: [{ index: 0, text: toyDecode(next), logprobs: null, finish_reason: 'length', stop_reason: null, prompt_logprobs: promptLogprobs }],
      usage: { prompt_tokens: ids.length, completion_tokens: next.length, total_tokens: ids.length + next.length },
    };
  }

  private tokenize(request: z.infer<typeof TokenizeRequestSchema>) {
    if (request.model !== undefined && !this.models.includes(request.model)) throw new HttpFailure(404, `The model \`${request.model}\` does not exist.`);
    const chat = TokenizeChatSchema.safeParse(request);
    const tokens = chat.success
      ? toyChatIds(chat.data.messages, chat.data.add_generation_prompt ?? true, this.options.templateDrift)
      : toyEncode(String(request.prompt));
    this.scriptedFault();
    return { count: tokens.length, max_model_len: this.maxModelLen, tokens, token_strs: null };
  }

  /** SGLang's native `/generate`: `input_token_logprobs` as `[logprob, id, null]` from `logprob_start_len` on. */
  private generate(request: z.infer<typeof GenerateRequestSchema>) {
    const ids = request.input_ids;
    const maxNew = request.sampling_params?.max_new_tokens ?? 128;
    this.checkLength(ids.length, maxNew);
    this.scriptedFault();
    const start = Math.max(0, request.logprob_start_len ?? -1);
    const output = toyEncode('.').slice(0, maxNew);
    const inputLogprobs = request.return_logprob ? ids.slice(start).map((id, k) => [this.scored(ids, start + k) ?? null, id, null]) : undefined;
    return {
      text: toyDecode(output),
      output_ids: output,
      meta_info: {
        id: `gen-${this.requests.length}`,
        prompt_tokens: ids.length,
        completion_tokens: output.length,
        finish_reason: { type: 'length', length: maxNew },
        ...(inputLogprobs ? { input_token_logprobs: inputLogprobs, output_token_logprobs: [] } : {}),
      },
    };
  }

  private chat(res: ServerResponse, raw: string, body: unknown): void {
    if (typeof body !== 'object' || body === null) throw new HttpFailure(400, `Invalid JSON body: ${raw.slice(0, 80)}`);
    const parsed = ChatRequestSchema.safeParse(body);
    if (!parsed.success) throw new HttpFailure(400, `Invalid request: ${z.prettifyError(parsed.error)}`);
    const request = parsed.data;
    if (!this.models.includes(request.model)) throw new HttpFailure(404, `The model \`${request.model}\` does not exist.`);
    if (request.tools?.length && (request.tool_choice ?? 'auto') === 'auto' && this.options.autoToolChoice === false) {
      throw new HttpFailure(400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
    }
    const index = this.completions++;
    const reply = sampleReply(request, this.nextReply(request, index));
    const fault = reply.fault;
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
      throw new HttpFailure(fault.status, fault.message, headers);
    }
    if (fault?.kind === 'hang') return;
    if (fault?.kind === 'reset') {
      res.socket?.destroy();
      return;
    }
    const completion = buildCompletion(request, reply, index);
    if (request.stream) this.stream(res, request, completion, fault?.kind === 'truncate' || fault?.kind === 'stall' ? fault : undefined);
    else this.sendJson(res, 200, completion.response);
  }

  private nextReply(request: ChatRequest, index: number): ScriptedReply {
    if (typeof this.script === 'function') return this.script(request, index);
    const reply = this.script[index];
    if (!reply) throw new HttpFailure(400, `policy server script exhausted: no reply scripted for request ${index + 1} (script has ${this.script.length})`);
    return reply;
  }

  private stream(
    res: ServerResponse,
    request: ChatRequest,
    completion: Completion,
    fault: { kind: 'truncate' | 'stall'; afterChunks: number } | undefined,
  ): void {
    const chunks = streamChunks(request, completion, this.options.argumentFragmentSize ?? 7);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const [i, chunk] of chunks.entries()) {
      const data = JSON.stringify(chunk);
      if (fault?.kind === 'stall' && i === fault.afterChunks) return;
      if (fault?.kind === 'truncate' && i === fault.afterChunks) {
        res.write(`data: ${data.slice(0, Math.floor(data.length / 2))}`);
        // Let the half chunk reach the client before the reset, as a dropped connection would.
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.write(`data: ${data}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  private sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private sendError(res: ServerResponse, err: HttpFailure): void {
    const type =
      err.status === 404
        ? 'NotFoundError'
        : err.status === 400
          ? 'BadRequestError'
          : err.status === 401
            ? 'Unauthorized'
            : err.status === 429
              ? 'RateLimitError'
              : 'InternalServerError';
    const detail = { message: err.message, type, param: null, code: err.status };
    const body = this.options.errorShape === 'vllm-legacy' ? { object: 'error', ...detail } : { error: detail };
    this.sendJson(res, err.status, body, err.headers);
  }
}

/** @internal */
export async function startPolicyServer(script: Script, options: PolicyServerOptions = {}): Promise<PolicyServer> {
  return new PolicyServer(script, options).listen();
}

/**
 * The reply a scripted turn gives this request: itself, or one of its `choices` (the most probable at temperature 0; else
 * drawn, from the seed and the messages when the request has a seed, which makes the draw reproducible).
 */
function sampleReply(request: ChatRequest, reply: ScriptedReply): ScriptedReply {
  const choices = reply.choices;
  if (!choices) return reply;
  const total = choices.reduce((sum, c) => sum + c.probability, 0);
  if (choices.length === 0 || choices.some((c) => !(c.probability >= 0)) || Math.abs(total - 1) > 1e-9)
    throw new HttpFailure(500, `scripted choices must have probabilities summing to 1 (got ${total})`);
  // vLLM samples greedily below its epsilon (_SAMPLING_EPS, 1e-5), whatever the seed.
  const temperature = request.temperature ?? 0;
  if (temperature < 1e-5) return sampleReply(request, choices.reduce((best, c) => (c.probability > best.probability ? c : best)).reply);
  const draw =
    request.seed === undefined || request.seed === null
      ? Math.random()
      : createHash('sha256')
          .update(`${request.seed}\0${JSON.stringify(request.messages)}`)
          .digest()
          .readUInt32BE(0) /
        2 ** 32;
  let cumulative = 0;
  for (const c of choices) {
    cumulative += c.probability;
    if (draw < cumulative) return sampleReply(request, c.reply);
  }
  return sampleReply(request, choices.at(-1)!.reply);
}

function parseBody<T>(schema: z.ZodType<T>, raw: string, body: unknown): T {
  if (typeof body !== 'object' || body === null) throw new HttpFailure(400, `Invalid JSON body: ${raw.slice(0, 80)}`);
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new HttpFailure(400, `Invalid request: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

interface TokenEntry {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

interface Completion {
  id: string;
  created: number;
  model: string;
  reply: ScriptedReply;
  tokens: TokenEntry[];
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  response: unknown;
  /** The toy model's ids, when the request asked for `return_token_ids`. */
  ids?: { prompt: number[]; completion: number[] };
}

/** Word-piece tokens: each run of non-space characters with the spaces before it. */
function tokenize(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

function tokenEntries(request: ChatRequest, reply: ScriptedReply): TokenEntry[] {
  const tokens = tokenize(reply.content ?? '');
  const topN = request.top_logprobs ?? 0;
  return tokens.map((token, i) => {
    const logprob = reply.tokenLogprobs?.[i] ?? -((i % 7) * 0.25 + 0.01);
    const alternatives = Array.from({ length: Math.max(0, topN - 1) }, (_, k) => ({ token: `${token}~${k + 1}`, logprob: logprob - (k + 1) }));
    const top = topN > 0 ? [{ token, logprob }, ...alternatives] : [];
    return { token, logprob, bytes: [...Buffer.from(token)], top_logprobs: top.map((t) => ({ ...t, bytes: [...Buffer.from(t.token)] })) };
  });
}

/**
 * With `return_token_ids`, the reply is the toy model's (toyTokenizer.ts): the prompt is the chat
 * template's ids, the completion one token per code point of the content and tool calls, each
 * with the toy logprob at its position.
 */
function toyIds(request: ChatRequest, content: string, toolCalls: Completion['toolCalls']): { prompt: number[]; completion: number[]; entries: TokenEntry[] } {
  const prompt = toyChatIds(request.messages, true);
  const assistant = { role: 'assistant', content, tool_calls: toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })) };
  const whole = toyChatIds([assistant], false);
  // The assistant's own tokens: after `<|im_start|>assistant\n`, before `<|im_end|>\n`.
  const completion = whole.slice(1 + 'assistant\n'.length, -2);
  const entries = completion.map((id, i) => {
    const token = toyDecode([id]);
    const logprob = toyLogprob(id, prompt.length + i)!;
    const top = (request.top_logprobs ?? 0) > 0 ? [{ token, logprob, bytes: [...Buffer.from(token)] }] : [];
    return { token, logprob, bytes: [...Buffer.from(token)], top_logprobs: top };
  });
  return { prompt, completion, entries };
}

function buildCompletion(request: ChatRequest, reply: ScriptedReply, index: number): Completion {
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `chatcmpl-tool-${index}-${i}`, name: c.name, arguments: c.arguments }));
  const ids = request.return_token_ids ? toyIds(request, reply.content ?? '', toolCalls) : undefined;
  const tokens = ids ? ids.entries : tokenEntries(request, reply);
  const finishReason = reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop');
  const promptTokens = request.messages.reduce((n, m) => n + tokenize(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')).length, 0);
  const completionTokens = tokens.length + toolCalls.reduce((n, c) => n + tokenize(c.arguments).length + 1, 0);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  const id = `chatcmpl-${index}`;
  const created = 1_700_000_000 + index;
  const message = {
    role: 'assistant',
    content: reply.content ?? null,
    reasoning_content: reply.reasoning ?? null,
    tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
  };
  const response = {
    id,
    object: 'chat.completion',
    created,
    model: request.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: request.logprobs ? { content: tokens } : null,
        finish_reason: finishReason,
        stop_reason: null,
        ...(ids ? { token_ids: ids.completion } : {}),
      },
    ],
    usage,
    prompt_logprobs: null,
    ...(ids ? { prompt_token_ids: ids.prompt } : {}),
  };
  return { id, created, model: request.model, reply, tokens, toolCalls, finishReason, usage, response, ...(ids ? { ids } : {}) };
}

function streamChunks(request: ChatRequest, c: Completion, fragmentSize: number): unknown[] {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
  });
  const chunks: unknown[] = [
    c.ids ? { ...chunk({ role: 'assistant', content: '' }), prompt_token_ids: c.ids.prompt } : chunk({ role: 'assistant', content: '' }),
  ];
  for (const piece of tokenize(c.reply.reasoning ?? '')) chunks.push(chunk({ reasoning_content: piece }));
  if (c.ids) {
    // The toy model's tokens are single characters; its ids and logprobs come with the last chunk.
    if (c.reply.content) chunks.push(chunk({ content: c.reply.content }));
  } else {
    for (const t of c.tokens) chunks.push(chunk({ content: t.token }, { logprobs: request.logprobs ? { content: [t] } : null }));
  }
  for (const [i, call] of c.toolCalls.entries()) {
    chunks.push(chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let at = 0; at < call.arguments.length; at += fragmentSize) {
      chunks.push(chunk({ tool_calls: [{ index: i, function: { arguments: call.arguments.slice(at, at + fragmentSize) } }] }));
    }
  }
  const last = c.ids ? { token_ids: c.ids.completion, logprobs: request.logprobs ? { content: c.tokens } : null } : {};
  chunks.push(chunk({}, { finish_reason: c.finishReason, stop_reason: null, ...last }));
  if (request.stream_options?.include_usage) {
    chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: c.usage });
  }
  return chunks;
}
