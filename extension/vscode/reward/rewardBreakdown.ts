import { readInputText } from '../../core/input/readInput';
import { readTaskInstance } from '../../core/reward/rewardFiles';
import type { Recipe } from '../../core/reward/recipes';
import { readReport } from '../../core/reward/rewardFiles';
import { loadTrajectory } from '../../core/trajectory/load';
import type { Trajectory } from '../../core/trajectory/model';
import type { RewardBreakdown, RewardSources } from '../../protocol/reward';
import type { GradedOutput } from '../../core/reward/evaluate';
import { rewardBreakdown, type RewardInputs } from '../../views/rewardBreakdown';

/** Reads the sources a reward view names and lays out their grading (views/rewardBreakdown.ts). */
export async function buildRewardBreakdown(sources: RewardSources, recipes?: readonly Recipe[]): Promise<RewardBreakdown> {
  return rewardBreakdown(sources, await readRewardInputs(sources), recipes);
}

async function readRewardInputs(sources: RewardSources): Promise<RewardInputs> {
  const report = sources.report ? await readReport(sources.report) : undefined;
  // A validation report is refused by the presenter before anything else is read.
  if (report?.kind === 'validation') return { report, trajectory: undefined, output: undefined, instance: undefined };
  const trajectory = sources.trajectory
    ? (await loadTrajectory(sources.trajectory, sources.record === undefined ? {} : { record: sources.record })).trajectory
    : undefined;
  const output = await gradedOutput(sources, trajectory);
  const instance = output && sources.instance ? await readTaskInstance(sources.instance, sources.instanceId ?? trajectory?.task.instanceId) : undefined;
  return { report, trajectory, output, instance };
}

async function gradedOutput(sources: RewardSources, trajectory: Trajectory | undefined): Promise<GradedOutput | undefined> {
  if (sources.testOutput) {
    const file = sources.testOutput;
    const { text } = await readInputText(file);
    return { text, file, where: file };
  }
  const recorded = trajectory?.outcome.testOutput;
  return recorded === undefined || recorded.trim() === '' ? undefined : { text: recorded, file: undefined, where: `${sources.trajectory}: test_output` };
}
