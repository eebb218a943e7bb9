import { TrajectorySchema, type Trajectory } from '../model';
import { sourceRef, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

/** Our own JSON: validated whole; each step's source now points into this file. */
export function importCanonical(value: unknown, ctx: ImportContext): Trajectory {
  const t = parseInput(TrajectorySchema, value, ctx.file, ctx.base);
  return { ...t, steps: t.steps.map((step, i) => ({ ...step, source: sourceRef(ctx, ['steps', i]) })) };
}
