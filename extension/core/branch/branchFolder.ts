/**
 * A branch run's folder as runBranches writes it: `index.json` (the branch tree, whose shape
 * `core/rollouts/branchIndex.ts` holds) and each continuation's files.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE, type BranchIndex } from '../rollouts/branchIndex';
import { writeTrajectoryFile } from '../session/trajectoryRecorder';
import { formatNamed } from '../trajectory/formatRegistry';
import type { Trajectory } from '../trajectory/model';

/** Writes the index of the run in `out` whole, through a temporary file, so a reader never sees half of it. */
export async function saveBranchIndex(out: string, index: BranchIndex): Promise<void> {
  const file = path.join(out, INDEX_FILE);
  const sorted = { ...index, points: [...index.points].sort((a, b) => a.afterStep - b.afterStep) };
  for (const p of sorted.points) p.continuations.sort((a, b) => a.sample - b.sample);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(sorted, null, 2) + '\n', 'utf8');
  await rename(temporary, file);
}

/**
 * Writes a finished continuation's files into the run's folder `out`: its trajectory in `format`
 * (`after-step-T/continuation-K.EXT`) and its patch beside it when it submitted one; returns
 * their paths relative to the folder, as the index names them.
 */
export async function writeContinuationFiles(
  out: string,
  afterStep: number,
  sample: number,
  trajectory: Trajectory,
  format: string,
): Promise<{ file: string; patch: string | null }> {
  const extension = formatNamed(format)?.exporter?.extension ?? '.json';
  const folder = `after-step-${afterStep}`;
  const base = `${folder}/continuation-${sample + 1}`;
  await mkdir(path.join(out, folder), { recursive: true });
  const file = `${base}${extension}`;
  await writeTrajectoryFile(path.join(out, file), trajectory, format);
  const submission = trajectory.outcome.submission;
  const patch = submission !== undefined && submission !== '' ? `${base}.patch` : null;
  if (patch !== null) await writeFile(path.join(out, patch), submission!, 'utf8');
  return { file, patch };
}
