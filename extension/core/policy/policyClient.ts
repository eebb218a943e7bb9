/**
 * The policy: any OpenAI-compatible chat-completions server (vLLM, SGLang, TGI), reached with the
 * official `openai` client. Retries, timeouts and reply validation are done here rather than by
 * the client library, so each attempt is visible to the person and every reply is checked.
 */
import OpenAI, { APIError } from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { CancelledError } from '../errors';
import type { TokenLogprob, TokenUsage } from '../trajectory/model';
import {
  ChatCompletionChunkSchema,
  ChatCompletionSchema,
  ErrorBodySchema,
  ModelListSchema,
  type ChatCompletionChunk,
  type TokenLogprobEntry,
  type Usage,
} from './replySchemas';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs, sleep, type RetryPolicy } from './retry';

export type ChatMessage = ChatCompletionMessageParam;
type ToolSpec = ChatCompletionTool;

interface SamplingParams {
  temperature?: number;
  topP?: number;
  /** vLLM extra: sample only among the k most likely tokens (-1: off). */
  topK?: number;
  /** vLLM extra. */
  minP?: number;
  /** vLLM extra. */
  repetitionPenalty?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** Other server-specific fields sent as they are, e.g. `{chat_template_kwargs: {enable_thinking: false}}`. */
  extraBody?: Record<string, unknown>;
}

export interface PolicyClientOptions {
  /** e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  /** Checked against /v1/models; when omitted, the server's only model is used. */
  model?: string;
  apiKey?: string;
  sampling?: SamplingParams;
  /** Ask for per-token logprobs and this many alternatives per token (0-20). */
  logprobs?: boolean;
  topLogprobs?: number;
  /**
   * Ask for the token ids the engine saw and sampled (vLLM's `return_token_ids`: the reply's
   * `prompt_token_ids` and each choice's `token_ids`), so a recording can be re-scored.
   */
  returnTokenIds?: boolean;
  stream?: boolean;
  /** Per attempt, streaming included. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

interface PolicyToolCall {
  id: string;
  name: string;
  /** As the model wrote it: possibly invalid JSON. */
  arguments: string;
}

export interface RetryRecord {
  attempt: number;
  reason: string;
  delayMs: number;
}

export interface PolicyReply {
  model: string;
  content: string;
  reasoning?: string;
  toolCalls: PolicyToolCall[];
  finishReason: string | null;
  logprobs?: TokenLogprob[];
  /** The ids the server says it saw and sampled, when it returns them. */
  tokenIds?: { prompt?: number[]; completion?: number[] };
  usage?: TokenUsage;
  /** The sampling fields exactly as sent, in the server's names (temperature, top_p, top_k...). */
  sampling: Record<string, unknown>;
  /** Set when a stream broke part-way: what arrived is kept, and this says why it stopped. */
  interrupted?: string;
  retries: RetryRecord[];
}

export type PolicyErrorKind = 'bad-request' | 'auth' | 'not-found' | 'rate-limited' | 'server' | 'connection' | 'timeout' | 'invalid-reply';

/** A failed policy call, worded for the person; `retries` lists what was tried before giving up. */
export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  constructor(
    readonly kind: PolicyErrorKind,
    message: string,
    readonly status?: number,
    readonly retries: RetryRecord[] = [],
    /** How long the server asked to wait before trying again (Retry-After). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return this.kind === 'rate-limited' || this.kind === 'server' || this.kind === 'connection' || this.kind === 'timeout';
  }
}

export interface CompleteOptions {
  tools?: ToolSpec[];
  toolChoice?: 'auto' | 'none' | 'required';
  /** Sent as `parallel_tool_calls` with the tools: whether one reply may make several calls. */
  parallelToolCalls?: boolean;
  signal?: AbortSignal;
  /** Called with each piece of text as it streams in. */
  onDelta?: (delta: { content?: string; reasoning?: string }) => void;
  onRetry?: (record: RetryRecord) => void;
}

export class PolicyClient {
  private readonly retry: RetryPolicy;

