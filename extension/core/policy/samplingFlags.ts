import type { TokenLogprob } from '../trajectory/model';

/**
 * Marks worth a look on a sampled step (Nebius' finding): top-k / top-p / min-p truncation at
 * rollout time makes the sampling distribution differ from the one training assumes, and a chosen
 * token far down the distribution is where a rollout often turns.
 */
const TRUNCATED_SAMPLING_FLAG = 'truncated-sampling';
const LOW_LOGPROB_FLAG = 'low-logprob-token';

/** ln(0.001): the chosen token had less than a 0.1% chance. */
const DEFAULT_LOW_LOGPROB = Math.log(0.001);

export function samplingFlags(sampling: Record<string, unknown>, logprobs: readonly TokenLogprob[] | undefined, lowLogprob = DEFAULT_LOW_LOGPROB): string[] {
  const flags: string[] = [];
  const { top_k: topK, top_p: topP, min_p: minP } = sampling;
  if ((typeof topK === 'number' && topK > 0) || (typeof topP === 'number' && topP < 1) || (typeof minP === 'number' && minP > 0)) {
    flags.push(TRUNCATED_SAMPLING_FLAG);
  }
  if (logprobs?.some((t) => t.logprob < lowLogprob)) flags.push(LOW_LOGPROB_FLAG);
  return flags;
}
