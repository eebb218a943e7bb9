import { z } from 'zod';
import type { Step, Trajectory } from '../../trajectory/model';
import { defined, sourceRef, type ImportContext } from '../../trajectory/importContext';
import { parseInput } from '../../trajectory/inputSchema';

const IdSchema = z.union([z.number(), z.string()]);

const EventSchema = z.looseObject({
  id: IdSchema,
  timestamp: z.string().nullish(),
  source: z.string().nullish(),
  message: z.string().nullish(),
  cause: IdSchema.nullish(),
  action: z.string().nullish(),
  observation: z.string().nullish(),
  args: z.record(z.string(), z.unknown()).nullish(),
  content: z.string().nullish(),
  extras: z.record(z.string(), z.unknown()).nullish(),
  tool_call_metadata: z
    .looseObject({ function_name: z.string().nullish(), tool_call_id: z.string().nullish(), model_response: z.unknown().optional() })
    .nullish(),
});
type Event = z.infer<typeof EventSchema>;

const EventsSchema = z.array(EventSchema);

const OutputLineSchema = z.looseObject({
  instance_id: z.string().nullish(),
  instruction: z.string().nullish(),
  history: EventsSchema,
  test_result: z.looseObject({ git_patch: z.string().nullish() }).nullish(),
  metadata: z
    .looseObject({
      llm_config: z.looseObject({ model: z.string().nullish() }).nullish(),
      agent_class: z.string().nullish(),
      details: z.looseObject({ scaffold: z.string().nullish() }).nullish(),
    })
    .nullish(),
  metrics: z.looseObject({ accumulated_cost: z.number().nullish() }).nullish(),
  error: z.string().nullish(),
  instance: z.looseObject({ repo: z.string().nullish(), base_commit: z.string().nullish(), problem_statement: z.string().nullish() }).nullish(),
});

/** What an observation says about the run's exit code (`run` keeps it in its metadata). */
const RunExtrasSchema = z.looseObject({ metadata: z.looseObject({ exit_code: z.number().nullish() }).nullish() });

const ModelResponseSchema = z.looseObject({
  choices: z.array(
    z.looseObject({
      message: z.looseObject({
        tool_calls: z.array(z.looseObject({ id: z.string().nullish(), function: z.looseObject({ arguments: z.string() }) })).nullish(),
      }),
    }),
  ),
});

// Bookkeeping the controller records as agent actions; none of them is the model acting.
const NOT_STEPS = new Set(['system', 'change_agent_state', 'recall', 'condensation', 'condensation_request']);

