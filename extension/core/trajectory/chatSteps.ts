import { z } from 'zod';
import type { Step } from './model';
import { argumentsText, toolCallAction, type ParsedAction } from './actionText';
import { defined, sourceRef, type ImportContext } from './importContext';

const ContentPartSchema = z.looseObject({ type: z.string().optional(), text: z.string().optional() });
export const ChatContentSchema = z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional();

export const ToolCallSchema = z.looseObject({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }),
});

export const ChatMessageSchema = z.looseObject({
  role: z.string(),
  content: ChatContentSchema,
  tool_calls: z.array(ToolCallSchema).nullish(),
  tool_call_id: z.string().nullish(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The text of a message; multi-part content (text + images) keeps its text parts. */
export function contentText(content: z.infer<typeof ChatContentSchema>): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content.map((part) => part.text ?? '').join('');
}

/**
 * Messages by index: an array, or a reader's small stand-ins with the messages one step reads
 * put over them (`core/trajectory/stepSource.ts`), which spares copying the whole list per step.
 */
export interface MessageList<M> {
  readonly length: number;
  at(index: number): M | undefined;
}

/** The messages of `list` as an array (a copy: for what reads them once, a run's header). */
export function messageArray<M>(list: MessageList<M>): M[] {
  return Array.from({ length: list.length }, (_, index) => list.at(index)!);
}

/** `base` with `over`'s messages in place of theirs. */
export function overlaid<M>(base: ReadonlyArray<M>, over: ReadonlyMap<number, M>): MessageList<M> {
  return { length: base.length, at: (index) => over.get(index) ?? base[index] };
}

/** A call the assistant made, plus the thought that goes with the message. */
export interface MessageActions {
  calls: ParsedAction[];
  thought: string;
}

/** Facts a follower message (tool result, user reply) adds to its step. */
export interface FollowerFacts {
  exitCode?: number;
  formatError?: string;
  timestamp?: string;
}

export interface ChatStepHooks<M extends ChatMessage> {
  /** The calls of an assistant message; the default reads `tool_calls`. */
  actionsOf?: (message: M) => MessageActions | undefined;
  followerFacts?: (message: M) => FollowerFacts;
  /** Messages to leave out entirely (SWE-agent's demonstrations); `messages` and `index` place the message among its neighbours. */
  skip?: (message: M, index: number, messages: ReadonlyArray<M>) => boolean;
}

function toolCallActions(message: ChatMessage): MessageActions | undefined {
  if (!message.tool_calls || message.tool_calls.length === 0) return undefined;
  return {
    thought: contentText(message.content),
    calls: message.tool_calls.map((call) => toolCallAction(call.function.name, argumentsText(call.function.arguments), call.id ?? undefined)),
  };
}

/** An assistant message (its index) and the messages that follow it until the next one. */
export interface ChatTurn {
  at: number;
  followers: number[];
}

/**
 * Indices of the messages before the first assistant turn, and the turns themselves: read from
 * the roles (and what `skip` reads) alone, so a reader of a byte index can find them from small
 * stand-ins of the messages.
 */
export function turnsOf<M extends ChatMessage>(
  messages: ReadonlyArray<M>,
  skip?: (message: M, index: number, messages: ReadonlyArray<M>) => boolean,
): { preamble: number[]; turns: ChatTurn[] } {
  const preamble: number[] = [];
  const turns: ChatTurn[] = [];
  messages.forEach((m, i) => {
    if (skip?.(m, i, messages)) return;
    if (m.role === 'assistant') turns.push({ at: i, followers: [] });
    else if (turns.length > 0) turns[turns.length - 1]!.followers.push(i);
    else preamble.push(i);
  });
  return { preamble, turns };
}

/** The system prompt and first user message that precede the agent's first turn. */
export function preambleOf<M extends ChatMessage>(
  messages: ReadonlyArray<M>,
  skip?: (message: M) => boolean,
): { systemPrompt?: string; instructions?: string } {
  const { preamble } = turnsOf(messages, skip);
  const system = preamble.map((i) => messages[i]!).find((m) => m.role === 'system');
  const user = preamble.map((i) => messages[i]!).find((m) => m.role === 'user');
  return defined({ systemPrompt: system && contentText(system.content), instructions: user && contentText(user.content) });
}

/** Several calls' results as one step's observation, in call order. */
export function joinObservations(parts: string[]): string {
  return parts.length === 1 ? parts[0]! : parts.join('\n');
}

/**
 * One step per assistant message. Tool calls pair with tool messages by `tool_call_id`; calls
 * without an id (text scaffolds) take the messages that follow until the next assistant turn.
 */
export function chatSteps<M extends ChatMessage>(
  messages: ReadonlyArray<M>,
  path: ReadonlyArray<string | number>,
  ctx: ImportContext,
  hooks: ChatStepHooks<M> = {},
): Step[] {
  const { turns } = turnsOf(messages, hooks.skip);
  return turns.map((turn, index) => chatStep(messages, turn, index, path, ctx, hooks));
}

/** Step `index`, made from `turn`: only the messages of the turn are read from `messages`. */
export function chatStep<M extends ChatMessage>(
  messages: MessageList<M>,
  turn: ChatTurn,
  index: number,
  path: ReadonlyArray<string | number>,
  ctx: ImportContext,
  hooks: ChatStepHooks<M> = {},
): Step {
  const message = messages.at(turn.at)!;
  const read = hooks.actionsOf?.(message) ?? toolCallActions(message) ?? { thought: contentText(message.content), calls: [] };
  const unclaimed = new Set(turn.followers);
  // The followers by the call they answer, each list taken in order: one pass, however many calls a message makes.
  const answers = new Map<string, { at: number[]; next: number }>();
  for (const f of turn.followers) {
    const id = messages.at(f)!.tool_call_id;
    if (id == null) continue;
    const list = answers.get(id);
    if (list) list.at.push(f);
    else answers.set(id, { at: [f], next: 0 });
  }
  const results = read.calls.map((call) => {
    const id = call.action.toolCallId;
    const list = id === undefined ? undefined : answers.get(id);
    const match = list?.at[list.next++];
    if (match === undefined) return undefined;
    unclaimed.delete(match);
    return match;
  });
  const rest = [...unclaimed];
  const observations = results.map((r) => (r === undefined ? '' : contentText(messages.at(r)!.content)));
  if (rest.length > 0) {
    const text = joinObservations(rest.map((f) => contentText(messages.at(f)!.content)));
    const firstUnpaired = results.indexOf(undefined);
    if (firstUnpaired !== -1) observations[firstUnpaired] = text;
    else observations.push(text);
  }
  const facts = turn.followers.map((f) => hooks.followerFacts?.(messages.at(f)!) ?? {});
  const formatErrors = [...read.calls.map((c) => c.formatError), ...facts.map((f) => f.formatError)].filter((e): e is string => e !== undefined);
  const first = read.calls[0]?.action ?? { raw: '', tool: null, args: {} };
  return defined({
    index,
    thought: read.thought,
    action: first,
    observation: observations.length === 1 ? observations[0]! : joinObservations(observations.filter((o) => o !== '')),
    calls: read.calls.length > 1 ? read.calls.map((c, k) => ({ action: c.action, observation: observations[k] ?? '' })) : undefined,
    exitCode: facts.map((f) => f.exitCode).find((c) => c !== undefined),
    timestamp: facts.map((f) => f.timestamp).find((t) => t !== undefined),
    formatError: formatErrors.length > 0 ? formatErrors.join('; ') : undefined,
    source: sourceRef(ctx, [...path, turn.at], ...turn.followers.map((f) => [...path, f])),
  }) as Step;
}
