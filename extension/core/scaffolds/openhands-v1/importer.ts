/**
 * An OpenHands V1 conversation as the canonical trajectory: the active branch of its event tree,
 * one step per model response (an `ActionEvent`, or several sharing an `llm_response_id` for
 * parallel tool calls, each paired with its observation by `tool_call_id`; or an agent's
 * `MessageEvent` that called no tool), the other branches listed as forks.
 */
import { z } from 'zod';
import { InputError } from '../../errors';
import type { Step, ToolCallResult, Trajectory, TrajectoryMeta } from '../../trajectory/model';
import { defined, sourceRef, type ImportContext } from '../../trajectory/importContext';
import { isObject } from '../../trajectory/fingerprints';
import { parseInput } from '../../trajectory/inputSchema';
import { SCAFFOLD_SENDER } from './exporter';
import { contentText } from '../../trajectory/chatSteps';
import { checkV1Event, conversationTree, type EventPlace, type V1Branch, type V1Event } from './events';

/** The parts of `base_state.json` the workbench reads. */
const BaseStateSchema = z.looseObject({
  id: z.string().nullish(),
  agent: z
    .looseObject({ llm: z.looseObject({ model: z.string().nullish() }).nullish(), tools: z.array(z.looseObject({ name: z.string() })).nullish() })
    .nullish(),
  workspace: z.looseObject({ working_dir: z.string().nullish() }).nullish(),
  execution_status: z.string().nullish(),
  leaf_event_id: z.string().nullish(),
  stats: z.unknown().optional(),
});
type BaseState = z.infer<typeof BaseStateSchema>;

/**
 * A persisted conversation folder as the loader gathers it (`format.ts`): the state, the events
 * in their files' order, and each event's file (relative to the folder), for errors.
 */
export interface GatheredConversation {
  base_state?: unknown;
  events: unknown[];
  event_files: string[];
}

