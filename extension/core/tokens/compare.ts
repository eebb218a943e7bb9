/**
 * The rollout/trainer comparison of one sampled token, and its sums over a step, a rollout and a
 * run. The difference is the scorer's logprob minus the engine's (trainer minus rollout), so the
 * ratio exp(difference) is the importance weight a trainer would apply (pi_train / pi_rollout),
 * and k3 = ratio - 1 - difference is Schulman's low-variance estimate of KL(rollout || trainer)
 * from tokens the rollout sampled: never negative, 0 exactly when both agree.
 */

export interface Bounds {
  low: number;
  high: number;
}

/** The truncated-importance-sampling bounds most trainers start from. */
export const DEFAULT_BOUNDS: Bounds = { low: 0.8, high: 1.25 };

export interface TokenComparison {
  /** 0-based position in the step's completion. */
  position: number;
  id: number;
  /** The token's text: as recorded, or for a run's worst tokens as the server decodes the id; absent when unknown. */
  text?: string;
  recorded: number;
  rescored: number;
  /** rescored - recorded. */
  diff: number;
  /** exp(diff). */
  ratio: number;
  outside: boolean;
  k3: number;
}

export function compareToken(
  position: number,
  id: number,
  recorded: number,
  rescored: number,
  bounds: Bounds = DEFAULT_BOUNDS,
  text?: string,
): TokenComparison {
  const diff = rescored - recorded;
  const ratio = Math.exp(diff);
  // expm1 keeps k3 exact for tiny differences, where exp(d) - 1 - d loses every digit.
  const k3 = Math.expm1(diff) - diff;
  return { position, id, ...(text !== undefined ? { text } : {}), recorded, rescored, diff, ratio, outside: ratio < bounds.low || ratio > bounds.high, k3 };
}

/** Sums that add up across steps and rollouts; means are taken at the end. */
export interface TokenTotals {
  tokens: number;
  sumAbsDiff: number;
  maxAbsDiff: number;
  outside: number;
  sumK3: number;
}

export const EMPTY_TOTALS: TokenTotals = { tokens: 0, sumAbsDiff: 0, maxAbsDiff: 0, outside: 0, sumK3: 0 };

export function totalsOf(tokens: readonly TokenComparison[]): TokenTotals {
  let t = EMPTY_TOTALS;
  for (const c of tokens)
    t = {
      tokens: t.tokens + 1,
      sumAbsDiff: t.sumAbsDiff + Math.abs(c.diff),
      maxAbsDiff: Math.max(t.maxAbsDiff, Math.abs(c.diff)),
      outside: t.outside + (c.outside ? 1 : 0),
      sumK3: t.sumK3 + c.k3,
    };
  return t;
}

export function addTotals(a: TokenTotals, b: TokenTotals): TokenTotals {
  return {
    tokens: a.tokens + b.tokens,
    sumAbsDiff: a.sumAbsDiff + b.sumAbsDiff,
    maxAbsDiff: Math.max(a.maxAbsDiff, b.maxAbsDiff),
    outside: a.outside + b.outside,
    sumK3: a.sumK3 + b.sumK3,
  };
}

export interface TokenSummary {
  tokens: number;
  /** null when no token was re-scored: unknown, not 0. */
  maxAbsDiff: number | null;
  meanAbsDiff: number | null;
  outside: number;
  /** The mean k3 per token: the KL estimate. */
  kl: number | null;
}

export function summarize(t: TokenTotals): TokenSummary {
  const none = t.tokens === 0;
  return {
    tokens: t.tokens,
    maxAbsDiff: none ? null : t.maxAbsDiff,
    meanAbsDiff: none ? null : t.sumAbsDiff / t.tokens,
    outside: t.outside,
    kl: none ? null : t.sumK3 / t.tokens,
  };
}

/** The `limit` tokens of largest |diff| (ties: earlier first), from already-sorted lists or not. */
export function worstTokens<T extends { diff: number }>(lists: ReadonlyArray<readonly T[]>, limit: number): T[] {
  return lists
    .flat()
    .map((c, order) => ({ c, order }))
    .sort((a, b) => Math.abs(b.c.diff) - Math.abs(a.c.diff) || a.order - b.order)
    .slice(0, limit)
    .map((x) => x.c);
}
