import { InputError } from '../errors';
import { factsOf } from '../trajectory/formatFacts';
import type { Trajectory } from '../trajectory/model';
import type { TrajectoryFacts } from './record';
import { trajectoryFacts } from './trajectoryFacts';
import { importRolloutTrajectory } from './trajectoryImport';

/**
 * The facts of one parsed trajectory document (several for a document holding several), and
 * its first trajectory, whose texts full-text search looks in (the text store keeps them).
 */
export type FactsReader = (value: unknown, file: string, line: number | undefined) => { facts: TrajectoryFacts[]; first: Trajectory | undefined };

/**
 * The index's reader: the one importer `inspect` and the editor use (format detection and the
 * importers of core/trajectory), so a file the index lists is one `inspect` opens, and a file
 * either refuses is refused by both with the same words.
 */
export const summarizeTrajectory: FactsReader = (value, file, line) => {
  const t = importRolloutTrajectory(value, file, line);
  const exported = factsOf(t.format)?.notARollout;
  if (exported !== undefined) throw new InputError(file, line === undefined ? undefined : `line ${line}`, `not a rollout: ${exported}`);
  return { facts: [trajectoryFacts(t, line)], first: t };
};
