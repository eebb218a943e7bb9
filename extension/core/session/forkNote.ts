/** How a fork reached its step, in numbers and in the words the Session view shows. */

/** How a fork reached its step: from a running session's snapshot, or by replaying. */
export interface ForkStart {
  /** The snapshot's step (0: none was found); steps from it to the fork's step were replayed. */
  restoredAt: number;
  replayed: number;
  /** In words, for the person. */
  note: string;
}

/** What the Session view says of how a fork reached its step. */
export function forkNote(at: number, restoredAt: number, restoreFailed: string | undefined): string {
  // A live run from a recording's task replays nothing: there is no step 1..0 to speak of.
  if (at === 0) return "a live run of the recording's task from step 1: no recorded step to replay";
  if (restoreFailed !== undefined) return `could not restore the snapshot (${restoreFailed}): replaying steps 1..${at} to fork`;
  if (restoredAt === 0) return `no running or kept session has a snapshot of this recording's steps: replaying steps 1..${at} to fork`;
  const rest = at - restoredAt;
  const replaying = rest === 0 ? '' : rest === 1 ? `, replaying step ${at}` : `, replaying steps ${restoredAt + 1}..${at}`;
  return `restored the snapshot after step ${restoredAt}${replaying}`;
}
