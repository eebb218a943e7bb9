import type { Step, Trajectory } from '../core/trajectory/model';
import { stepHasError } from '../core/trajectory/stepErrors';
import { submits } from '../core/trajectory/actionKind';

type EntryReason = 'error' | 'divergence' | 'submission' | 'evidence' | 'end';

export interface EntryStep {
  /** 0-based step index. */
  index: number;
  reason: EntryReason;
}

const isSubmission = (step: Step): boolean => submits(step.action);

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
