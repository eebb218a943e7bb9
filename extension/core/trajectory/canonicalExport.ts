import type { Trajectory } from './model';

/** Our own JSON form of a trajectory; `importTrajectory` reads it back unchanged. */
export function toCanonicalJson(trajectory: Trajectory): string {
  return JSON.stringify(trajectory, null, 2) + '\n';
}
