import { importTrajectory } from '../trajectory/load';
import type { Trajectory } from '../trajectory/model';

/** The index's importer: format detection and the importers of core/trajectory, for one parsed document. */
export function importRolloutTrajectory(value: unknown, file: string, line: number | undefined): Trajectory {
  return importTrajectory(value, line === undefined ? { file } : { file, line });
}
