import { z } from 'zod';
import type { Action, Step, ToolCallResult, Trajectory, TrajectoryMeta } from '../model';
import { joinObservations, type MessageActions } from '../chatSteps';
import { textCallFormat, type TextCallReading } from '../textCalls';
import { defined, sourceRef, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

/**
 * Harbor's Agent Trajectory Interchange Format (RFC 0001, v1.0 to v1.6). The schema holds the
 * RFC's rules as Harbor's validator applies them: every object closed to fields the RFC does not
 * name (custom data goes in `extra`), step ids counting from 1, a result's `source_call_id`
 * naming a call of its own step, fields only an agent step may carry, text and image parts.
 */

const ATIF_VERSIONS = ['ATIF-v1.0', 'ATIF-v1.1', 'ATIF-v1.2', 'ATIF-v1.3', 'ATIF-v1.4', 'ATIF-v1.5', 'ATIF-v1.6'] as const;
/** The version the RFC's current text defines and Harbor assumes when a file names none. */
export const ATIF_LATEST = 'ATIF-v1.6';

/** An object the RFC closes: a field it does not name is refused, the way Harbor's models forbid extras. */
function closed<T extends z.core.$ZodLooseShape>(shape: T, what: string) {
  const fields = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? `not a field of ATIF's ${what} (it has ${fields}; anything else belongs in extra)` : undefined),
  });
}

const Extra = z.record(z.string(), z.unknown()).nullish();
const Int = z.number().int();

/** What Python's `datetime.fromisoformat` reads once `Z` is spelled `+00:00`, as Harbor checks a step's timestamp. */
const ISO_8601 =
  /^(?:(\d{4})-(\d{2})-(\d{2})|(\d{4})(\d{2})(\d{2})|\d{4}-?W\d{2}(?:-?[1-7])?)(?:.(\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2}(?::?\d{2}(?:\.\d+)?)?)?)?)?$/su;

/** Whether Harbor would take `text` as a step's timestamp. */
export function isIsoTimestamp(text: string): boolean {
  const m = ISO_8601.exec(text);
  if (!m) return false;
  const [year, month, day] = [m[1] ?? m[4], m[2] ?? m[5], m[3] ?? m[6]].map(Number);
  if (month !== undefined && !Number.isNaN(month)) {
    const date = new Date(Date.UTC(year!, month - 1, day!));
    if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  }
  const [hour, minute, second] = [m[7], m[8], m[9]].map((v) => (v === undefined ? 0 : Number(v)));
  return hour! < 24 && minute! < 60 && second! < 60;
}

const ImageSourceSchema = closed(
  {
    media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']),
    path: z.string(),
  },
  'image source',
);

const ContentPartSchema = closed(
  {
    type: z.enum(['text', 'image']),
    text: z.string().nullish(),
    source: ImageSourceSchema.nullish(),
  },
  'content part',
).superRefine((part, ctx) => {
  if (part.type === 'text' && part.text == null) ctx.addIssue({ code: 'custom', path: ['text'], message: "a text part needs 'text'" });
  if (part.type === 'text' && part.source != null) ctx.addIssue({ code: 'custom', path: ['source'], message: "a text part may not have 'source'" });
  if (part.type === 'image' && part.source == null)
    ctx.addIssue({ code: 'custom', path: ['source'], message: "an image part needs 'source' (media_type and path)" });
  if (part.type === 'image' && part.text != null) ctx.addIssue({ code: 'custom', path: ['text'], message: "an image part may not have 'text'" });
});
type ContentPart = z.infer<typeof ContentPartSchema>;

const ContentSchema = z.union([z.string(), z.array(ContentPartSchema)]);

const SubagentRefSchema = closed({ session_id: z.string(), trajectory_path: z.string().nullish(), extra: Extra }, 'subagent trajectory reference');

const ObservationResultSchema = closed(
  {
    source_call_id: z.string().nullish(),
    content: ContentSchema.nullish(),
    subagent_trajectory_ref: z.array(SubagentRefSchema).nullish(),
  },
  'observation result',
);
type ObservationResult = z.infer<typeof ObservationResultSchema>;

const ToolCallSchema = closed(
  {
    tool_call_id: z.string(),
    function_name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
  },
  'tool call',
);

