/** The span the bars are drawn over: [0, 1] unless a term falls outside it (SWE-RL's -1, a penalty). */
export function chartScale(values: readonly number[]): { min: number; max: number } {
  return { min: Math.min(0, ...values), max: Math.max(1, ...values) };
}
