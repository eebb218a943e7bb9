/**
 * Where a session's next action comes from: a recording (replay), a policy (live), or a person
 * typing it. Each source answers one step at a time, so a session can switch source between
 * steps (a fork replays a recording, then asks a policy).
 */
import { CancelledError, throwIfAborted } from '../errors';
import type { PolicyClient, RetryRecord } from '../policy/policyClient';
import { buildMessages, type ContextOptions } from '../policy/context';
import { samplingFlags } from '../policy/samplingFlags';
import type { RecordedStepReading, Scaffold } from '../scaffolds/scaffold';
import type { ToolSet } from '../aci/toolRegistry';
import type { Action, Step, TokenLogprob, TokenUsage } from '../trajectory/model';
import { COPIED_CONTEXT_FLAG, takenEarlier } from '../trajectory/copiedContext';

export interface NextAction {
  thought: string;
  reasoning?: string;
  action: Action;
  /** Every action of a reply with several tool calls (`action` is the first): all run, in order, as one step. */
  calls?: Action[];
  /** Why the action could not be read; it is then not run, and `errorMessage` is the observation. */
  formatError?: string;
  errorMessage?: string;
  logprobs?: TokenLogprob[];
  tokenIds?: Step['tokenIds'];
  sampling?: Record<string, unknown>;
  tokens?: TokenUsage;
  flags?: string[];
  /** The recorded step this action replays, to compare the new observation with. */
  recorded?: Step;
  /** Shown as recorded, run nothing and compared with nothing: a turn that was not the agent's action (an ATIF system or user step). */
  runsNothing?: boolean;
  /** What the scaffold tells the model about the reply besides the result (Terminus-2's parser warnings). */
  feedback?: string;
}

/** Flags of recorded steps that are not the agent's actions: a replay shows them and runs nothing (so it does a step the run took in an earlier file). */
const NOT_ACTIONS = new Set(['atif-system', 'atif-user']);

/** A tool set that reads some recorded steps its own way (core/scaffolds/terminus-2). */
type RecordedStepReader = Pick<ToolSet, 'parseCommand' | 'parseFunctionCall'> & { readRecorded?(step: Step): RecordedStepReading | undefined };

export interface ActionSource {
  readonly kind: 'recording' | 'policy' | 'person';
  /** The next action after `history`, or undefined when the source has no more. */
  next(history: readonly Step[], signal?: AbortSignal): Promise<NextAction | undefined>;
}

/** A tool call given as a name and arguments, as a function-calling policy would make it. */
export interface TypedCall {
  tool: string;
  args: Record<string, unknown>;
}

/** An action typed by a person: command text in SWE-agent's syntax, or a tool call; checked against the tools. */
export function typedAction(input: string | TypedCall, tools: Pick<ToolSet, 'parseCommand' | 'parseFunctionCall'>, thought = ''): NextAction {
  const raw = typeof input === 'string' ? input : JSON.stringify(input.args);
  const parsed = typeof input === 'string' ? tools.parseCommand(input) : tools.parseFunctionCall(input.tool, input.args);
  if ('error' in parsed) return { thought, action: { raw, tool: null, args: {} }, formatError: parsed.error, errorMessage: parsed.error };
  return { thought, action: { raw, tool: parsed.tool, args: parsed.args } };
}

/** Replays a recording's steps in order, up to (not including) `until` when given. */
export class RecordingSource implements ActionSource {
  readonly kind = 'recording';

  constructor(
    private readonly steps: readonly Step[],
    private readonly tools: RecordedStepReader,
    private readonly until = Number.POSITIVE_INFINITY,
  ) {}

  async next(history: readonly Step[]): Promise<NextAction | undefined> {
    const index = history.length;
    const step = this.steps[index];
    if (!step || index >= this.until) return undefined;
    const base = {
      thought: step.thought,
      recorded: step,
      ...(step.reasoning !== undefined ? { reasoning: step.reasoning } : {}),
      ...(step.logprobs ? { logprobs: step.logprobs } : {}),
      ...(step.tokenIds ? { tokenIds: step.tokenIds } : {}),
      ...(step.sampling ? { sampling: step.sampling } : {}),
    };
    if (step.flags?.some((f) => NOT_ACTIONS.has(f)) || takenEarlier(step))
      return { ...base, action: step.action, runsNothing: true, flags: step.flags!.filter((f) => NOT_ACTIONS.has(f) || f === COPIED_CONTEXT_FLAG) };
    const read = this.tools.readRecorded?.(step);
    if (read) return { ...base, ...read };
    if (step.formatError !== undefined) return { ...base, action: step.action, formatError: step.formatError, errorMessage: step.observation };
    // An importer that could not name the tool keeps the raw text; read it with the session's tools.
    if (step.action.tool === null) return { ...typedAction(step.action.raw, this.tools, step.thought), ...base };
    return { ...base, action: step.action, ...(step.calls ? { calls: step.calls.map((c) => c.action) } : {}) };
  }
}