  private constructor(
    private readonly openai: OpenAI,
    private readonly options: PolicyClientOptions,
    readonly model: string,
    readonly maxModelLen: number | undefined,
  ) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  /** Checks the server through /v1/models and settles the model name. */
  static async connect(options: PolicyClientOptions, signal?: AbortSignal): Promise<PolicyClient> {
    const openai = new OpenAI({
      baseURL: options.baseUrl,
      apiKey: options.apiKey ?? 'EMPTY',
      maxRetries: 0,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      fetch: fetchWithNormalisedErrors,
    });
    const probe = new PolicyClient(openai, options, options.model ?? '', undefined);
    const list = await probe.withRetries(signal, undefined, async (s) => ModelListSchema.parse(await openai.get('/models', { signal: s })));
    const ids = list.data.map((m) => m.id);
    const model = options.model ?? (ids.length === 1 ? ids[0] : undefined);
    if (model === undefined) {
      throw new PolicyError(
        'not-found',
        `The policy server at ${options.baseUrl} serves ${ids.length === 0 ? 'no model' : `several models (${ids.join(', ')})`}; name one with --model.`,
      );
    }
    const entry = list.data.find((m) => m.id === model);
    if (!entry)
      throw new PolicyError(
        'not-found',
        `The policy server at ${options.baseUrl} does not serve model '${model}'; it serves: ${ids.join(', ') || '(none)'}.`,
        404,
      );
    return new PolicyClient(openai, options, model, entry.max_model_len);
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** The sampling fields a request carries, in the server's names. */
  get sampling(): Record<string, unknown> {
    const s = this.options.sampling ?? {};
    const fields: Record<string, unknown> = {
      temperature: s.temperature,
      top_p: s.topP,
      top_k: s.topK,
      min_p: s.minP,
      repetition_penalty: s.repetitionPenalty,
      max_tokens: s.maxTokens,
      stop: s.stop,
      seed: s.seed,
      ...s.extraBody,
    };
    return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  }

  async complete(messages: ChatMessage[], options: CompleteOptions = {}): Promise<PolicyReply> {
    const body: Record<string, unknown> = { model: this.model, messages, ...this.sampling };
    if (options.tools?.length) Object.assign(body, { tools: options.tools, tool_choice: options.toolChoice ?? 'auto' });
    if (options.tools?.length && options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
    if (this.options.logprobs) Object.assign(body, { logprobs: true, top_logprobs: this.options.topLogprobs ?? 0 });
    if (this.options.returnTokenIds) body.return_token_ids = true;
    const retries: RetryRecord[] = [];
    const onRetry = (r: RetryRecord) => {
      retries.push(r);
      options.onRetry?.(r);
    };
    const reply = await this.withRetries(options.signal, onRetry, (signal) =>
      this.options.stream ? this.streamOnce(body, signal, options) : this.completeOnce(body, signal),
    );
    return { ...reply, sampling: this.sampling, retries };
  }

  private async completeOnce(body: Record<string, unknown>, signal: AbortSignal): Promise<Omit<PolicyReply, 'sampling' | 'retries'>> {
    const raw: unknown = await this.openai.chat.completions.create({ ...body, stream: false } as unknown as ChatCompletionCreateParamsNonStreaming, { signal });
    const parsed = ChatCompletionSchema.safeParse(raw);
    if (!parsed.success)
      throw new PolicyError('invalid-reply', `The policy server sent a reply that is not a chat completion: ${z.prettifyError(parsed.error)}`);
    const choice = parsed.data.choices[0]!;
    const m = choice.message;
    return {
      model: parsed.data.model,
      content: m.content ?? '',
      ...(m.reasoning_content ? { reasoning: m.reasoning_content } : {}),
      toolCalls: (m.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, name: c.function.name, arguments: c.function.arguments })),
      finishReason: choice.finish_reason,
      ...logprobsField(choice.logprobs?.content),
      ...tokenIdsField(parsed.data.prompt_token_ids, choice.token_ids),
      ...usageField(parsed.data.usage),
    };
  }

  /**
   * A POST to another endpoint of the same server (vLLM's `/v1/completions`, `/tokenize`,
   * `/detokenize`; SGLang's `/generate`), with the chat route's retries, timeout and error
   * wording, without its advice on tool-call flags and folding observations, which fits chat only.
   * A path under `/v1` is taken from the base URL; any other from the server's root.
   */
  async post<T>(path: string, body: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const url = path.startsWith('/v1/') ? path.slice(3) : `${serverRoot(this.options.baseUrl)}${path}`;
    return this.withRetries(
      signal,
      undefined,
      async (s) => {
        const raw: unknown = await this.openai.post(url, { body, signal: s });
        const parsed = schema.safeParse(raw);
        if (!parsed.success)
          throw new PolicyError('invalid-reply', `The policy server's answer to ${path} is not what it should be: ${z.prettifyError(parsed.error)}`);
        return parsed.data;
      },
      false,
    );
  }

