/**
 * A branch run's index, `RECORDING.branches/index.json` (core/branch writes it): the branch tree,
 * each branch point's continuations with their outcomes, rewards and masks. Kept here, below the
 * branch run, because the rollouts index reads it too: a branched rollout's row shows its
 * critical step.
 */
import { z } from 'zod';
import { errorText, InputError } from '../errors';
import { recordingOfBranchFolder } from './branchFolderName';
import { branchValues, type BranchPointRewards, type BranchSummary } from '../reward/branchValues';

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

/** The V(t) summary of an index's continuations. */
export function summarizeIndex(index: BranchIndex, seed = 0): BranchSummary {
  const points: BranchPointRewards[] = index.points.map((p) => ({
    at: p.afterStep,
    // A continuation with neither a reward nor a mask (an index written by hand or by another
    // tool) is unknown, never 0: left out of V with its reason, as a masked one is.
    continuations: p.continuations.map((c) =>
      c.mask !== null ? { reward: null, mask: c.mask } : c.reward === null ? { reward: null, mask: 'no reward recorded' } : { reward: c.reward },
    ),
  }));
  return branchValues(points, seed);
}

/**
 * A branched rollout's critical step as its row keeps it: V fell most across steps `from`+1 to
 * `to` (one step when they are consecutive), from `before` to `after`.
 */
export interface CriticalStep {
  from: number;
  to: number;
  before: number;
  after: number;
}

/** The critical step of a branch run; null when V never falls between its branched states. */
export function criticalStepOf(index: BranchIndex): CriticalStep | null {
  const summary = summarizeIndex(index);
  const { critical } = summary;
  if (!critical) return null;
  const value = (at: number) => summary.values.find((v) => v.at === at)?.value;
  const before = value(critical.from);
  const after = value(critical.to);
  // A change is only measured between two known values (branchValues).
  if (before === null || before === undefined || after === null || after === undefined) return null;
  return { from: critical.from, to: critical.to, before, after };
}

/**
 * The recording whose branch run's index is at `path` (relative, forward slashes:
 * `RECORDING.branches/index.json` names `RECORDING`); undefined for any other file.
 */
export function recordingOfBranchIndex(path: string): string | undefined {
  // Plain string work, no node:path: the views' pure build reads this module's types.
  const slash = path.lastIndexOf('/');
  if (slash < 0 || path.slice(slash + 1) !== INDEX_FILE) return undefined;
  const folder = path.slice(0, slash);
  const parentEnd = folder.lastIndexOf('/');
  const recording = recordingOfBranchFolder(folder.slice(parentEnd + 1));
  return recording === undefined ? undefined : `${folder.slice(0, parentEnd + 1)}${recording}`;
}