function isStep(e: Event): boolean {
  return e.source === 'agent' && typeof e.action === 'string' && !NOT_STEPS.has(e.action);
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The tool call's arguments exactly as the model sent them, when the response was kept. */
function modelArguments(e: Event): string | undefined {
  const meta = e.tool_call_metadata;
  const parsed = ModelResponseSchema.safeParse(meta?.model_response);
  if (!parsed.success) return undefined;
  const calls = parsed.data.choices.flatMap((c) => c.message.tool_calls ?? []);
  return calls.find((c) => c.id === meta?.tool_call_id)?.function.arguments;
}

function callArguments(e: Event): Record<string, unknown> {
  const text = modelArguments(e);
  if (text === undefined) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function rawOf(e: Event, args: Record<string, unknown>): string {
  switch (e.action) {
    case 'run':
    case 'run_ipython':
      return str(args.command) ?? str(args.code) ?? '';
    case 'message':
      return str(args.content) ?? e.message ?? '';
    case 'finish':
      return str(args.final_thought) ?? e.message ?? '';
    case 'think':
      return str(args.thought) ?? '';
    default:
      return modelArguments(e) ?? JSON.stringify(args);
  }
}

function exitCodeOf(observation: Event): number | undefined {
  const extras = RunExtrasSchema.safeParse(observation.extras ?? {});
  return extras.success ? (extras.data.metadata?.exit_code ?? undefined) : undefined;
}

function eventSteps(events: ReadonlyArray<Event>, ctx: ImportContext, path: ReadonlyArray<string | number>): Step[] {
  const observations = new Map<string, number[]>();
  events.forEach((e, i) => {
    if (e.observation == null || e.cause == null) return;
    const key = String(e.cause);
    const list = observations.get(key);
    if (list) list.push(i);
    else observations.set(key, [i]);
  });
  const steps: Step[] = [];
  events.forEach((e, i) => {
    if (!isStep(e)) return;
    const { thought, ...eventArgs } = e.args ?? {};
    // An editor action keeps the call the model made (command, file_text, old_str...) beside the event's fields, so it can run again.
    const args = e.action === 'edit' || e.action === 'read' ? { ...eventArgs, ...callArguments(e) } : eventArgs;
    const answers = observations.get(String(e.id)) ?? [];
    const texts = answers.map((a) => events[a]!.content ?? '');
    const first = answers[0] === undefined ? undefined : events[answers[0]]!;
    steps.push(
      defined({
        index: steps.length,
        thought: str(thought) ?? '',
        action: defined({ raw: rawOf(e, args), tool: e.action!, args, toolCallId: e.tool_call_metadata?.tool_call_id ?? undefined }),
        observation: texts.length === 1 ? texts[0]! : texts.join('\n'),
        exitCode: first && exitCodeOf(first),
        timestamp: e.timestamp ?? undefined,
        source: sourceRef(ctx, [...path, i], ...answers.map((a) => [...path, a])),
      }) as Step,
    );
  });
  return steps;
}

function outcomeOf(events: ReadonlyArray<Event>): { exitStatus?: string; error?: string } {
  const states = events.flatMap((e) => (e.observation === 'agent_state_changed' && typeof e.extras?.agent_state === 'string' ? [e.extras.agent_state] : []));
  const errors = events.filter((e) => e.observation === 'error');
  const finished = events.some((e) => e.source === 'agent' && e.action === 'finish');
  return defined({ exitStatus: finished ? 'finished' : states[states.length - 1], error: errors[errors.length - 1]?.content ?? undefined });
}

function trajectoryOf(events: ReadonlyArray<Event>, ctx: ImportContext, path: ReadonlyArray<string | number>): Trajectory {
  const firstUser = events.find((e) => e.source === 'user' && e.action === 'message');
  const system = events.find((e) => e.action === 'system');
  return {
    format: 'openhands',
    task: {},
    steps: eventSteps(events, ctx, path),
    outcome: outcomeOf(events),
    meta: defined({
      parseFunction: 'function_calling',
      instructions: firstUser ? (str(firstUser.args?.content) ?? firstUser.message ?? undefined) : undefined,
      systemPrompt: system ? (str(system.args?.content) ?? undefined) : undefined,
    }),
  };
}

/** An event of openhands-resolver's flat `history`: no id, source or cause; an action's arguments and an observation's extras sit beside its kind. */
const FlatEventSchema = z.union([
  z.looseObject({ action: z.string(), observation: z.undefined().optional() }),
  z.looseObject({ observation: z.string(), content: z.string().nullish() }),
]);

/** A line of openhands-resolver's `output.jsonl`: the issue, the instruction, the patch and the flat history. */
const ResolverLineSchema = z.looseObject({
  issue: z.looseObject({
    owner: z.string().nullish(),
    repo: z.string().nullish(),
    number: z.union([z.number(), z.string()]).nullish(),
    title: z.string().nullish(),
    body: z.string().nullish(),
  }),
  instruction: z.string().nullish(),
  base_commit: z.string().nullish(),
  git_patch: z.string().nullish(),
  history: z.array(FlatEventSchema),
  metrics: z.looseObject({ accumulated_cost: z.number().nullish() }).nullish(),
  error: z.string().nullish(),
});

/**
 * The flat history as events: each observation answers the latest action still unanswered; the
 * opening message (or one repeating the instruction) is the user's, every other action the agent's.
 */
function flatEvents(history: ReadonlyArray<z.infer<typeof FlatEventSchema>>, instruction: string | undefined): Event[] {
  const waiting: number[] = [];
  return history.map((raw, i) => {
    const { action, observation, ...fields } = raw as Record<string, unknown> & { action?: string; observation?: string };
    if (action !== undefined) {
      const user = action === 'message' && (i === 0 || (instruction !== undefined && fields.content === instruction));
      if (!user) waiting.push(i);
      return { id: i, source: user ? 'user' : 'agent', action, args: fields, message: str(fields.content) ?? null };
    }
    const { content, exit_code: exitCode, ...extras } = fields;
    return {
      id: i,
      source: 'environment',
      observation: observation!,
      cause: waiting.pop() ?? null,
      content: str(content) ?? '',
      extras: typeof exitCode === 'number' ? { ...extras, metadata: { exit_code: exitCode } } : extras,
    };
  });
}

/** Whether `value` is an openhands-resolver output line (its events have no ids). */
export function isResolverLine(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const o = value as Record<string, unknown>;
  return 'issue' in o && 'git_patch' in o && Array.isArray(o.history);
}

function importResolverLine(value: unknown, ctx: ImportContext): Trajectory {
  const line = parseInput(ResolverLineSchema, value, ctx.file, ctx.base);
  const t = trajectoryOf(flatEvents(line.history, line.instruction ?? undefined), ctx, ['history']);
  const { owner, repo, number, title, body } = line.issue;
  const repoName = owner && repo ? `${owner}/${repo}` : undefined;
  return {
    ...t,
    task: defined({
      instanceId: repoName && number != null ? `${repoName}#${number}` : undefined,
      repo: repoName,
      baseCommit: line.base_commit || undefined,
      problemStatement: [title, body].filter((p): p is string => typeof p === 'string' && p !== '').join('\n\n') || undefined,
    }),
    outcome: defined({
      ...t.outcome,
      submission: line.git_patch ?? undefined,
      error: line.error ?? t.outcome.error,
      modelStats: line.metrics?.accumulated_cost == null ? undefined : { instanceCost: line.metrics.accumulated_cost },
    }),
    meta: defined({ ...t.meta, instructions: line.instruction ?? t.meta.instructions }),
  };
}

/** An OpenHands event list, one line of an evaluation `output.jsonl` (events in `history`), or of openhands-resolver's. */
export function importOpenHands(value: unknown, ctx: ImportContext): Trajectory {
  if (Array.isArray(value)) return trajectoryOf(parseInput(EventsSchema, value, ctx.file, ctx.base), ctx, []);
  if (isResolverLine(value)) return importResolverLine(value, ctx);
  const line = parseInput(OutputLineSchema, value, ctx.file, ctx.base);
  const t = trajectoryOf(line.history, ctx, ['history']);
  const instance = line.instance;
  return {
    ...t,
    task: defined({
      instanceId: line.instance_id ?? undefined,
      repo: instance?.repo ?? undefined,
      baseCommit: instance?.base_commit ?? undefined,
      problemStatement: instance?.problem_statement ?? undefined,
    }),
    outcome: defined({
      ...t.outcome,
      submission: line.test_result?.git_patch ?? undefined,
      error: line.error ?? t.outcome.error,
      modelStats: line.metrics?.accumulated_cost == null ? undefined : { instanceCost: line.metrics.accumulated_cost },
    }),
    meta: defined({
      ...t.meta,
      model: line.metadata?.llm_config?.model ?? undefined,
      instructions: line.instruction ?? t.meta.instructions,
      scaffold: line.metadata?.details?.scaffold ?? undefined,
    }),
  };
}