const MetricsSchema = closed(
  {
    prompt_tokens: Int.nullish(),
    completion_tokens: Int.nullish(),
    cached_tokens: Int.nullish(),
    cost_usd: z.number().nullish(),
    prompt_token_ids: z.array(Int).nullish(),
    completion_token_ids: z.array(Int).nullish(),
    logprobs: z.array(z.number()).nullish(),
    extra: Extra,
  },
  'metrics',
);

/** The fields the RFC allows only on a step whose source is "agent". */
const AGENT_ONLY = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'] as const;

const StepSchema = closed(
  {
    step_id: Int.min(1, { error: 'step ids count from 1' }),
    timestamp: z.string().refine(isIsoTimestamp, { error: 'not an ISO 8601 timestamp (e.g. 2025-10-11T10:30:00Z)' }).nullish(),
    source: z.enum(['system', 'user', 'agent']),
    model_name: z.string().nullish(),
    reasoning_effort: z.union([z.string(), z.number()]).nullish(),
    message: ContentSchema,
    reasoning_content: z.string().nullish(),
    tool_calls: z.array(ToolCallSchema).nullish(),
    observation: closed({ results: z.array(ObservationResultSchema) }, 'observation').nullish(),
    metrics: MetricsSchema.nullish(),
    is_copied_context: z.boolean().nullish(),
    extra: Extra,
  },
  'step',
).superRefine((step, ctx) => {
  if (step.source === 'agent') return;
  for (const field of AGENT_ONLY)
    if (step[field] != null)
      ctx.addIssue({ code: 'custom', path: [field], message: `only an agent step may have ${field}; this step's source is "${step.source}"` });
});
type AtifStep = z.infer<typeof StepSchema>;

const FinalMetricsSchema = closed(
  {
    total_prompt_tokens: Int.nullish(),
    total_completion_tokens: Int.nullish(),
    total_cached_tokens: Int.nullish(),
    total_cost_usd: z.number().nullish(),
    total_steps: Int.min(0, { error: 'total_steps cannot be negative' }).nullish(),
    extra: Extra,
  },
  'final_metrics',
);

const AgentSchema = closed(
  {
    name: z.string(),
    version: z.string(),
    model_name: z.string().nullish(),
    tool_definitions: z.array(z.record(z.string(), z.unknown())).nullish(),
    extra: Extra,
  },
  'agent',
);

const AtifSchema = closed(
  {
    schema_version: z.enum(ATIF_VERSIONS).optional(),
    session_id: z.string(),
    agent: AgentSchema,
    steps: z.array(StepSchema).min(1, { error: 'an ATIF trajectory has at least one step' }),
    notes: z.string().nullish(),
    final_metrics: FinalMetricsSchema.nullish(),
    continued_trajectory_ref: z.string().nullish(),
    extra: Extra,
  },
  'trajectory',
).superRefine((t, ctx) => {
  t.steps.forEach((step, i) => {
    if (step.step_id !== i + 1)
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'step_id'], message: `expected ${i + 1} (step ids are sequential from 1), got ${step.step_id}` });
    const ids = new Set((step.tool_calls ?? []).map((c) => c.tool_call_id));
    step.observation?.results.forEach((r, k) => {
      if (r.source_call_id != null && !ids.has(r.source_call_id))
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'observation', 'results', k, 'source_call_id'],
          message: `'${r.source_call_id}' names no tool call of step ${step.step_id} (${ids.size === 0 ? 'it has none' : `its calls are ${[...ids].join(', ')}`})`,
        });
    });
  });
});

/** Text and images as text: an image is its placeholder with its path, never its bytes. */
function contentText(content: string | ContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : `[image: ${part.source!.path} (${part.source!.media_type})]`)).join('\n');
}

function resultText(result: ObservationResult): string {
  const refs = (result.subagent_trajectory_ref ?? []).map(
    (ref) => `[subagent trajectory: session ${ref.session_id}${ref.trajectory_path == null ? '' : `, ${ref.trajectory_path}`}]`,
  );
  return [contentText(result.content), ...refs].filter((t) => t !== '').join('\n');
}

const NO_ACTION: Action = { raw: '', tool: null, args: {} };

