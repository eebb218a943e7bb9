import type { Step } from './model';
import { messageRole } from './stepLabels';

/**
 * A step copied from an earlier trajectory for context (ATIF's `is_copied_context`: the steps a
 * run keeps across a summarisation, at the head of its continuation file). It is shown, as
 * context, but it is not this run's own work: counting it again would count its tokens twice, and
 * ATIF says it must not be trained on. Token totals, the step count a reward reads and SFT export
 * all leave it out through `ownSteps`.
 */
export const COPIED_CONTEXT_FLAG = 'atif-copied-context';

const isCopiedContext = (step: Pick<Step, 'flags'>): boolean => step.flags?.includes(COPIED_CONTEXT_FLAG) === true;

/** The mark of a step read from a run's continuation file N (`atif-continuation-N`), when a run split over files is read as one (importers/atifLinks.ts). */
export const continuationFlag = (n: number): string => `atif-continuation-${n}`;

/**
 * A copied step of a run read whole from its files: the run took it in an earlier file, so a replay
 * runs it once, there. (A file read alone replays its copied head: that rebuilds the state its own
 * steps start from, as a summarising subagent's copy of the conversation does.)
 */
export function takenEarlier(step: Pick<Step, 'flags'>): boolean {
  return isCopiedContext(step) && step.flags!.some((f) => f.startsWith('atif-continuation-'));
}

/** The steps the run took itself: every step but those copied in for context. */
export function ownSteps<S extends Pick<Step, 'flags'>>(steps: readonly S[]): S[] {
  return steps.filter((s) => !isCopiedContext(s));
}

/**
 * The steps its producer counts as the run's: its own agent turns, neither a system or user
 * message kept in its place (Terminus-2's context-summarisation handoff, the user turns a router
 * hands work on with) nor a step copied in for context. Harbor counts a Terminus-2 run's episodes
 * so, and ATIF's producers their steps with source "agent".
 */
export function agentSteps<S extends Pick<Step, 'flags'>>(steps: readonly S[]): S[] {
  return steps.filter((s) => !isCopiedContext(s) && messageRole(s) === undefined);
}
