import type { Step } from './model';

/**
 * A step copied from an earlier trajectory for context (ATIF's `is_copied_context`: the steps a
 * run keeps across a summarisation, at the head of its continuation file). It is shown, as
 * context, but it is not this run's own work: counting it again would count its tokens twice, and
 * ATIF says it must not be trained on. Token totals, the step count a reward reads and SFT export
 * all leave it out through `ownSteps`.
 */
export const COPIED_CONTEXT_FLAG = 'atif-copied-context';

export const isCopiedContext = (step: Pick<Step, 'flags'>): boolean => step.flags?.includes(COPIED_CONTEXT_FLAG) === true;

/** The steps the run took itself: every step but those copied in for context. */
export function ownSteps<S extends Pick<Step, 'flags'>>(steps: readonly S[]): S[] {
  return steps.filter((s) => !isCopiedContext(s));
}
