/**
 * A branch run's folder as runBranches writes it: `index.json` (the branch tree: each branch
 * point's continuations, their outcomes, rewards and masks) and each continuation's files.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorText, InputError } from '../errors';
import { writeTrajectoryFile } from '../session/trajectoryRecorder';
import { formatNamed } from '../trajectory/formatRegistry';
import type { Trajectory } from '../trajectory/model';

export const INDEX_FILE = 'index.json';

/** One continuation as the index keeps it. */
const ContinuationSchema = z.strictObject({
  sample: z.number().int().nonnegative(),
  /** The trajectory, relative to the run's folder, in the scaffold's own format. */
  file: z.string(),
  /** Its patch (the submission, or the repository's diff at its end), relative to the folder; null when it has none. */
  patch: z.string().nullable(),
  /** How the episode ended (`submitted`, `exit_step_limit`, ...). */
  outcome: z.string(),
  /** Steps the continuation took after the branch point. */
  steps: z.number().int().nonnegative(),
  /** Its reward; null when masked (then `mask` says why). */
  reward: z.number().nullable(),
  mask: z.string().nullable(),
  /** The seed its requests carried; null when the run had none. */
  seed: z.number().int().nullable(),
  /** The snapshot it restored (steps done in it) and the recorded steps it replayed on top. */
  restoredAt: z.number().int().nonnegative(),
  replayed: z.number().int().nonnegative(),
  /**
   * Where its time went, in milliseconds: starting its container and restoring the snapshot, waiting for the policy,
   * the whole episode (the policy's turns and the tools), and grading and saving (the tests, the patch, the container's removal, the files).
   */
  timings: z.strictObject({ startMs: z.number(), policyMs: z.number(), runMs: z.number(), gradeMs: z.number() }).optional(),
});
export type BranchContinuation = z.infer<typeof ContinuationSchema>;

const IndexSchema = z.strictObject({
  recording: z.strictObject({ file: z.string(), id: z.string().nullable(), steps: z.number().int().nonnegative() }),
  /** What the continuations ran under: a resumed run must be the same. */
  settings: z.strictObject({
    model: z.string(),
    scaffold: z.string(),
    maxSteps: z.number().int().positive().nullable(),
    sampling: z.record(z.string(), z.unknown()),
  }),
  /** Recorded steps replayed to reach the branch points, in all: the one replay of the recording, and any fork that had to. */
  replayedSteps: z.strictObject({ recording: z.number().int().nonnegative(), forks: z.number().int().nonnegative() }),
  /** The branch points: the state after `afterStep` steps (0: the task's start), and their continuations. */
  points: z.array(z.strictObject({ afterStep: z.number().int().nonnegative(), continuations: z.array(ContinuationSchema) })),
});
export type BranchIndex = z.infer<typeof IndexSchema>;

/** Parses an index file's text; a broken one is an `InputError` naming the file and the JSON path. */
export function parseIndex(file: string, text: string): BranchIndex {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(file, undefined, `not JSON: ${errorText(err)}`);
  }
  const parsed = IndexSchema.safeParse(value);
  if (!parsed.success) throw new InputError(file, parsed.error.issues[0]?.path.join('.') ?? undefined, `not a branch index: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

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
