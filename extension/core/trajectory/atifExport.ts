import type { Step, Trajectory } from './model';
import { ATIF, ATIF_LATEST, atifFieldsSince, importAtif, isIsoTimestamp, readAtifVersion, unknownAtifFields } from './importers/atif';
import { COPIED_CONTEXT_FLAG } from './copiedContext';
import { InputError } from '../errors';
import { defined } from '../defined';
// A reply that called no tool (OpenHands records it as a `message` action) is the ATIF step's message.
import { isReplyText } from './actionKind';

type Json = Record<string, unknown>;

/** Where ATIF has no field of its own for something we know, it rides in `extra` under these names. */
const STEP_EXTRA = { exitCode: 'exit_code', executionTime: 'execution_time', formatError: 'format_error', flags: 'flags' } as const;
/** Our marks that ATIF says in its own words (a step's source, `is_copied_context`). */
const ATIF_FLAGS: ReadonlySet<string> = new Set(['atif-system', 'atif-user', COPIED_CONTEXT_FLAG]);

/** The agent as ATIF names it: the scaffold's `NAME@VERSION` when known, else the format it was read from. */
function agentOf(t: Trajectory): Json {
  const scaffold = t.meta.scaffold;
  const at = scaffold?.lastIndexOf('@') ?? -1;
  const [name, version] =
    scaffold !== undefined && at > 0
      ? [scaffold.slice(0, at), scaffold.slice(at + 1)]
      : [scaffold ?? t.format, t.format !== 'atif' && t.meta.formatVersion !== undefined ? t.meta.formatVersion : 'unknown'];
  return defined({ name, version, model_name: t.meta.model, extra: t.meta.scaffoldConfig });
}

