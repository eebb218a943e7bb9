/**
 * A scripted stand-in for a policy server, for tests and the demo (no GPU, no weights): a real
 * HTTP server on 127.0.0.1 that answers the OpenAI chat-completions protocol the way vLLM does
 * (model list with max_model_len, SSE chunks, tool-call argument fragments, logprobs,
 * reasoning_content, both error shapes), replying from a script instead of a model. Faults can
 * be scripted per reply. It is not a model: the workbench's real policy is whatever
 * OpenAI-compatible server `sweWorkbench.policy.url` names.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { z } from 'zod';

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
});
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

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
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // recorded as text; the route answers 400 below
    }
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    try {
      this.authorize(req);
      if (req.method === 'GET' && path === '/v1/models') return this.sendJson(res, 200, this.modelList());
      if (req.method === 'POST' && path === '/v1/chat/completions') return this.chat(res, raw, body);
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
        max_model_len: this.options.maxModelLen ?? 32768,
        permission: [],
      })),
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
    const reply = this.nextReply(request, index);
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

function buildCompletion(request: ChatRequest, reply: ScriptedReply, index: number): Completion {
  const tokens = tokenEntries(request, reply);
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `chatcmpl-tool-${index}-${i}`, name: c.name, arguments: c.arguments }));
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
    choices: [{ index: 0, message, logprobs: request.logprobs ? { content: tokens } : null, finish_reason: finishReason, stop_reason: null }],
    usage,
    prompt_logprobs: null,
  };
  return { id, created, model: request.model, reply, tokens, toolCalls, finishReason, usage, response };
}

function streamChunks(request: ChatRequest, c: Completion, fragmentSize: number): unknown[] {
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    id: c.id,
    object: 'chat.completion.chunk',
    created: c.created,
    model: c.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null, ...extra }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  for (const piece of tokenize(c.reply.reasoning ?? '')) chunks.push(chunk({ reasoning_content: piece }));
  for (const t of c.tokens) chunks.push(chunk({ content: t.token }, { logprobs: request.logprobs ? { content: [t] } : null }));
  for (const [i, call] of c.toolCalls.entries()) {
    chunks.push(chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    for (let at = 0; at < call.arguments.length; at += fragmentSize) {
      chunks.push(chunk({ tool_calls: [{ index: i, function: { arguments: call.arguments.slice(at, at + fragmentSize) } }] }));
    }
  }
  chunks.push(chunk({}, { finish_reason: c.finishReason, stop_reason: null }));
  if (request.stream_options?.include_usage) {
    chunks.push({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [], usage: c.usage });
  }
  return chunks;
}