  /** `signal` ends the attempt (timeout or cancel); only a cancel by `options.signal` discards what arrived. */
  private async streamOnce(body: Record<string, unknown>, signal: AbortSignal, options: CompleteOptions): Promise<Omit<PolicyReply, 'sampling' | 'retries'>> {
    const stream = await this.openai.chat.completions.create(
      { ...body, stream: true, stream_options: { include_usage: true } } as unknown as ChatCompletionCreateParamsStreaming,
      { signal },
    );
    const acc = new StreamAccumulator(this.model);
    let failure: unknown;
    try {
      for await (const chunk of stream as AsyncIterable<unknown>) {
        const parsed = ChatCompletionChunkSchema.safeParse(chunk);
        if (!parsed.success) throw new PolicyError('invalid-reply', `a streamed chunk is not a chat.completion.chunk: ${z.prettifyError(parsed.error)}`);
        acc.add(parsed.data, options.onDelta);
      }
    } catch (err) {
      failure = err;
    }
    // An aborted stream may end quietly instead of throwing, so the signals are asked, not the error.
    if (options.signal?.aborted) throw new CancelledError();
    if (acc.chunks === 0 && (failure !== undefined || signal.aborted)) throw failure ?? new Error('no reply before the timeout');
    const broke = signal.aborted
      ? `no complete reply within ${this.timeoutMs} ms`
      : failure !== undefined
        ? describeCause(failure)
        : acc.finishReason === null
          ? 'it ended without a finish reason'
          : undefined;
    return acc.result(broke && `the reply stream broke after ${acc.chunks} chunk(s): ${broke}`);
  }

  /** Runs one attempt per call of `attempt`, each with its own timeout, retrying what may pass. */
  private async withRetries<T>(
    signal: AbortSignal | undefined,
    onRetry: ((r: RetryRecord) => void) | undefined,
    attempt: (signal: AbortSignal) => Promise<T>,
    chatAdvice = true,
  ): Promise<T> {
    const done: RetryRecord[] = [];
    for (let n = 1; ; n++) {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let failure: PolicyError;
      try {
        return await attempt(combined);
      } catch (err) {
        if (signal?.aborted) throw new CancelledError();
        failure = timeout.aborted
          ? new PolicyError('timeout', `The policy server at ${this.options.baseUrl} did not answer within ${this.timeoutMs} ms.`)
          : this.explain(err, chatAdvice);
      }
      if (!failure.retryable || n >= this.retry.maxAttempts) {
        const tried = n > 1 ? ` (gave up after ${n} attempts)` : '';
        throw new PolicyError(failure.kind, failure.message + tried, failure.status, done);
      }
      const retryAfter = failure.retryAfterMs;
      if (retryAfter !== undefined && retryAfter > this.retry.maxRetryAfterMs) {
        throw new PolicyError(
          failure.kind,
          `${failure.message} The server asked to wait ${Math.round(retryAfter / 1000)} s, longer than the ${Math.round(this.retry.maxRetryAfterMs / 1000)} s allowed.`,
          failure.status,
          done,
        );
      }
      const record = { attempt: n, reason: failure.message, delayMs: retryDelayMs(this.retry, n, retryAfter) };
      done.push(record);
      onRetry?.(record);
      await sleep(record.delayMs, signal);
    }
  }

  private explain(err: unknown, chatAdvice: boolean): PolicyError {
    if (err instanceof PolicyError) return err;
    const where = `The policy server at ${this.options.baseUrl}`;
    if (err instanceof APIError && err.status !== undefined) {
      const said = err.error && typeof (err.error as { message?: unknown }).message === 'string' ? (err.error as { message: string }).message : err.message;
      const status = err.status;
      if (chatAdvice && status === 400 && /enable-auto-tool-choice/.test(said)) {
        return new PolicyError(
          'bad-request',
          `${where} refused tool calls: vLLM answers tool calls only when started with --enable-auto-tool-choice --tool-call-parser <name> (hermes, llama3_json, mistral, qwen3_coder, ...). Restart it with those flags, or use a text scaffold (thought_action or xml_function_calling). The server said: ${said}`,
          status,
        );
      }
      if (chatAdvice && status === 400 && /maximum context length/i.test(said)) {
        return new PolicyError(
          'bad-request',
          `${where} cannot take the conversation: it no longer fits the model's context${this.maxModelLen ? ` of ${this.maxModelLen} tokens` : ''}. Fold older observations (the observation window, e.g. --observation-window 5) or lower max_tokens. The server said: ${said}`,
          status,
        );
      }
      const kind: PolicyErrorKind =
        status === 401 || status === 403 ? 'auth' : status === 404 ? 'not-found' : status === 429 ? 'rate-limited' : status >= 500 ? 'server' : 'bad-request';
      return new PolicyError(kind, `${where} answered HTTP ${status}: ${said}`, status, [], parseRetryAfter(err.headers));
    }
    return new PolicyError('connection', `${where} could not be reached: ${describeCause(err)}`);
  }
}

