/** One indexed rollout's whole trajectory, read as the index reads it (a JSONL record by its line). */
import type { Trajectory } from '../trajectory/model';
import type { Rollout } from './record';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';

export async function loadRolloutTrajectory(dir: string, rollout: Rollout, signal: AbortSignal): Promise<Trajectory> {
  let trajectory: Trajectory | undefined;
  let failure: unknown;
  await forEachRolloutText(dir, [rollout], (text) => void (trajectory = importRolloutTrajectory(JSON.parse(text), rollout.path, rollout.line)), {
    signal,
    onUnreadable: (_, error) => (failure = error),
  });
  if (trajectory) return trajectory;
  throw failure ?? new Error(`${rollout.id} is no longer in the folder`);
}