/** An ISO 8601 time Harbor accepts, or undefined when the recorded one is not a time at all. */
function isoTime(stamp: string | undefined): string | undefined {
  if (stamp === undefined || isIsoTimestamp(stamp)) return stamp;
  const ms = Date.parse(stamp);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

const int = (n: number | undefined) => (n !== undefined && Number.isInteger(n) ? n : undefined);

function metricsOf(step: Step): Json | undefined {
  const m = defined({
    prompt_tokens: int(step.tokens?.prompt),
    completion_tokens: int(step.tokens?.completion),
    cost_usd: step.tokens?.costUsd,
    prompt_token_ids: step.tokenIds?.prompt,
    completion_token_ids: step.tokenIds?.completion,
    logprobs: step.logprobs?.map((l) => l.logprob),
    extra: int(step.tokens?.total) === undefined ? undefined : { total_tokens: step.tokens!.total },
  });
  return Object.keys(m).length > 0 ? m : undefined;
}

function stepExtra(step: Step): Json | undefined {
  const flags = step.flags?.filter((f) => !ATIF_FLAGS.has(f));
  const extra = defined({
    [STEP_EXTRA.exitCode]: step.exitCode,
    [STEP_EXTRA.executionTime]: step.executionTime,
    [STEP_EXTRA.formatError]: step.formatError,
    [STEP_EXTRA.flags]: flags && flags.length > 0 ? flags : undefined,
  });
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/** Each call with an id unique in its step, so its result can name it. */
function callsOf(t: Trajectory, step: Step): Array<{ id: string; name: string; args: Json; observation: string }> {
  const calls = step.calls ?? [{ action: step.action, observation: step.observation }];
  const seen = new Set<string>();
  return calls.flatMap((c, k) => {
    if (c.action.tool === null || isReplyText(t.format, c.action)) return [];
    let id = c.action.toolCallId ?? `call_${step.index + 1}_${k + 1}`;
    while (seen.has(id)) id = `${id}_${k + 1}`;
    seen.add(id);
    return [{ id, name: c.action.tool, args: c.action.args, observation: step.calls ? c.observation : step.observation }];
  });
}

/** The line the importer shows a subagent reference as, in its result's text (importers/atif.ts). */
const REF_LINE = /^\[subagent trajectory: .*\]$/;

/** How a step's subagents are written back: as the source file's references when it has them, else by the name that opens each. */
type RefsOf = (step: Step) => Json[] | undefined;

function refsFrom(kept: Json | undefined): RefsOf {
  const steps = Array.isArray(kept?.steps) ? (kept.steps as Json[]) : [];
  const recorded = steps.flatMap(
    (s) =>
      ((s?.observation as Json | undefined)?.results as Json[] | undefined)?.flatMap((r) =>
        Array.isArray(r?.subagent_trajectory_ref) ? (r.subagent_trajectory_ref as Json[]) : [],
      ) ?? [],
  );
  const embedded = new Set((Array.isArray(kept?.subagent_trajectories) ? (kept.subagent_trajectories as Json[]) : []).map((sub) => sub?.trajectory_id));
  return (step) =>
    step.subagents?.map(
      (name) =>
        recorded.find((ref) => (ref.trajectory_id ?? ref.trajectory_path) === name) ??
        (embedded.has(name) ? { trajectory_id: name } : { trajectory_path: name }),
    );
}

/** Results with the step's subagent references as references again, not as the lines that show them. */
function withRefs(results: Array<{ source_call_id?: string; content: string }>, refs: Json[] | undefined): Json[] {
  if (!refs) return results;
  const kept = results
    .map((r) => ({
      ...r,
      content: r.content
        .split('\n')
        .filter((line) => !REF_LINE.test(line))
        .join('\n'),
    }))
    .filter((r) => r.content !== '' || r.source_call_id !== undefined);
  return [...kept, { subagent_trajectory_ref: refs }];
}

function agentStep(t: Trajectory, step: Step, stepId: number, refsOf: RefsOf): Json {
  const calls = callsOf(t, step);
  const said = isReplyText(t.format, step.action) && step.action.raw !== step.thought ? step.action.raw : '';
  const results = withRefs(
    calls.length > 0
      ? calls.filter((c) => c.observation !== '').map((c) => ({ source_call_id: c.id, content: c.observation }))
      : step.observation === ''
        ? []
        : [{ content: step.observation }],
    refsOf(step),
  );
  const effort = step.sampling?.reasoning_effort;
  return defined({
    step_id: stepId,
    timestamp: isoTime(step.timestamp),
    source: 'agent',
    reasoning_effort: typeof effort === 'string' || typeof effort === 'number' ? effort : undefined,
    message: [step.thought, said].filter((m) => m !== '').join('\n\n'),
    reasoning_content: step.reasoning,
    tool_calls: calls.length > 0 ? calls.map((c) => ({ tool_call_id: c.id, function_name: c.name, arguments: c.args })) : undefined,
    observation: results.length > 0 ? { results } : undefined,
    metrics: step.llmCalls === 0 ? undefined : metricsOf(step),
    is_copied_context: step.flags?.includes(COPIED_CONTEXT_FLAG) ? true : undefined,
    llm_call_count: step.llmCalls,
    extra: stepExtra(step),
  });
}

/** A system or user message that was a step of its own (read from ATIF): one again, with what it observed. */
function messageStep(step: Step, stepId: number, source: 'system' | 'user', refsOf: RefsOf): Json {
  const results = withRefs(step.observation === '' ? [] : [{ content: step.observation }], refsOf(step));
  return defined({
    step_id: stepId,
    timestamp: isoTime(step.timestamp),
    source,
    message: step.thought,
    observation: results.length > 0 ? { results } : undefined,
    is_copied_context: step.flags?.includes(COPIED_CONTEXT_FLAG) ? true : undefined,
    extra: stepExtra(step),
  });
}

/** What ATIF has no field for but a reader of our own wants back: the task and the outcome. */
function rootExtra(t: Trajectory): Json | undefined {
  const extra = defined({
    instance_id: t.task.instanceId,
    repo: t.task.repo,
    base_commit: t.task.baseCommit,
    image: t.task.image,
    repo_path: t.task.repoPath,
    problem_statement: t.task.problemStatement,
    exit_status: t.outcome.exitStatus,
    submission: t.outcome.submission,
    reward: t.outcome.reward,
    resolved: t.outcome.resolved,
    test_output: t.outcome.testOutput,
    error: t.outcome.error,
  });
  return Object.keys(extra).length > 0 ? extra : undefined;
}

/**
 * The document as our model writes it (v1.7), with what the file it was read from held at its
 * root and the model has no place for (its notes, tool definitions, embedded subagents); not its
 * trajectory_id, which named that document, not this changed one.
 */
function generated(t: Trajectory, kept: Json | undefined): Json {
  const steps: Json[] = [];
  if (t.meta.systemPrompt !== undefined) steps.push({ step_id: steps.length + 1, source: 'system', message: t.meta.systemPrompt });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined) steps.push({ step_id: steps.length + 1, source: 'user', message: instructions });
  for (const c of t.meta.context ?? []) steps.push(defined({ step_id: steps.length + 1, timestamp: c.timestamp, source: c.source, message: c.text }));
  const refsOf = refsFrom(kept);
  for (const step of t.steps) {
    const id = steps.length + 1;
    if (step.flags?.includes('atif-system')) steps.push(messageStep(step, id, 'system', refsOf));
    else if (step.flags?.includes('atif-user')) steps.push(messageStep(step, id, 'user', refsOf));
    else steps.push(agentStep(t, step, id, refsOf));
  }
  // ATIF needs at least one step: a run with nothing recorded says so in an empty user turn.
  if (steps.length === 0) steps.push({ step_id: 1, source: 'user', message: '' });
  const stats = t.outcome.modelStats;
  const finalMetrics =
    stats && defined({ total_prompt_tokens: int(stats.tokensSent), total_completion_tokens: int(stats.tokensReceived), total_cost_usd: stats.instanceCost });
  const agent = agentOf(t);
  const keptAgent = kept?.agent as Json | undefined;
  return defined({
    schema_version: ATIF_LATEST,
    session_id: t.meta.id ?? t.task.instanceId ?? 'unknown',
    agent: keptAgent?.tool_definitions === undefined ? agent : { ...agent, tool_definitions: keptAgent.tool_definitions },
    steps,
    notes: t.format === 'atif' ? kept?.notes : `Written by SWE Workbench from a ${t.format} trajectory.`,
    final_metrics: finalMetrics && Object.keys(finalMetrics).length > 0 ? finalMetrics : undefined,
    extra: rootExtra(t),
    subagent_trajectories: kept?.subagent_trajectories,
  });
}

/** The file the trajectory was read from, when it is ATIF and the trajectory is still what that file says (not forked, joined or edited since). */
function unchangedSource(t: Trajectory): Json | undefined {
  const kept = t.meta.kept;
  if (kept?.format !== 'atif' || typeof kept.document !== 'object' || kept.document === null) return undefined;
  const again = importAtif(kept.document, { file: 'the kept ATIF document', base: [] });
  const same = (x: Trajectory) => JSON.stringify({ ...x, meta: { ...x.meta, kept: undefined } });
  return same(again) === same(t) ? (kept.document as Json) : undefined;
}

export interface AtifWriteOptions {
  /** The version to write (`ATIF-v1.0` to `ATIF-v1.7`); refused when the trajectory holds what that version cannot say. Default: v1.7, or the newer v1 a file was read in when it still holds fields of that version. */
  version?: string;
}

/**
 * A trajectory in ATIF as Harbor's validator accepts it. A trajectory read from an ATIF file and
 * unchanged is that file again, every field kept (another producer's, a newer version's), with the
 * version asked for; anything else is written from the model: the system prompt and the
 * instructions as the first steps, then one agent step per step with its tool calls, each call's
 * result naming it by `source_call_id`, and the step's metrics.
 */
export function toAtif(t: Trajectory, options: AtifWriteOptions = {}): string {
  const source = unchangedSource(t);
  const keptRoot = t.meta.kept?.format === 'atif' && typeof t.meta.kept.document === 'object' ? (t.meta.kept.document as Json) : undefined;
  const doc = source ?? generated(t, keptRoot);
  const read = readAtifVersion(doc);
  const newerFields = read.minor > ATIF.latestMinor ? unknownAtifFields(doc) : [];
  const target = options.version ?? (newerFields.length > 0 ? ATIF.spell(read) : ATIF_LATEST);
  const m = /^ATIF-v1\.(\d+)$/.exec(target);
  if (!m) throw new InputError(undefined, undefined, `cannot write ${JSON.stringify(target)}: expected one of ATIF-v1.0 to ${ATIF_LATEST}`);
  const minor = Number(m[1]);
  if (minor > ATIF.latestMinor && !(read.minor === minor && newerFields.length > 0))
    throw new InputError(
      undefined,
      undefined,
      `cannot write ${target}: the newest ATIF version this writer knows is ${ATIF_LATEST} (a file read in ${target} is written back in it)`,
    );
  const lost = [...(minor <= ATIF.latestMinor ? newerFields.map((f) => `${f} (not in ${target})`) : []), ...atifFieldsSince(doc, minor)];
  if (lost.length > 0) {
    const shown = lost.slice(0, 8).join('; ') + (lost.length > 8 ? `; and ${lost.length - 8} more` : '');
    const instead = minor === read.minor ? ATIF_LATEST : ATIF.spell(read);
    throw new InputError(
      undefined,
      undefined,
      `cannot write ${target} without losing what it has no field for: ${shown}. Write ${instead} instead (--atif-version ${instead})`,
    );
  }
  const { schema_version: _was, ...rest } = doc;
  return JSON.stringify({ schema_version: target, ...rest }, null, 2) + '\n';
}
