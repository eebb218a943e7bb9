import { actionKind } from '../core/trajectory/actionKind';
import type { Action, Step, Trajectory } from '../core/trajectory/model';
import { openFileAfter, outcomeText, runFacts } from '../core/trajectory/runFacts';
import { describeChoice, detectScaffold, scaffoldLabel } from '../core/scaffolds/registry';
import { stepErrors } from '../core/trajectory/stepErrors';
import { actionText, llmCallsText, stepLabel } from '../core/trajectory/stepLabels';
import { toTokenView } from './tokenView';
import { FOLDED_LINES, MAX_STEP_RANGE, type StepDetail, type StepperBoot, type StepSummary, type TrajectoryHeader } from '../protocol/stepper';

const DIVERGED_FLAG = 'diverged';
/**
 * A boot carries an observation past this many characters cut to what the page shows folded: a
 * megabyte-long first observation embedded whole delays the page's load, and as a message its
 * first paint (`bench/ui/stepper.ts --large-mb 500` measures both).
 */
const BOOT_OBSERVATION_CHARS = 64 * 1024;
/** What is kept of such an observation: its folded lines, at most this many characters. */
const KEPT_OBSERVATION_CHARS = 16 * 1024;

/** The hover shows this much of a long action (a created file's text, a long heredoc). */
const FULL_LABEL_LINES = 12;
const FULL_LABEL_LENGTH = 1000;

function fullLabel(action: Action): string {
  const lines = actionText(action).split('\n');
  const shown = lines.slice(0, FULL_LABEL_LINES).join('\n');
  const cut = shown.length > FULL_LABEL_LENGTH ? `${shown.slice(0, FULL_LABEL_LENGTH - 1)}…` : shown;
  return lines.length > FULL_LABEL_LINES ? `${cut}\n… (${lines.length - FULL_LABEL_LINES} more lines)` : cut;
}

export function toStepSummary(step: Step): StepSummary {
  const flags = step.flags ?? [];
  const errors = stepErrors(step).map((e) => e.detail);
  return {
    index: step.index,
    tool: step.action.tool,
    kind: actionKind(step.action),
    label: stepLabel(step),
    fullLabel: fullLabel(step.action),
    error: errors.length > 0,
    errors,
    diverged: flags.includes(DIVERGED_FLAG),
    flags,
  };
}

function actionView(action: Action): StepDetail['action'] {
  return { raw: action.raw, tool: action.tool, kind: actionKind(action), args: action.args };
}

/** A step's detail; `trajectory` tells which file is open after it (state may be recorded before the action). */
export function toStepDetail(step: Step, trajectory?: Pick<Trajectory, 'steps' | 'meta'>): StepDetail {
  const openFile = trajectory ? openFileAfter(trajectory, step.index) : step.state?.openFile;
  const effort = step.sampling?.reasoning_effort;
  return {
    index: step.index,
    thought: step.thought,
    action: actionView(step.action),
    observation: step.observation,
    calls: (step.calls ?? []).map((c) => ({ action: actionView(c.action), observation: c.observation })),
    executionTime: step.executionTime,
    exitCode: step.exitCode,
    tokens: step.tokens,
    tokenView: toTokenView(step),
    diff: step.state?.diff,
    ...(openFile !== undefined ? { openFile } : {}),
    workingDir: step.state?.workingDir,
    formatError: step.formatError,
    ...(step.subagents ? { subagents: step.subagents } : {}),
    ...(step.llmCalls !== undefined ? { llmCalls: llmCallsText(step.llmCalls) } : {}),
    ...(typeof effort === 'string' || typeof effort === 'number' ? { reasoningEffort: String(effort) } : {}),
    flags: step.flags ?? [],
    errors: stepErrors(step),
    hasSource: (step.source?.pointers.length ?? 0) > 0 || step.source?.line !== undefined,
  };
}