const DEFAULT_TIMEOUT_MS = 300_000;

function describeCause(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${e.message} (${code})` : e.message);
  }
  return parts.length > 0 ? [...new Set(parts)].join(': ') : String(err);
}

/** The server's root: the base URL without its trailing `/v1`. */
function serverRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function tokenIdsField(
  prompt: number[] | null | undefined,
  completion: number[] | null | undefined,
): { tokenIds?: { prompt?: number[]; completion?: number[] } } {
  if (!prompt && !completion) return {};
  return { tokenIds: { ...(prompt ? { prompt } : {}), ...(completion ? { completion } : {}) } };
}

function logprobsField(entries: TokenLogprobEntry[] | null | undefined): { logprobs?: TokenLogprob[] } {
  if (!entries) return {};
  return { logprobs: entries.map(toTokenLogprob) };
}

function toTokenLogprob(e: TokenLogprobEntry): TokenLogprob {
  const top = e.top_logprobs?.map((t) => ({ token: t.token, logprob: t.logprob }));
  return top && top.length > 0 ? { token: e.token, logprob: e.logprob, top } : { token: e.token, logprob: e.logprob };
}

function usageField(usage: Usage): { usage?: TokenUsage } {
  if (!usage) return {};
  return { usage: { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens } };
}

/** Joins SSE chunks into one reply: text in order, tool-call fragments by their index. */
class StreamAccumulator {
  chunks = 0;
  finishReason: string | null = null;
  private content = '';
  private reasoning = '';
  private readonly calls = new Map<number, PolicyToolCall>();
  private readonly logprobs: TokenLogprob[] = [];
  private sawLogprobs = false;
  private promptIds: number[] | undefined;
  private completionIds: number[] | undefined;
  private usage: Usage = undefined;

  constructor(private model: string) {}

  add(chunk: ChatCompletionChunk, onDelta: CompleteOptions['onDelta']): void {
    this.chunks++;
    if (chunk.model) this.model = chunk.model;
    if (chunk.usage) this.usage = chunk.usage;
    if (chunk.prompt_token_ids) this.promptIds = chunk.prompt_token_ids;
    for (const choice of chunk.choices.filter((c) => c.index === 0)) {
      const d = choice.delta;
      if (d.content) this.content += d.content;
      if (d.reasoning_content) this.reasoning += d.reasoning_content;
      if (d.content || d.reasoning_content)
        onDelta?.({ ...(d.content ? { content: d.content } : {}), ...(d.reasoning_content ? { reasoning: d.reasoning_content } : {}) });
      for (const t of d.tool_calls ?? []) {
        const call = this.calls.get(t.index) ?? { id: '', name: '', arguments: '' };
        if (t.id) call.id = t.id;
        if (t.function?.name) call.name += t.function.name;
        if (t.function?.arguments) call.arguments += t.function.arguments;
        this.calls.set(t.index, call);
      }
      if (choice.logprobs?.content) {
        this.sawLogprobs = true;
        this.logprobs.push(...choice.logprobs.content.map(toTokenLogprob));
      }
      if (choice.token_ids) (this.completionIds ??= []).push(...choice.token_ids);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
  }

  result(interrupted: string | undefined): Omit<PolicyReply, 'sampling' | 'retries'> {
    const toolCalls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
    return {
      model: this.model,
      content: this.content,
      ...(this.reasoning ? { reasoning: this.reasoning } : {}),
      toolCalls,
      finishReason: this.finishReason,
      ...(this.sawLogprobs ? { logprobs: this.logprobs } : {}),
      ...tokenIdsField(this.promptIds, this.completionIds),
      ...usageField(this.usage),
      ...(interrupted ? { interrupted } : {}),
    };
  }
}

/**
 * Older vLLM answers errors as a top-level `{"object": "error", message, ...}`, which the openai
 * client would report as a bare status; rewrite it into OpenAI's `{"error": {...}}` shape.
 */
async function fetchWithNormalisedErrors(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  const parsed = ErrorBodySchema.safeParse(json);
  const error = parsed.success ? parsed.data : { message: text.slice(0, 500) };
  return new Response(JSON.stringify({ error }), { status: response.status, statusText: response.statusText, headers: response.headers });
}
