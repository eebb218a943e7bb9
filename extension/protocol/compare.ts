// zod/mini: the compare view's bundle carries these schemas.
import * as z from 'zod/mini';
import { requestType } from './ipc';
import { RUN_FACTS_SHAPE } from './stepper';

/**
 * The compare view's messages. The host reads two or more trajectories of one task, aligns
 * their steps by action (core/trajectory/alignSteps) and hands the webview the aligned rows,
 * each run's outcome and totals, and its final patch as text; the webview renders the patches
 * with diff2html, which escapes every piece of patch text.
 */

const Count = z.int().check(z.nonnegative());

const CompareRunSchema = z.object({
  /** The column's name, unlike the others': the rollout's attempt, else the file's name (with a folder when names repeat, `:LINE` for a record of a JSONL file). */
  label: z.string(),
  /** Below the name: the format, and the file when the name is the attempt. */
  detail: z.string(),
  /** The file's path, shown on hover. */
  path: z.string(),
  format: z.string(),
  instanceId: z.optional(z.string()),
  model: z.optional(z.string()),
  stepCount: Count,
  /** What graded its outcome (resolved or not, as the rollouts table grades the run when it is one of its rows): the evaluation report (relative to the rollouts folder) or `the trajectory`; absent when nothing did. */
  gradedBy: z.optional(z.string()),
  ...RUN_FACTS_SHAPE,
  /** The final patch as submitted; '' when the run submitted none. */
  patch: z.string(),
  /** The steps (0-based) its file marks as diverged from the recording it replayed: a replay's output differed there. */
  diverged: z.array(Count),
});
export type CompareRun = z.infer<typeof CompareRunSchema>;

const CompareCellSchema = z.object({
  index: Count,
  kind: z.string(),
  label: z.string(),
  fullLabel: z.string(),
  error: z.boolean(),
  /** The replay's output differed from the recording's at this step. */
  diverged: z.boolean(),
});
type CompareCell = z.infer<typeof CompareCellSchema>;

const CompareRowSchema = z.object({
  /** One cell per run; null where that run took no step here. */
  cells: z.array(z.nullable(CompareCellSchema)),
  /** Every run took the same (normalised) action here. */
  same: z.boolean(),
  /** The row is of the prefix the runs share up to the branch point (`branchPoint`): shown collapsed. */
  shared: z.optional(z.boolean()),
});
type CompareRow = z.infer<typeof CompareRowSchema>;

const CompareContentSchema = z.object({
  title: z.string(),
  runs: z.array(CompareRunSchema),
  rows: z.array(CompareRowSchema),
  /** The first row where the runs part; null when they take the same actions throughout. With a branch point, counted from it. */
  firstDivergence: z.nullable(Count),
  /**
   * Compared from a branch point: the runs share their first `afterStep` steps (a continuation
   * forked from the recording after its step `afterStep`), whose `sharedRows` rows come first,
   * marked `shared`; the rows after are aligned on their own, from the branch point.
   */
  branchPoint: z.optional(z.object({ afterStep: Count, sharedRows: Count })),
  /** Said above everything when the runs are not all of one task. */
  warning: z.optional(z.string()),
});
export type CompareContent = z.infer<typeof CompareContentSchema>;

export const compareLoad = requestType('compare/load', z.object({}), CompareContentSchema);

/** Opens run `run`'s step `index` in the stepper. */
export const compareOpenStep = requestType('compare/openStep', z.object({ run: Count, index: Count }), z.object({ opened: z.boolean() }));
