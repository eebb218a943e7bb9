/**
 * Group-relative advantages of outcome rewards: every rollout of a GRPO group (one prompt, n
 * samples) gets one advantage, the same for all its tokens.
 *
 * - GRPO (Shao et al. 2024, DeepSeekMath, sec. 4.1.2, outcome supervision):
 *   A_i = (r_i - mean(r)) / (std(r) + eps), std the sample standard deviation (n - 1), as verl's
 *   compute_grpo_outcome_advantage and TRL compute it (torch.std), eps = 1e-6.
 * - Dr. GRPO (Liu et al. 2025, "Understanding R1-Zero-Like Training", sec. 3.2): A_i = r_i - mean(r),
 *   no division by the std (it biases towards too easy and too hard groups).
 * - RLOO (Ahmadian et al. 2024, "Back to Basics", eq. 7; Kool et al. 2019):
 *   A_i = r_i - (1 / (n - 1)) * sum_{j != i} r_j, the mean of the others as the baseline.
 *
 * A group of one has no baseline to compare against: its advantage is 0 (no gradient).
 */
export const ESTIMATORS = ['grpo', 'drgrpo', 'rloo'] as const;
export type Estimator = (typeof ESTIMATORS)[number];

const GRPO_EPSILON = 1e-6;

export const ESTIMATOR_FORMULA: Record<Estimator, string> = {
  grpo: 'GRPO: (r - mean) / (std + 1e-6), sample std (DeepSeekMath 4.1.2)',
  drgrpo: 'Dr. GRPO: r - mean, no std (Liu et al. 2025, 3.2)',
  rloo: 'RLOO: r - mean of the other rollouts (Ahmadian et al. 2024, eq. 7)',
};

export interface GroupAdvantages {
  /** One per value, in order. */
  advantages: number[];
  mean: number;
  /** Sample standard deviation (n - 1); 0 for a group of one. */
  std: number;
}

export function groupAdvantages(values: readonly number[], estimator: Estimator): GroupAdvantages {
  const n = values.length;
  if (n === 0) return { advantages: [], mean: 0, std: 0 };
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const std = n < 2 ? 0 : Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  if (n < 2) return { advantages: values.map(() => 0), mean, std };
  const advantages = values.map((r) => {
    switch (estimator) {
      case 'grpo':
        return (r - mean) / (std + GRPO_EPSILON);
      case 'drgrpo':
        return r - mean;
      case 'rloo':
        return r - (sum - r) / (n - 1);
    }
  });
  return { advantages, mean, std };
}
