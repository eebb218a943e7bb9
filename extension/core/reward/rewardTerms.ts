/** One part of a reward, with the rule it came from, so a view can show the breakdown. */
export interface RewardTerm {
  name: string;
  /** The term's part of the reward; null for a term that masks the rollout (it contributes no number). */
  value: number | null;
  rule: string;
}

export interface Reward {
  value: number;
  terms: RewardTerm[];
  /** Set when the rollout is left out of the loss (infra errors, filtered finish reasons). */
  masked?: Mask;
}

/**
 * Why a rollout gives no gradient: a first-class outcome, never a silent 0. `code` is the finish
 * reason or failure that caused it (a FinishReason of shapes.ts), `reason` what a person reads.
 */
export interface Mask {
  reason: string;
  code?: string;
}

export const term = (name: string, value: number, rule: string): RewardTerm => ({ name, value, rule });
/** The term that says why a rollout is masked: a reason, never a number. */
export const maskTerm = (name: string, rule: string): RewardTerm => ({ name, value: null, rule });
