import { z } from 'zod';
import { InputError, jsonPath } from '../../errors';
import type { Action, Step, ToolCallResult, Trajectory, TrajectoryMeta } from '../model';
import { joinObservations, type MessageActions } from '../chatSteps';
import { COPIED_CONTEXT_FLAG } from '../copiedContext';
import { fieldPattern, newerVersionWarning, versionStanding, type FormatVersion, type KnownVersions } from '../formatVersion';
import { textCallFormat, type TextCallReading } from '../textCalls';
import { defined, sourceRef, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

/**
 * Harbor's Agent Trajectory Interchange Format (RFC 0001, v1.0 to v1.7). The schema holds the
 * RFC's rules as Harbor's validator applies them: every object closed to fields the RFC does not
 * name (custom data goes in `extra`), step ids counting from 1, a result's `source_call_id`
 * naming a call of its own step, fields only an agent step may carry, text and image parts, and
 * v1.7's rules for subagents (an embedded one has a `trajectory_id` unique among its siblings; a
 * reference names one by `trajectory_id` or a file by `trajectory_path`). A newer minor version
 * (ATIF-v1.8) is read as v1.7 with its unknown fields set aside and kept (`formatVersion.ts`).
 */

export const ATIF: KnownVersions = { label: 'ATIF', major: 1, latestMinor: 7, spell: (v) => `ATIF-v${v.major}.${v.minor}` };
/** The version the RFC's current text defines, which Harbor's models assume when a file names none. */
export const ATIF_LATEST = 'ATIF-v1.7';
const VERSION = /^ATIF-v(\d+)\.(\d+)$/;

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

const SubagentRefSchema = closed(
  { trajectory_id: z.string().nullish(), session_id: z.string().nullish(), trajectory_path: z.string().nullish(), extra: Extra },
  'subagent trajectory reference',
);
type SubagentRef = z.infer<typeof SubagentRefSchema>;

const ObservationResultSchema = closed(
  {
    source_call_id: z.string().nullish(),
    content: ContentSchema.nullish(),
    subagent_trajectory_ref: z.array(SubagentRefSchema).nullish(),
    extra: Extra,
  },
  'observation result',
);
type ObservationResult = z.infer<typeof ObservationResultSchema>;

const ObservationSchema = closed({ results: z.array(ObservationResultSchema) }, 'observation');

const ToolCallSchema = closed(
  {
    tool_call_id: z.string(),
    function_name: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    extra: Extra,
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
    observation: ObservationSchema.nullish(),
    metrics: MetricsSchema.nullish(),
    is_copied_context: z.boolean().nullish(),
    llm_call_count: Int.min(0, { error: 'llm_call_count cannot be negative' }).nullish(),
    extra: Extra,
  },
  'step',
).superRefine((step, ctx) => {
  if (step.source === 'agent') {
    // v1.7: an agent step that made no model call (a deterministic dispatch) has nothing a model call leaves.
    if (step.llm_call_count === 0)
      for (const field of ['metrics', 'reasoning_content'] as const)
        if (step[field] != null)
          ctx.addIssue({ code: 'custom', path: [field], message: `a step with llm_call_count 0 made no model call, so it may not have ${field}` });
    return;
  }
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
    schema_version: z.string().optional(),
    // Required up to v1.6, optional since v1.7 (run-scoped; an embedded subagent may inherit its parent's).
    session_id: z.string().nullish(),
    trajectory_id: z.string().nullish(),
    agent: AgentSchema,
    steps: z.array(StepSchema).min(1, { error: 'an ATIF trajectory has at least one step' }),
    notes: z.string().nullish(),
    final_metrics: FinalMetricsSchema.nullish(),
    continued_trajectory_ref: z.string().nullish(),
    extra: Extra,
    // Each is a trajectory of its own, read (and checked) on its own by `importAtif`.
    subagent_trajectories: z.array(z.unknown()).nullish(),
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
type AtifTrajectory = z.infer<typeof AtifSchema>;
/** Text and images as text: an image is its placeholder with its path, never its bytes. */
function contentText(content: string | ContentPart[] | null | undefined): string {
  if (content == null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : `[image: ${part.source!.path} (${part.source!.media_type})]`)).join('\n');
}

function resultText(result: ObservationResult): string {
  const refs = (result.subagent_trajectory_ref ?? []).map((ref) => `[subagent trajectory: ${refName(ref)}]`);
  return [contentText(result.content), ...refs].filter((t) => t !== '').join('\n');
}

const NO_ACTION: Action = { raw: '', tool: null, args: {} };

/** The names that open the trajectories a step delegated to: an embedded one's id, else its file (a v1.6 reference by session alone opens none). */
function subagentsOf(step: AtifStep): string[] | undefined {
  const names = (step.observation?.results ?? []).flatMap((r) =>
    (r.subagent_trajectory_ref ?? []).flatMap((ref) => ref.trajectory_id ?? ref.trajectory_path ?? []),
  );
  return names.length > 0 ? names : undefined;
}

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
  const flags = [...own, ...(step.is_copied_context ? [COPIED_CONTEXT_FLAG] : []), ...(ownExtra(step.extra).flags ?? [])];
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
  // A step copied from another run (the questions a summarising subagent asked) was not written to this run's format: no call in it is no format error.
  const read = text && !step.tool_calls?.length ? (step.is_copied_context ? text.find : text.read)(contentText(step.message)) : undefined;
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
    llmCalls: step.llm_call_count ?? undefined,
    subagents: subagentsOf(step),
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
    subagents: subagentsOf(step),
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

/** A reference as a person reads it: what resolves it first, then the run it names. */
export function refName(ref: SubagentRef): string {
  return [
    ref.trajectory_id != null ? `trajectory ${ref.trajectory_id}` : undefined,
    ref.trajectory_path != null ? ref.trajectory_path : undefined,
    ref.session_id != null ? `session ${ref.session_id}` : undefined,
  ]
    .filter((p) => p !== undefined)
    .join(', ');
}

/** The version a document says (v1.7 when it says none, as Harbor's models assume); what is not an ATIF version reads as v1.7 too (the importer refuses it). */
export function readAtifVersion(doc: unknown): FormatVersion {
  const spelled = typeof doc === 'object' && doc !== null ? (doc as { schema_version?: unknown }).schema_version : undefined;
  const m = typeof spelled === 'string' ? VERSION.exec(spelled) : null;
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : { major: ATIF.major, minor: ATIF.latestMinor };
}

function readVersion(value: unknown, ctx: ImportContext): FormatVersion {
  const spelled = typeof value === 'object' && value !== null ? (value as { schema_version?: unknown }).schema_version : undefined;
  if (spelled === undefined) return { major: ATIF.major, minor: ATIF.latestMinor };
  if (typeof spelled !== 'string' || !VERSION.test(spelled)) {
    throw new InputError(
      ctx.file,
      jsonPath([...ctx.base, 'schema_version']),
      `expected an ATIF version such as "${ATIF_LATEST}" (ATIF-vMAJOR.MINOR), got ${JSON.stringify(spelled)}`,
    );
  }
  return readAtifVersion(value);
}

/** The fields each ATIF object has (the keys of its schema), and which of them hold objects of another kind. */
const KINDS: Record<string, { keys: readonly string[]; children: Record<string, string> }> = {};
function kind(name: string, schema: { shape: Record<string, unknown> }, children: Record<string, string>): void {
  KINDS[name] = { keys: Object.keys(schema.shape), children };
}
kind('trajectory', AtifSchema, { agent: 'agent', steps: 'step', final_metrics: 'final_metrics' });
kind('agent', AgentSchema, {});
kind('final_metrics', FinalMetricsSchema, {});
kind('step', StepSchema, { message: 'content_part', tool_calls: 'tool_call', observation: 'observation', metrics: 'metrics' });
kind('tool_call', ToolCallSchema, {});
kind('metrics', MetricsSchema, {});
kind('observation', ObservationSchema, { results: 'result' });
kind('result', ObservationResultSchema, { content: 'content_part', subagent_trajectory_ref: 'ref' });
kind('ref', SubagentRefSchema, {});
kind('content_part', ContentPartSchema, { source: 'image_source' });
kind('image_source', ImageSourceSchema, {});

/**
 * A newer minor version's file without the fields this reader does not know, and where they were:
 * the copy is what the v1.7 schema reads; the file itself, fields and all, is what is kept.
 * `extra` objects are custom data and are never looked into.
 */
function setAside(value: unknown, kindName: string, path: Array<string | number>, unknown: string[]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => setAside(v, kindName, [...path, i], unknown));
  if (typeof value !== 'object' || value === null) return value;
  const k = KINDS[kindName]!;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!k.keys.includes(key)) {
      unknown.push(fieldPattern([...path, key]));
      continue;
    }
    const child = k.children[key];
    out[key] = child === undefined ? v : setAside(v, child, [...path, key], unknown);
  }
  return out;
}

