/** One part of a reward, with the rule it came from, so a view can show the breakdown. */
export interface RewardTerm {
  name: string;
  value: number;
  rule: string;
}

export interface Reward {
  value: number;
  terms: RewardTerm[];
  /** Set when the rollout is left out of the loss (infra errors, filtered finish reasons). */
  masked?: { reason: string };
}

export const term = (name: string, value: number, rule: string): RewardTerm => ({ name, value, rule });
