import type { Action, Step, Trajectory } from '../core/trajectory/model';
import { stepHasError, stepLabel } from '../core/trajectory/stepLabels';
import { MAX_STEP_RANGE, type StepDetail, type StepperBoot, type StepRange, type StepSummary, type TrajectoryHeader } from '../protocol/stepper';

export function toStepSummary(step: Step): StepSummary {
  const flags = step.flags ?? [];
  return { index: step.index, tool: step.action.tool, label: stepLabel(step), error: stepHasError(step), diverged: flags.includes('diverged'), flags };
}

function actionView(action: Action): StepDetail['action'] {
  return { raw: action.raw, tool: action.tool, args: action.args };
}

export function toStepDetail(step: Step): StepDetail {
  return {
    index: step.index,
    thought: step.thought,
    action: actionView(step.action),
    observation: step.observation,
    calls: (step.calls ?? []).map((c) => ({ action: actionView(c.action), observation: c.observation })),
    executionTime: step.executionTime,
    exitCode: step.exitCode,
    tokens: step.tokens,
    logprobs: (step.logprobs ?? []).map(({ token, logprob }) => ({ token, logprob })),
    diff: step.state?.diff,
    openFile: step.state?.openFile,
    workingDir: step.state?.workingDir,
    formatError: step.formatError,
    flags: step.flags ?? [],
    hasSource: (step.source?.pointers.length ?? 0) > 0 || step.source?.line !== undefined,
  };
}

export function toTrajectoryHeader(trajectory: Trajectory, fileName: string): TrajectoryHeader {
  const tools = new Set<string>();
  for (const step of trajectory.steps) if (step.action.tool) tools.add(step.action.tool);
  return {
    fileName,
    format: trajectory.format,
    stepCount: trajectory.steps.length,
    instanceId: trajectory.task.instanceId,
    model: trajectory.meta.model,
    exitStatus: trajectory.outcome.exitStatus,
    resolved: trajectory.outcome.resolved,
    reward: trajectory.outcome.reward,
    tools: [...tools].sort(),
  };
}

export function stepsInRange(steps: readonly Step[], range: StepRange): readonly Step[] {
  return steps.slice(range.start, range.end);
}

/** Indices of the steps whose thought, action or observation contains the query. */
export function searchSteps(steps: readonly Step[], query: string, caseSensitive: boolean): number[] {
  const needle = caseSensitive ? query : query.toLowerCase();
  const matches = (text: string) => (caseSensitive ? text : text.toLowerCase()).includes(needle);
  return steps
    .filter((s) => matches(s.thought) || matches(s.action.raw) || matches(s.observation) || (s.calls ?? []).some((c) => matches(c.action.raw) || matches(c.observation)))
    .map((s) => s.index);
}

/**
 * What the view needs to show step `index` (clamped to the trajectory) without asking: the
 * header, the first range of summaries and that step's detail. Later ranges are requested.
 */
export function bootPayload(trajectory: Trajectory, fileName: string, index: number, reveal: boolean): StepperBoot {
  const step = trajectory.steps[Math.min(index, trajectory.steps.length - 1)];
  return {
    ok: true,
    header: toTrajectoryHeader(trajectory, fileName),
    summaries: stepsInRange(trajectory.steps, { start: 0, end: MAX_STEP_RANGE }).map(toStepSummary),
    ...(step ? { detail: toStepDetail(step) } : {}),
    reveal,
  };
}