/** The fields of a document that ATIF v1.7 does not have (a newer version's), as patterns (`steps[*].foo`). */
export function unknownAtifFields(doc: unknown): string[] {
  const unknown: string[] = [];
  setAside(doc, 'trajectory', [], unknown);
  return [...new Set(unknown)];
}

type Json = Record<string, unknown>;
const objects = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : []);
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What a document holds that ATIF-v1.`minor` cannot say, each as its path and the version that
 * brought it (from the RFC's changelog): writing that version would lose it. The v1.7 changes
 * that went the other way count too: v1.6 and earlier need a session_id, at the root and on
 * every subagent reference, and v1.7 a reference that resolves.
 */
export function atifFieldsSince(doc: Json, minor: number): string[] {
  const out: string[] = [];
  const add = (since: number, path: Array<string | number>, what = '') => {
    if (minor < since) out.push(`${jsonPath(path)}${what} (ATIF-v1.${since})`);
  };
  if (minor < 7 && typeof doc.session_id !== 'string') out.push('$.session_id absent (required before ATIF-v1.7)');
  for (const key of ['trajectory_id', 'subagent_trajectories'] as const) if (doc[key] != null) add(7, [key]);
  if (doc.extra != null) add(1, ['extra']);
  if (isObj(doc.agent) && doc.agent.tool_definitions != null) add(5, ['agent', 'tool_definitions']);
  objects(doc.steps).forEach((step, i) => {
    const at = (...p: Array<string | number>) => ['steps', i, ...p];
    if (Array.isArray(step.message)) add(6, at('message'), ' as content parts');
    if (step.is_copied_context != null) add(5, at('is_copied_context'));
    if (step.llm_call_count != null) add(7, at('llm_call_count'));
    if (step.source === 'system' && step.observation != null) add(2, at('observation'), ' on a system step');
    if (isObj(step.metrics)) {
      if (step.metrics.completion_token_ids != null) add(3, at('metrics', 'completion_token_ids'));
      if (step.metrics.prompt_token_ids != null) add(4, at('metrics', 'prompt_token_ids'));
    }
    objects(step.tool_calls).forEach((c, k) => c.extra != null && add(7, at('tool_calls', k, 'extra')));
    const results = isObj(step.observation) ? objects(step.observation.results) : [];
    results.forEach((r, k) => {
      if (r.extra != null) add(7, at('observation', 'results', k, 'extra'));
      if (Array.isArray(r.content)) add(6, at('observation', 'results', k, 'content'), ' as content parts');
      objects(r.subagent_trajectory_ref).forEach((ref, j) => {
        const path = at('observation', 'results', k, 'subagent_trajectory_ref', j);
        if (ref.trajectory_id != null) add(7, [...path, 'trajectory_id']);
        if (minor < 7 && typeof ref.session_id !== 'string') out.push(`${jsonPath(path)} without session_id (required before ATIF-v1.7)`);
        if (minor >= 7 && ref.trajectory_id == null && ref.trajectory_path == null)
          out.push(`${jsonPath(path)}: a reference by session_id alone (it resolves only up to ATIF-v1.6)`);
      });
    });
  });
  return out;
}

/** Every reference of the file's steps, with where it is. */
function refsOf(t: AtifTrajectory): Array<{ ref: SubagentRef; path: Array<string | number> }> {
  return t.steps.flatMap((step, i) =>
    (step.observation?.results ?? []).flatMap((r, k) =>
      (r.subagent_trajectory_ref ?? []).map((ref, j) => ({ ref, path: ['steps', i, 'observation', 'results', k, 'subagent_trajectory_ref', j] })),
    ),
  );
}

/**
 * v1.7's rules for subagents, and v1.6's for a file that says v1.6 or earlier: an embedded
 * subagent has a `trajectory_id`, unique among its siblings; a reference is resolvable (by
 * `trajectory_id` or `trajectory_path`; before v1.7 it named its run by `session_id`), and one
 * that names an embedded trajectory only by id names one that is there.
 */
function checkSubagents(t: AtifTrajectory, version: FormatVersion, ctx: ImportContext): void {
  const at = (path: ReadonlyArray<string | number>) => jsonPath([...ctx.base, ...path]);
  const embedded = new Map<string, number>();
  (t.subagent_trajectories ?? []).forEach((sub, i) => {
    const id = typeof sub === 'object' && sub !== null ? (sub as { trajectory_id?: unknown }).trajectory_id : undefined;
    if (typeof id !== 'string')
      throw new InputError(
        ctx.file,
        at(['subagent_trajectories', i, 'trajectory_id']),
        'an embedded subagent trajectory needs a trajectory_id (ATIF v1.7), which its references name',
      );
    const twin = embedded.get(id);
    if (twin !== undefined)
      throw new InputError(
        ctx.file,
        at(['subagent_trajectories', i, 'trajectory_id']),
        `'${id}' is also the trajectory_id of subagent_trajectories[${twin}]; each must be unique`,
      );
    embedded.set(id, i);
  });
  for (const { ref, path } of refsOf(t)) {
    if (version.minor < 7) {
      if (ref.session_id == null)
        throw new InputError(
          ctx.file,
          at([...path, 'session_id']),
          `a subagent reference needs session_id up to ATIF-v1.6 (this file says ${ATIF.spell(version)})`,
        );
      continue;
    }
    if (ref.trajectory_id == null && ref.trajectory_path == null)
      throw new InputError(
        ctx.file,
        at(path),
        'a subagent reference names its trajectory by trajectory_id (embedded in this file) or trajectory_path (a file); session_id alone does not resolve since ATIF-v1.7',
      );
    if (ref.trajectory_id != null && ref.trajectory_path == null && !embedded.has(ref.trajectory_id))
      throw new InputError(
        ctx.file,
        at([...path, 'trajectory_id']),
        `no embedded subagent trajectory has trajectory_id '${ref.trajectory_id}' (${embedded.size === 0 ? 'this file embeds none' : `subagent_trajectories holds ${[...embedded.keys()].join(', ')}`})`,
      );
  }
}

/** An ATIF trajectory, v1.0 to v1.7 or a newer v1 (read as v1.7), from any producer (Harbor's Terminus-2, OpenHands, NeMo Agent Toolkit, Claude Code...). */
export function importAtif(value: unknown, ctx: ImportContext): Trajectory {
  const version = readVersion(value, ctx);
  const newer = versionStanding(ATIF, version, ctx.file, jsonPath([...ctx.base, 'schema_version'])) === 'newer';
  const unknown: string[] = [];
  const t = parseInput(AtifSchema, newer ? setAside(value, 'trajectory', [], unknown) : value, ctx.file, ctx.base);
  checkSubagents(t, version, ctx);
  // Each embedded subagent is a trajectory of its own with the same rules; read now, so a broken one is found where it is.
  const subagents = (t.subagent_trajectories ?? []).map((sub, i) => importAtif(sub, { ...ctx, base: [...ctx.base, 'subagent_trajectories', i] }));
  const trajectory = canonicalOf(t, ctx);
  const warnings = newer ? [newerVersionWarning(ATIF, version, [...new Set(unknown)].sort(), 'and written back when converted to ATIF')] : [];
  for (const sub of subagents) for (const w of sub.meta.warnings ?? []) if (!warnings.includes(w)) warnings.push(w);
  return {
    ...trajectory,
    meta: defined({
      ...trajectory.meta,
      formatVersion: t.schema_version ?? ATIF_LATEST,
      warnings: warnings.length > 0 ? warnings : undefined,
      // The file as read: written back as it was when the trajectory is written as ATIF unchanged (atifExport.ts).
      kept: { format: 'atif', document: value },
    }),
  };
}

/** The embedded subagent trajectory with this `trajectory_id`, as a trajectory of its own (its steps located inside the parent's file). */
export function importAtifSubagent(value: unknown, id: string, ctx: ImportContext): Trajectory | undefined {
  const subs = typeof value === 'object' && value !== null ? (value as { subagent_trajectories?: unknown }).subagent_trajectories : undefined;
  if (!Array.isArray(subs)) return undefined;
  const i = subs.findIndex((s) => typeof s === 'object' && s !== null && (s as { trajectory_id?: unknown }).trajectory_id === id);
  return i < 0 ? undefined : importAtif(subs[i], { ...ctx, base: [...ctx.base, 'subagent_trajectories', i] });
}

function canonicalOf(t: AtifTrajectory, ctx: ImportContext): Trajectory {
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
    // for...", "Added workspace context"), not steps; a message that carries an observation, or that
    // was copied from an earlier run (v1.7), stays a step so the result and the mark show.
    const key = step.source === 'system' ? 'systemPrompt' : 'instructions';
    const quiet = !step.observation?.results.length && !step.is_copied_context;
    if (!agentSeen && quiet && preamble[key] === undefined) preamble[key] = contentText(step.message);
    // A message with its own `extra` keeps its step too, and what marks it.
    else if (!agentSeen && quiet && step.extra == null)
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
      scaffold: `${t.agent.name}@${t.agent.version}`,
      model: t.agent.model_name ?? undefined,
      scaffoldConfig: t.agent.extra ?? undefined,
      id: t.session_id ?? t.trajectory_id ?? undefined,
      createdAt: t.steps[0]!.timestamp ?? undefined,
      parseFunction: text?.format,
      ...preamble,
      context: context.length > 0 ? context : undefined,
    }),
  };
}