export function toTrajectoryHeader(trajectory: Trajectory, fileName: string): TrajectoryHeader {
  const tools = new Set<string>();
  for (const step of trajectory.steps) if (step.action.tool) tools.add(step.action.tool);
  // From the steps without their observations, as the stepper holds them (`StepSource.lightSteps`), so
  // an indexed file and one read whole say the same; what observations alone tell apart stays undecided.
  const choice = detectScaffold({ ...trajectory, steps: trajectory.steps.map((s) => (s.observation === '' ? s : { ...s, observation: '' })) });
  return {
    fileName,
    format: trajectory.format,
    stepCount: trajectory.steps.length,
    instanceId: trajectory.task.instanceId,
    model: trajectory.meta.model,
    exitStatus: trajectory.outcome.exitStatus,
    resolved: trajectory.outcome.resolved,
    reward: trajectory.outcome.reward,
    outcome: outcomeText(trajectory.outcome),
    ...runFacts(trajectory),
    problemStatement: trajectory.task.problemStatement,
    // mini-swe-agent, chat exports and ATIF keep the task only in the first user message.
    ...(!trajectory.task.problemStatement?.trim() && trajectory.meta.instructions?.trim() ? { instructions: trajectory.meta.instructions } : {}),
    hasSubmission: (trajectory.outcome.submission ?? '').trim() !== '',
    tools: [...tools].sort(),
    scaffold: { label: scaffoldLabel(choice), detail: describeChoice(choice) },
    ...(trajectory.meta.warnings ? { warnings: trajectory.meta.warnings } : {}),
    ...(trajectory.meta.segments ? { segments: trajectory.meta.segments } : {}),
    ...(trajectory.meta.forks?.length ? { forks: trajectory.meta.forks } : {}),
  };
}

/** Indices of the steps whose thought, action or observation contains the query. */
export function searchSteps(steps: readonly Step[], query: string, caseSensitive: boolean): number[] {
  const needle = caseSensitive ? query : query.toLowerCase();
  const matches = (text: string) => (caseSensitive ? text : text.toLowerCase()).includes(needle);
  return steps
    .filter(
      (s) =>
        matches(s.thought) || matches(s.action.raw) || matches(s.observation) || (s.calls ?? []).some((c) => matches(c.action.raw) || matches(c.observation)),
    )
    .map((s) => s.index);
}

/**
 * `detail` as a boot carries it: a long observation cut to the lines the page shows folded (not a
 * submitted patch, which the page shows whole as a diff); the page asks for the rest when unfolded.
 */
export function bootDetail(detail: StepDetail): StepDetail {
  const { observation } = detail;
  if (observation.length <= BOOT_OBSERVATION_CHARS || detail.action.kind === 'submit') return detail;
  let end = -1;
  for (let line = 0; line < FOLDED_LINES; line++) {
    end = observation.indexOf('\n', end + 1);
    if (end < 0) break;
  }
  const kept = observation.slice(0, Math.min(end < 0 ? observation.length : end, KEPT_OBSERVATION_CHARS));
  let lines = 1;
  for (let at = observation.indexOf('\n'); at >= 0; at = observation.indexOf('\n', at + 1)) lines++;
  return { ...detail, observation: kept, observationCut: { lines, chars: observation.length } };
}

/**
 * The stepper's view of a trajectory read step by step: every step without its observations
 * (`StepSource.lightSteps`: what the header, the run facts, the open-file rule and a step's change
 * read) and the summaries made so far (none, for a large file whose timeline is asked for later).
 */
export interface StepOutline {
  trajectory: Trajectory;
  summaries: StepSummary[];
}

/**
 * What the view needs to show a step without asking: the header, the first range of summaries
 * and `detail`, the step to show read in full (clamped to the trajectory by the caller). Later
 * ranges are requested.
 */
export function outlineBootPayload(outline: StepOutline, detail: Step | undefined, fileName: string, reveal: boolean): StepperBoot {
  return {
    ok: true,
    header: toTrajectoryHeader(outline.trajectory, fileName),
    summaries: outline.summaries.slice(0, MAX_STEP_RANGE),
    ...(detail ? { detail: bootDetail(toStepDetail(detail, outline.trajectory)) } : {}),
    reveal,
  };
}

/**
 * The boot payload of a file still being indexed, from its first step read from its own bytes
 * (`OpenStepsOptions.onPreview`). Only what those bytes settle is shown: the thought, the action's
 * text, the observation, the step's own state, times and flags. Left out until the index is built:
 * the tool and arguments (the run's history and `replay_config`, written after the steps, may read
 * the action otherwise), a format error read with the default tools, parallel calls and tokens
 * (in the history), the open file (read from the next steps) and the raw record's source. The
 * header names the file; its counts and facts are the page's to show as loading.
 */
export function previewBootPayload(step: Step, format: string, fileName: string): StepperBoot {
  const { formatError: _formatError, calls: _calls, source: _source, sampling: _sampling, ...own } = step;
  const state = step.state ? { workingDir: step.state.workingDir, diff: step.state.diff } : undefined;
  const detail = bootDetail(toStepDetail({ ...own, action: { raw: step.action.raw, tool: null, args: {} }, state }));
  return {
    ok: true,
    header: { fileName, format, stepCount: 1, outcome: 'loading', hasSubmission: false, tools: [] },
    summaries: [],
    detail,
    reveal: false,
    indexing: true,
  };
}