export type PolicySourceOptions = Omit<ContextOptions, 'replyFormat'> & {
  client: PolicyClient;
  tools: ToolSet;
  /** The scaffold whose reply format, tool specs and parser the replies go through. */
  scaffold: Scaffold;
  onDelta?: (delta: { content?: string; reasoning?: string }) => void;
  /** Told of each failed attempt the client is about to retry. */
  onRetry?: (record: RetryRecord) => void;
};

/** The history's wording for a policy: the scaffold's reply format and, where it has its own, its observation and reply wording. */
function contextOptions(options: PolicySourceOptions): ContextOptions {
  const { scaffold } = options;
  const format =
    scaffold.replyFormat === 'function_calling' ? 'function_calling' : scaffold.replyFormat === 'thought_action' ? 'thought_action' : 'xml_function_calling';
  return {
    ...options,
    ...(scaffold.liveInstructions ? { instructions: scaffold.liveInstructions(options.instructions) } : {}),
    replyFormat: format,
    observationTemplate: options.observationTemplate ?? scaffold.context.observationTemplate,
    ...(scaffold.context.assistantText ? { assistantText: scaffold.context.assistantText } : {}),
  };
}

/** Asks the policy for the next action with the history so far as its context. */
export class PolicySource implements ActionSource {
  readonly kind = 'policy';

  constructor(private readonly options: PolicySourceOptions) {}

  async next(history: readonly Step[], signal?: AbortSignal): Promise<NextAction> {
    const { client, scaffold } = this.options;
    const messages = buildMessages(history, contextOptions(this.options));
    const toolSpecs = scaffold.toolSpecs();
    const { onDelta, onRetry } = this.options;
    const parallelToolCalls = scaffold.parallelToolCalls;
    const reply = await client.complete(messages, {
      ...(toolSpecs ? { tools: toolSpecs } : {}),
      ...(toolSpecs && parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
      ...(signal ? { signal } : {}),
      ...(onDelta ? { onDelta } : {}),
      ...(onRetry ? { onRetry } : {}),
    });
    const parsed = scaffold.parseReply(reply);
    const next: NextAction = { ...parsed, sampling: reply.sampling };
    if (reply.reasoning) next.reasoning = reply.reasoning;
    if (reply.logprobs) next.logprobs = reply.logprobs;
    if (reply.tokenIds) next.tokenIds = reply.tokenIds;
    if (reply.usage) next.tokens = reply.usage;
    const flags = [
      ...samplingFlags(reply.sampling, reply.logprobs),
      ...(reply.retries.length > 0 ? [`policy-retried-${reply.retries.length}`] : []),
      ...(reply.finishReason === 'length' ? ['max-tokens'] : []),
    ];
    if (reply.interrupted) {
      // A broken stream keeps what arrived for the person to read, but is not run.
      flags.push('stream-interrupted');
      next.formatError = reply.interrupted;
      next.errorMessage = `The reply was cut off (${reply.interrupted}).`;
    }
    if (flags.length > 0) next.flags = flags;
    return next;
  }
}

/** Actions typed by a person, one per step; `next` waits until one is given. */
export class PersonSource implements ActionSource {
  readonly kind = 'person';
  private readonly queue: NextAction[] = [];
  private waiting: ((action: NextAction | undefined) => void) | undefined;
  private ended = false;

  constructor(private readonly tools: Pick<ToolSet, 'parseCommand' | 'parseFunctionCall'>) {}

  /** Hands over the next action: command text in the scaffold's syntax, or a tool call. */
  type(input: string | TypedCall, thought = ''): void {
    this.give(typedAction(input, this.tools, thought));
  }

  /** No more actions: the session finishes. */
  end(): void {
    this.ended = true;
    this.waiting?.(undefined);
    this.waiting = undefined;
  }

  async next(_history: readonly Step[], signal?: AbortSignal): Promise<NextAction | undefined> {
    throwIfAborted(signal);
    const queued = this.queue.shift();
    if (queued || this.ended) return queued;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new CancelledError());
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting = (action) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(action);
      };
    });
  }

  private give(action: NextAction): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(action);
    } else this.queue.push(action);
  }
}
