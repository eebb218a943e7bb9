import type { Step, Trajectory } from '../core/trajectory/model';
import { stepHasError } from '../core/trajectory/stepErrors';

type EntryReason = 'error' | 'divergence' | 'submission' | 'evidence' | 'end';

export interface EntryStep {
  /** 0-based step index. */
  index: number;
  reason: EntryReason;
}

/** mini-swe-agent submits by echoing one of these markers from bash. */
const SUBMIT_MARKER = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;
const SUBMIT_TOOLS = new Set(['submit', 'finish', 'submit_patch']);

function isSubmission(step: Step): boolean {
  const first = step.action.raw.trim().split(/\s/, 1)[0] ?? '';
  return SUBMIT_TOOLS.has(step.action.tool ?? '') || SUBMIT_TOOLS.has(first) || SUBMIT_MARKER.test(step.action.raw);
}

/**
 * The step a rollout opens on: where it first went wrong (an error or format error, or a
 * divergence from its recording, whichever comes first), else where it submitted, else the
 * step its failure class points at, else where it stopped (a step, cost or context limit).
 */
export function entryStep(trajectory: Trajectory, evidenceStep?: number): EntryStep {
  const { steps } = trajectory;
  const wrong = steps.find((s) => stepHasError(s) || (s.flags ?? []).includes('diverged'));
  if (wrong) return { index: wrong.index, reason: stepHasError(wrong) ? 'error' : 'divergence' };
  const submitted = steps.findLast(isSubmission) ?? ((trajectory.outcome.submission ?? '').trim() !== '' ? steps.at(-1) : undefined);
  if (submitted) return { index: submitted.index, reason: 'submission' };
  if (evidenceStep !== undefined && evidenceStep >= 0 && evidenceStep < steps.length) return { index: evidenceStep, reason: 'evidence' };
  return { index: Math.max(0, steps.length - 1), reason: 'end' };
}