/** Each call with its result: by `source_call_id`, then results naming no call in order to calls still without one. */
function pairResults(step: AtifStep): { calls: ToolCallResult[]; rest: string[] } {
  const results = step.observation?.results ?? [];
  const calls = (step.tool_calls ?? []).map((c) => ({
    action: { raw: JSON.stringify(c.arguments), tool: c.function_name, args: c.arguments, toolCallId: c.tool_call_id } as Action,
    texts: results.filter((r) => r.source_call_id === c.tool_call_id).map(resultText),
  }));
  const unnamed = results.filter((r) => r.source_call_id == null).map(resultText);
  for (const call of calls) if (call.texts.length === 0 && unnamed.length > 0) call.texts.push(unnamed.shift()!);
  // More results than calls: the last call (or the step, when it made none) keeps the rest.
  if (calls.length > 0) calls[calls.length - 1]!.texts.push(...unnamed.splice(0));
  return { calls: calls.map((c) => ({ action: c.action, observation: joinObservations(c.texts.filter((t) => t !== '')) })), rest: unnamed };
}

const StepExtraSchema = z.looseObject({
  exit_code: z.number().optional().catch(undefined),
  execution_time: z.number().optional().catch(undefined),
  format_error: z.string().optional().catch(undefined),
  flags: z.array(z.string()).optional().catch(undefined),
});

/** What our own writer keeps in a step's `extra` (exit code, time, why the action was unreadable, flags); another producer's keys are left alone. */
function ownExtra(extra: Record<string, unknown> | null | undefined): Pick<Step, 'exitCode' | 'executionTime' | 'formatError'> & { flags?: string[] } {
  const e = StepExtraSchema.parse(extra ?? {});
  return defined({ exitCode: e.exit_code, executionTime: e.execution_time, formatError: e.format_error, flags: e.flags });
}

function flagsOf(step: AtifStep, own: string[]): string[] | undefined {
  const flags = [...own, ...(step.is_copied_context ? ['atif-copied-context'] : []), ...(ownExtra(step.extra).flags ?? [])];
  return flags.length > 0 ? flags : undefined;
}

/** An agent step's calls written in its message (no `tool_calls`), with the step's results as the first one's observation. */
function textCalls(step: AtifStep, read: MessageActions): { calls: ToolCallResult[]; formatError?: string } {
  const observation = joinObservations((step.observation?.results ?? []).map(resultText).filter((t) => t !== ''));
  const errors = read.calls.flatMap((c) => (c.formatError === undefined ? [] : [c.formatError]));
  return {
    calls: read.calls.map((c, k) => ({ action: c.action, observation: k === 0 ? observation : '' })),
    ...(errors.length > 0 ? { formatError: errors.join('; ') } : {}),
  };
}

function agentStep(step: AtifStep, index: number, path: number, ctx: ImportContext, text?: TextCallReading): Step {
  const read = text && !step.tool_calls?.length ? text.read(contentText(step.message)) : undefined;
  const written = read && textCalls(step, read);
  const { calls, rest } = written ? { calls: written.calls.filter((c) => c.action.tool !== null), rest: [written.calls[0]!.observation] } : pairResults(step);
  const m = step.metrics;
  const tokens = m && defined({ prompt: m.prompt_tokens ?? undefined, completion: m.completion_tokens ?? undefined, costUsd: m.cost_usd ?? undefined });
  const ids = m && defined({ prompt: m.prompt_token_ids ?? undefined, completion: m.completion_token_ids ?? undefined });
  const first = calls[0];
  return defined({
    index,
    thought: read ? read.thought : contentText(step.message),
    reasoning: step.reasoning_content ?? undefined,
    action: first?.action ?? NO_ACTION,
    observation: calls.length > 1 ? joinObservations(calls.map((c) => c.observation).filter((o) => o !== '')) : (first?.observation ?? joinObservations(rest)),
    calls: calls.length > 1 ? calls : undefined,
    timestamp: step.timestamp ?? undefined,
    tokens: tokens && Object.keys(tokens).length > 0 ? tokens : undefined,
    // ATIF keeps no token text: a logprob's token is its id, when the ids are there.
    logprobs: m?.logprobs?.map((logprob, k) => ({ token: String(m.completion_token_ids?.[k] ?? ''), logprob })),
    tokenIds: ids && Object.keys(ids).length > 0 ? ids : undefined,
    sampling: step.reasoning_effort == null ? undefined : { reasoning_effort: step.reasoning_effort },
    ...ownExtra(step.extra),
    ...(written?.formatError !== undefined ? { formatError: written.formatError } : {}),
    flags: flagsOf(step, []),
    source: sourceRef(ctx, ['steps', path]),
  }) as Step;
}

