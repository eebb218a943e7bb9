import type { Trajectory } from '../../extension/core/trajectory/model';
import type { StepperBoot } from '../../extension/protocol/stepper';
import { outlineBootPayload, toStepSummary } from '../../extension/views/stepView';

/**
 * The boot payload the stepper gives the page of a trajectory read whole, on step `index` (clamped
 * to the trajectory), as its session composes it: every summary, the step's detail.
 */
export function wholeBoot(trajectory: Trajectory, fileName: string, index: number, reveal: boolean): StepperBoot {
  const step = trajectory.steps[Math.min(index, trajectory.steps.length - 1)];
  return outlineBootPayload({ trajectory, summaries: trajectory.steps.map(toStepSummary) }, step, fileName, reveal);
}
