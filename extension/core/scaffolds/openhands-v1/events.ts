/**
 * OpenHands V1 (software-agent-sdk) events as its conversations persist them: one JSON object
 * per event, discriminated by `kind`, each with an `id` and, since the conversation became a
 * tree, a `parent_id` (`__root__` for a root made after the first event; missing on events that
 * predate the tree, whose parent is then the event before them). The schemas are loose: an event
 * keeps every field the SDK writes, and only what the workbench reads is checked.
 */
import { z } from 'zod';
import { InputError } from '../../errors';
import { isObject } from '../../trajectory/fingerprints';
import { parseInput } from '../../trajectory/inputSchema';
import { ChatContentSchema } from '../../trajectory/chatSteps';

/** The reserved `parent_id` of a root created after the first event (`ROOT_PARENT_ID` in the SDK). */
const ROOT_PARENT_ID = '__root__';

const TextContentSchema = z.looseObject({ type: z.string().nullish(), text: z.string().nullish() });

const ToolCallSchema = z.looseObject({ id: z.string().nullish(), name: z.string().nullish(), arguments: z.string().nullish() });

const V1EventSchema = z.looseObject({
  kind: z.string(),
  id: z.string(),
  timestamp: z.string().nullish(),
  source: z.string().nullish(),
  parent_id: z.string().nullish(),
  // ActionEvent
  thought: ChatContentSchema,
  reasoning_content: z.string().nullish(),
  action: z.record(z.string(), z.unknown()).nullish(),
  tool_name: z.string().nullish(),
  tool_call_id: z.string().nullish(),
  tool_call: ToolCallSchema.nullish(),
  llm_response_id: z.string().nullish(),
  summary: z.string().nullish(),
  // ObservationEvent, UserRejectObservation, AgentErrorEvent
  observation: z.looseObject({ kind: z.string().nullish(), content: ChatContentSchema, is_error: z.boolean().nullish() }).nullish(),
  action_id: z.string().nullish(),
  rejection_reason: z.string().nullish(),
  error: z.string().nullish(),
  // MessageEvent
  llm_message: z
    .looseObject({
      role: z.string().nullish(),
      content: ChatContentSchema,
      tool_calls: z.array(ToolCallSchema).nullish(),
      reasoning_content: z.string().nullish(),
    })
    .nullish(),
  sender: z.string().nullish(),
  // SystemPromptEvent
  system_prompt: TextContentSchema.nullish(),
  tools: z.array(z.unknown()).nullish(),
  // TokenEvent
  prompt_token_ids: z.array(z.number().int()).nullish(),
  response_token_ids: z.array(z.number().int()).nullish(),
  // ConversationErrorEvent
  code: z.string().nullish(),
  detail: z.string().nullish(),
});
export type V1Event = z.infer<typeof V1EventSchema>;

/** The event kinds the SDK writes (`openhands.sdk.event`); one of them in `kind` marks a V1 event. */
const V1_EVENT_KINDS: ReadonlySet<string> = new Set([
  'ActionEvent',
  'ObservationEvent',
  'MessageEvent',
  'SystemPromptEvent',
  'AgentErrorEvent',
  'UserRejectObservation',
  'TokenEvent',
  'PauseEvent',
  'Condensation',
  'CondensationRequest',
  'CondensationSummaryEvent',
  'ConversationStateUpdateEvent',
  'ConversationErrorEvent',
  'LLMCompletionLogEvent',
  'HookExecutionEvent',
  'UserActionEvent',
  'ACPToolCallEvent',
  'StreamingDeltaEvent',
  'ResumeTranscriptEvent',
]);

/** Whether a value is one V1 event: an object with an `id` and a `kind` the SDK writes. */
export function isV1Event(value: unknown): boolean {
  return isObject(value) && typeof value.id === 'string' && typeof value.kind === 'string' && V1_EVENT_KINDS.has(value.kind);
}

/** Where one event was read: its own file (a persisted conversation), or a line of a JSONL file. */
export interface EventPlace {
  file: string;
  line?: number;
}

/** An error at `path` inside the event read at `place`. */
function eventError(place: EventPlace, path: string, problem: string): InputError {
  return new InputError(place.file, place.line === undefined ? path : `line ${place.line}: ${path}`, problem);
}