export function isGatheredConversation(value: unknown): value is GatheredConversation {
  return isObject(value) && Array.isArray(value.events) && Array.isArray(value.event_files);
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function argumentsOf(e: V1Event): Record<string, unknown> {
  const text = e.tool_call?.arguments;
  if (typeof text === 'string') {
    try {
      const value: unknown = JSON.parse(text);
      if (isObject(value)) return value;
    } catch {
      // Arguments the model wrote badly: the action (validated by the SDK) is what ran, if anything did.
    }
  }
  if (e.action) {
    const { kind: _kind, ...fields } = e.action;
    return fields;
  }
  return {};
}

/** What the model saw of an observation (the SDK's `to_llm_content`): the error header, then the tool's text. */
function observationText(e: V1Event): string {
  if (e.kind === 'AgentErrorEvent') return e.error ?? '';
  if (e.kind === 'UserRejectObservation') return `Action rejected: ${e.rejection_reason ?? ''}`;
  const o = e.observation;
  if (!o) return '';
  const body = contentText(o.content);
  const header = o.is_error ? '[An error occurred during execution.]\n' : '';
  if (o.kind === 'TerminalObservation') return header + terminalText(o as Record<string, unknown>, body);
  return header + body;
}

const MetadataSchema = z.looseObject({
  exit_code: z.number().nullish(),
  working_dir: z.string().nullish(),
  py_interpreter_path: z.string().nullish(),
  prefix: z.string().nullish(),
  suffix: z.string().nullish(),
});

/** TerminalObservation's `to_llm_content`: the output between the PS1 metadata's prefix and suffix, then the working directory, interpreter and exit code. */
function terminalText(o: Record<string, unknown>, body: string): string {
  const parsed = MetadataSchema.safeParse(o.metadata ?? {});
  const m = parsed.success ? parsed.data : {};
  let text = `${m.prefix ?? ''}${body}${m.suffix ?? ''}`;
  if (m.working_dir) text += `\n[Current working directory: ${m.working_dir}]`;
  if (m.py_interpreter_path) text += `\n[Python interpreter: ${m.py_interpreter_path}]`;
  const exit = m.exit_code ?? -1;
  if (exit !== -1) text += `\n[Command finished with exit code ${exit}]`;
  return text;
}

function exitCodeOf(e: V1Event | undefined): number | undefined {
  const o = e?.observation as Record<string, unknown> | null | undefined;
  if (!o) return undefined;
  if (typeof o.exit_code === 'number' && o.exit_code !== -1) return o.exit_code;
  const m = MetadataSchema.safeParse(o.metadata ?? {});
  return m.success && typeof m.data.exit_code === 'number' && m.data.exit_code !== -1 ? m.data.exit_code : undefined;
}

/** The action as it reads in a list: a terminal's command, a message's text, else the call's JSON. */
function rawOf(e: V1Event, args: Record<string, unknown>): string {
  if (e.tool_name === 'terminal' && typeof args.command === 'string') return args.command;
  if (e.tool_name === 'finish' && typeof args.message === 'string') return args.message;
  if (e.tool_name === 'think' && typeof args.thought === 'string') return args.thought;
  return e.tool_call?.arguments ?? JSON.stringify(args);
}

const ANSWER_KINDS = new Set(['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation']);

/** The steps of one branch; `at(i)` is the JSON path of event `i` in the parsed value. */
function branchSteps(events: ReadonlyArray<V1Event>, branch: V1Branch, ctx: ImportContext, at: (i: number) => Array<string | number>): Step[] {
  const onBranch = branch.events;
  const answers = new Map<string, number>();
  for (const i of onBranch) {
    const e = events[i]!;
    if (ANSWER_KINDS.has(e.kind) && e.tool_call_id && !answers.has(e.tool_call_id)) answers.set(e.tool_call_id, i);
  }
  const steps: Step[] = [];
  let pendingTokens: V1Event | undefined;
  for (let k = 0; k < onBranch.length; k++) {
    const i = onBranch[k]!;
    const e = events[i]!;
    if (e.kind === 'TokenEvent') {
      pendingTokens = e;
      continue;
    }
    let step: Step | undefined;
    if (e.kind === 'ActionEvent') {
      // Parallel tool calls of one response are consecutive ActionEvents sharing its id: one step.
      const batch = [i];
      while (k + 1 < onBranch.length) {
        const next = events[onBranch[k + 1]!]!;
        if (next.kind !== 'ActionEvent' || !e.llm_response_id || next.llm_response_id !== e.llm_response_id) break;
        batch.push(onBranch[++k]!);
      }
      const calls: ToolCallResult[] = [];
      const pointers: Array<Array<string | number>> = [];
      let formatError: string | undefined;
      let exitCode: number | undefined;
      for (const b of batch) {
        const a = events[b]!;
        const args = argumentsOf(a);
        const answer = a.tool_call_id ? answers.get(a.tool_call_id) : undefined;
        const answerEvent = answer === undefined ? undefined : events[answer];
        pointers.push(at(b));
        if (answer !== undefined) pointers.push(at(answer));
        // An action the SDK could not build (unknown tool, bad arguments) ran nothing; its AgentErrorEvent says why.
        if (!a.action && answerEvent?.kind === 'AgentErrorEvent') formatError ??= answerEvent.error ?? undefined;
        exitCode ??= exitCodeOf(answerEvent);
        calls.push({
          action: defined({ raw: rawOf(a, args), tool: a.tool_name ?? null, args, toolCallId: a.tool_call_id ?? undefined }),
          observation: answerEvent ? observationText(answerEvent) : '',
        });
      }
      step = defined({
        index: steps.length,
        thought: contentText(e.thought),
        reasoning: e.reasoning_content || undefined,
        action: calls[0]!.action,
        observation: calls.map((c) => c.observation).join('\n'),
        calls: calls.length > 1 ? calls : undefined,
        exitCode,
        formatError,
        timestamp: e.timestamp ?? undefined,
        source: sourceRef(ctx, ...pointers),
      }) as Step;
    } else if (e.kind === 'MessageEvent' && e.source === 'agent') {
      // A reply that called no tool (the agent talking to the user, which ends its turn): no action,
      // as every chat format keeps such a reply; what the user wrote back is what it got.
      const text = contentText(e.llm_message?.content);
      const replies: number[] = [];
      while (k + 1 < onBranch.length) {
        const next = events[onBranch[k + 1]!]!;
        if (next.kind !== 'MessageEvent' || next.source !== 'user') break;
        replies.push(onBranch[++k]!);
      }
      step = defined({
        index: steps.length,
        thought: text,
        reasoning: e.llm_message?.reasoning_content || undefined,
        action: { raw: '', tool: null, args: {} },
        observation: replies.map((r) => contentText(events[r]!.llm_message?.content)).join('\n'),
        timestamp: e.timestamp ?? undefined,
        source: sourceRef(ctx, at(i), ...replies.map(at)),
      }) as Step;
    }
    if (!step) continue;
    if (pendingTokens) {
      step.tokenIds = defined({ prompt: pendingTokens.prompt_token_ids ?? undefined, completion: pendingTokens.response_token_ids ?? undefined });
      pendingTokens = undefined;
    }
    steps.push(step);
  }
  return steps;
}

function sharedPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** How many of `events` (the start of a branch) hold steps: the steps a fork shares with the active branch. */
function stepsIn(events: ReadonlyArray<V1Event>, prefix: readonly number[], ctx: ImportContext, at: (i: number) => Array<string | number>): number {
  return branchSteps(events, { leaf: '', events: [...prefix] }, ctx, at).length;
}

interface Reading {
  events: V1Event[];
  state?: BaseState;
  /** The JSON path of event `i` in the parsed value. */
  at: (i: number) => Array<string | number>;
  place: (i: number) => EventPlace;
  stateFile?: string;
}

function readValue(value: unknown, ctx: ImportContext): Reading {
  if (isGatheredConversation(value)) {
    const folder = ctx.file;
    const place = (i: number): EventPlace => ({ file: `${folder}/${value.event_files[i] ?? `events[${i}]`}` });
    const stateFile = `${folder}/base_state.json`;
    const state = value.base_state === undefined ? undefined : parseInput(BaseStateSchema, value.base_state, stateFile);
    return { events: value.events.map((e, i) => checkV1Event(e, place(i))), ...(state ? { state } : {}), at: (i) => ['events', i], place, stateFile };
  }
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.items) ? value.items : undefined;
  if (!list) throw new InputError(ctx.file, '$', 'expected a list of OpenHands V1 events, or an object with one in `items`');
  const base: Array<string | number> = Array.isArray(value) ? [] : ['items'];
  const lines = ctx.lines;
  const place = (i: number): EventPlace =>
    lines ? { file: ctx.file, line: lines[i]! } : { file: ctx.file, ...(ctx.line === undefined ? {} : { line: ctx.line }) };
  const events = list.map((e, i) => {
    try {
      return checkV1Event(e, place(i));
    } catch (err) {
      // In one JSON document the event's own path says where it is.
      if (!lines && err instanceof InputError)
        throw new InputError(ctx.file, err.where?.replace(/^(line \d+: )?\$/, `$1$${base.map((p) => `.${p}`).join('')}[${i}]`), err.problem);
      throw err;
    }
  });
  return { events, at: (i) => [...base, i], place };
}

