import type { Trajectory } from './model';

/**
 * Our own JSON form of a trajectory; `importTrajectory` reads it back unchanged, but for the
 * source file a trajectory keeps to write its own format again (`meta.kept`), which would double
 * the file.
 */
export function toCanonicalJson(trajectory: Trajectory): string {
  const { kept: _kept, ...meta } = trajectory.meta;
  return JSON.stringify(meta === trajectory.meta ? trajectory : { ...trajectory, meta }, null, 2) + '\n';
}