/** A system or user message past the preamble: shown in its place, running nothing. */
function messageStep(step: AtifStep, index: number, path: number, ctx: ImportContext): Step {
  return defined({
    index,
    thought: contentText(step.message),
    action: NO_ACTION,
    observation: joinObservations((step.observation?.results ?? []).map(resultText)),
    timestamp: step.timestamp ?? undefined,
    flags: flagsOf(step, [`atif-${step.source}`]),
    source: sourceRef(ctx, ['steps', path]),
  }) as Step;
}

const text = z.string().optional().catch(undefined);
/** The task and outcome our own writer keeps in the root `extra`; another producer's keys are left alone. */
const RootExtraSchema = z.looseObject({
  instance_id: text,
  repo: text,
  base_commit: text,
  image: text,
  repo_path: text,
  problem_statement: text,
  exit_status: text,
  submission: text,
  reward: z.number().optional().catch(undefined),
  resolved: z.boolean().optional().catch(undefined),
  test_output: text,
  error: text,
});

/** An ATIF trajectory, v1.0 to v1.6, from any producer (Harbor's Terminus-2, OpenHands, Claude Code...). */
export function importAtif(value: unknown, ctx: ImportContext): Trajectory {
  const t = parseInput(AtifSchema, value, ctx.file, ctx.base);
  const preamble: Pick<TrajectoryMeta, 'systemPrompt' | 'instructions'> = {};
  const context: NonNullable<TrajectoryMeta['context']> = [];
  const steps: Step[] = [];
  // Calls an agent wrote in its message (no `tool_calls`: a non-function-calling run) are read in the file's one text format.
  const text = textCallFormat(t.steps.filter((s) => s.source === 'agent' && !s.tool_calls?.length).map((s) => contentText(s.message)));
  let agentSeen = false;
  t.steps.forEach((step, i) => {
    if (step.source === 'agent') {
      agentSeen = true;
      steps.push(agentStep(step, steps.length, i, ctx, text));
      return;
    }
    // The first system prompt and the first user message before the agent's first turn are the
    // run's own; other messages before it are context the run added (OpenHands' "Retrieving content
    // for...", "Added workspace context"), not steps; a message that carries an observation stays
    // a step so the result shows.
    const key = step.source === 'system' ? 'systemPrompt' : 'instructions';
    const quiet = !step.observation?.results.length;
    if (!agentSeen && quiet && preamble[key] === undefined) preamble[key] = contentText(step.message);
    // Copied context (v1.7) and a message with its own `extra` keep their step, and what marks them.
    else if (!agentSeen && quiet && !step.is_copied_context && step.extra == null)
      context.push(defined({ source: step.source as 'system' | 'user', text: contentText(step.message), timestamp: step.timestamp ?? undefined }));
    else steps.push(messageStep(step, steps.length, i, ctx));
  });
  const fm = t.final_metrics;
  const modelStats = fm
    ? defined({
        instanceCost: fm.total_cost_usd ?? undefined,
        tokensSent: fm.total_prompt_tokens ?? undefined,
        tokensReceived: fm.total_completion_tokens ?? undefined,
      })
    : undefined;
  const own = RootExtraSchema.parse(t.extra ?? {});
  return {
    format: 'atif',
    task: defined({
      instanceId: own.instance_id,
      repo: own.repo,
      baseCommit: own.base_commit,
      image: own.image,
      repoPath: own.repo_path,
      problemStatement: own.problem_statement,
    }),
    steps,
    outcome: defined({
      exitStatus: own.exit_status,
      submission: own.submission,
      reward: own.reward,
      resolved: own.resolved,
      testOutput: own.test_output,
      error: own.error,
      modelStats: modelStats && Object.keys(modelStats).length > 0 ? modelStats : undefined,
    }),
    meta: defined({
      formatVersion: t.schema_version ?? ATIF_LATEST,
      scaffold: `${t.agent.name}@${t.agent.version}`,
      model: t.agent.model_name ?? undefined,
      scaffoldConfig: t.agent.extra ?? undefined,
      id: t.session_id,
      createdAt: t.steps[0]!.timestamp ?? undefined,
      parseFunction: text?.format,
      ...preamble,
      context: context.length > 0 ? context : undefined,
    }),
  };
}