/**
 * The event a branch asked for (`ImportContext.branch`) ends at: any event of the tree, as the
 * SDK's `leaf_event_id` may be; an id that is none says which branches there are.
 */
function branchEvent(events: ReadonlyArray<V1Event>, inUse: ReturnType<typeof conversationTree>, ctx: ImportContext): string {
  const id = ctx.branch!;
  if (events.some((e) => e.id === id)) return id;
  const leaves = [`${inUse.active.leaf} (in use)`, ...inUse.forks.map((f) => f.leaf)];
  throw new InputError(ctx.file, undefined, `no event of the conversation has the id '${id}': its branches end at ${leaves.join(', ')}`);
}

export function importOpenHandsV1(value: unknown, ctx: ImportContext): Trajectory {
  const { events, state, at, place, stateFile } = readValue(value, ctx);
  const inUse = conversationTree(events, state?.leaf_event_id ?? undefined, place, stateFile);
  const tree = ctx.branch === undefined ? inUse : conversationTree(events, branchEvent(events, inUse, ctx), place);
  const steps = branchSteps(events, tree.active, ctx, at);
  const active = tree.active.events.map((i) => events[i]!);
  const system = active.find((e) => e.kind === 'SystemPromptEvent');
  const firstUser = active.find((e) => e.kind === 'MessageEvent' && e.source === 'user');
  const finished = active.some((e) => e.kind === 'ActionEvent' && e.tool_name === 'finish' && e.action);
  const errors = active.filter(
    (e) => e.kind === 'ConversationErrorEvent' || (e.kind === 'AgentErrorEvent' && !steps.some((s) => s.action.toolCallId === e.tool_call_id)),
  );
  const lastError = errors[errors.length - 1];
  const forks = tree.forks.map((f) => {
    const shared = sharedPrefix(tree.active.events, f.events);
    return defined({
      id: f.leaf,
      sharedSteps: stepsIn(events, f.events.slice(0, shared), ctx, at),
      steps: branchSteps(events, f, ctx, at).length,
      inUse: tree !== inUse && f.leaf === inUse.active.leaf ? true : undefined,
    });
  });
  const meta: TrajectoryMeta = defined({
    parseFunction: 'function_calling',
    id: state?.id ?? undefined,
    model: state?.agent?.llm?.model ?? undefined,
    systemPrompt: system ? (system.system_prompt?.text ?? undefined) : undefined,
    instructions: firstUser ? contentText(firstUser.llm_message?.content) : undefined,
    createdAt: events[0]?.timestamp ?? undefined,
    scaffoldConfig: toolNames(state, system),
    scaffold: firstUser?.sender?.startsWith(SCAFFOLD_SENDER) ? firstUser.sender.slice(SCAFFOLD_SENDER.length) : undefined,
    forks: forks.length > 0 ? forks : undefined,
  });
  return {
    format: 'openhands-v1',
    task: defined({ repoPath: state?.workspace?.working_dir ?? undefined }),
    steps,
    outcome: defined({
      exitStatus: state?.execution_status ?? (finished ? 'finished' : undefined),
      error: lastError ? (lastError.error ?? lastError.detail ?? undefined) : undefined,
    }),
    meta,
  };
}

/** The tools the agent was given, by name: the state's `agent.tools`, else the system prompt event's. */
function toolNames(state: BaseState | undefined, system: V1Event | undefined): { tools: string[] } | undefined {
  const fromState = state?.agent?.tools?.map((t) => t.name);
  if (fromState && fromState.length > 0) return { tools: fromState };
  const fromPrompt = (system?.tools ?? []).flatMap((t) => {
    if (!isObject(t)) return [];
    const name = str(t.name) ?? str(t.title) ?? (isObject(t.function) ? str(t.function.name) : undefined);
    return name ? [name] : [];
  });
  return fromPrompt.length > 0 ? { tools: fromPrompt } : undefined;
}