/** Checks one event where it was read, so a broken one is named by its file (or line) and JSON path. */
export function checkV1Event(value: unknown, place: EventPlace): V1Event {
  try {
    return parseInput(V1EventSchema, value, undefined);
  } catch (err) {
    if (err instanceof InputError) throw eventError(place, err.where ?? '$', err.problem);
    throw err;
  }
}

/** Events that are not nodes of the tree (the SDK skips them when it resolves the leaf). */
const NOT_TREE_NODES = new Set(['ConversationStateUpdateEvent', 'ConversationErrorEvent']);

/** One branch of the conversation: its events in order (indexes into the event list), root first. */
export interface V1Branch {
  /** The id of the branch's last event. */
  leaf: string;
  events: number[];
}

interface V1Tree {
  /** The branch in use: up from `leaf_event_id`, or from the last event when the state names none. */
  active: V1Branch;
  /** The other branches, each ending at a leaf no other event continues, in the order their leaves were written. */
  forks: V1Branch[];
}

/**
 * The effective parent of each event, the SDK's rule (`EventLog._effective_parent_id`): an
 * explicit `parent_id`, none for `__root__`, else the event before it (legacy events).
 */
function parentOf(events: ReadonlyArray<V1Event>, i: number): string | undefined {
  const e = events[i]!;
  if (e.parent_id === ROOT_PARENT_ID) return undefined;
  if (e.parent_id) return e.parent_id;
  return i === 0 ? undefined : events[i - 1]!.id;
}

function pathToRoot(events: ReadonlyArray<V1Event>, byId: ReadonlyMap<string, number>, leaf: string, place: (i: number) => EventPlace): number[] {
  const chain: number[] = [];
  const seen = new Set<string>();
  let cur: string | undefined = leaf;
  while (cur !== undefined) {
    const at = byId.get(cur);
    if (at === undefined) {
      // Only a leaf found among the events starts a walk, so a missing one is always some event's parent.
      throw eventError(place(chain[chain.length - 1]!), '$.parent_id', `no event has the id '${cur}'`);
    }
    if (seen.has(cur)) throw eventError(place(at), '$.parent_id', `the events' parents form a cycle at '${cur}'`);
    seen.add(cur);
    chain.push(at);
    cur = parentOf(events, at);
  }
  return chain.reverse();
}

/**
 * The conversation's tree: the active branch (the SDK's `active_branch`) and the other leaves'
 * branches. `place(i)` is where event `i` was read, for errors; `stateFile` where `leafEventId` was.
 */
export function conversationTree(
  events: ReadonlyArray<V1Event>,
  leafEventId: string | undefined,
  place: (i: number) => EventPlace,
  stateFile?: string,
): V1Tree {
  const byId = new Map<string, number>();
  events.forEach((e, i) => {
    const first = byId.get(e.id);
    if (first !== undefined) throw eventError(place(i), '$.id', `the event id '${e.id}' is used twice (first by event ${first + 1})`);
    byId.set(e.id, i);
  });
  const nodes = events.flatMap((e, i) => (NOT_TREE_NODES.has(e.kind) ? [] : [i]));
  // A node continued by another node, through the state updates between them: a legacy log chains
  // each event to the one before it, a state update included, and is one line, not a tree.
  const hasChild = new Set<string>();
  for (const i of nodes) {
    const seen = new Set<string>();
    let p = parentOf(events, i);
    while (p !== undefined && !seen.has(p)) {
      seen.add(p);
      hasChild.add(p);
      const at = byId.get(p);
      if (at === undefined || !NOT_TREE_NODES.has(events[at]!.kind)) break;
      p = parentOf(events, at);
    }
  }
  let activeLeaf = leafEventId;
  if (activeLeaf !== undefined && !byId.has(activeLeaf))
    throw new InputError(stateFile, '$.leaf_event_id', `event '${activeLeaf}' is not one of the conversation's ${events.length} events`);
  activeLeaf ??= nodes.length > 0 ? events[nodes[nodes.length - 1]!]!.id : undefined;
  const active: V1Branch = activeLeaf === undefined ? { leaf: '', events: [] } : { leaf: activeLeaf, events: pathToRoot(events, byId, activeLeaf, place) };
  const forks = nodes
    .filter((i) => !hasChild.has(events[i]!.id) && events[i]!.id !== activeLeaf)
    .map((i) => ({ leaf: events[i]!.id, events: pathToRoot(events, byId, events[i]!.id, place) }));
  return { active, forks };
}
