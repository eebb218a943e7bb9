// zod/mini: the replay compare view's bundle carries these schemas.
import * as z from 'zod/mini';
import { notificationType, requestType } from './ipc';

/**
 * The replay compare view's messages. The host holds the running session; for the step the person
 * clicked in the Session view it hands the webview the recorded and the replayed observation as
 * text, the line diff the replay's comparison made (core/session/divergence) and the normalisers
 * it applied, named. Clicking another step row sends the new step as `replayCompare/show`.
 */

const Count = z.int().check(z.nonnegative());

const DiffLineSchema = z.object({
  kind: z.enum(['hunk', 'context', 'recorded', 'replayed']),
  text: z.string(),
});
export type DiffLine = z.infer<typeof DiffLineSchema>;

const NormaliserUseSchema = z.object({
  name: z.string(),
  /** What it forgives, in the person's words. */
  forgives: z.string(),
  /** It changed the recorded or the replayed text of this step (else it was ready, with nothing to forgive). */
  changed: z.boolean(),
});
type NormaliserUse = z.infer<typeof NormaliserUseSchema>;

const ObservationSideSchema = z.object({
  observation: z.string(),
  /** `exit 0`, or `exit unknown` when not recorded. */
  exit: z.string(),
  /** The step's duration as text (`42 ms`, `1.3 s`), or `unknown`. */
  duration: z.string(),
});
export type ObservationSide = z.infer<typeof ObservationSideSchema>;

const ReplayCompareSchema = z.object({
  /** The session's title, e.g. `replay run.traj`. */
  session: z.string(),
  index: Count,
  /** `Step 3 · bash`. */
  title: z.string(),
  action: z.string(),
  matched: z.boolean(),
  recorded: ObservationSideSchema,
  replayed: ObservationSideSchema,
  /** The diff of the normalised texts (`recorded` lines are the recording's); empty when matched. */
  diff: z.array(DiffLineSchema),
  normalisers: z.array(NormaliserUseSchema),
  /** Said above the sides, e.g. that the action was edited before it ran. */
  note: z.optional(z.string()),
});
export type ReplayCompare = z.infer<typeof ReplayCompareSchema>;

/** What the view shows at boot: the step, or why there is none. */
const ReplayCompareStateSchema = z.union([
  z.object({ kind: z.literal('step'), step: ReplayCompareSchema }),
  z.object({ kind: z.literal('empty'), message: z.string() }),
]);
export type ReplayCompareState = z.infer<typeof ReplayCompareStateSchema>;

export const replayCompareLoad = requestType('replayCompare/load', z.object({}), ReplayCompareStateSchema);

/** The host moved the view to another step (a step row was clicked, or the session changed). */
export const replayCompareShow = notificationType('replayCompare/show', ReplayCompareStateSchema);
