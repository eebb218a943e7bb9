import type { Step } from '../core/trajectory/model';
import type { TokenView } from '../protocol/stepper';

/** Said for a step that keeps neither logprobs nor completion ids. */
const NO_TOKEN_DATA = 'This step records no per-token data: no logprobs and no completion token ids.';

type Alternative = { token: string; logprob: number };

/**
 * The entropy in nats of the recorded alternatives (the sampled token added when they leave it
 * out). The mass past the top k is not recorded, so this is a lower bound of the distribution's.
 */
function recordedEntropy(sampled: Alternative, top: readonly Alternative[]): number {
  const all = top.some((t) => t.token === sampled.token) ? top : [...top, sampled];
  let h = 0;
  for (const { logprob } of all) if (Number.isFinite(logprob)) h -= Math.exp(logprob) * logprob;
  // -p ln p is never negative; a rounding residue of a certain token is 0.
  return Math.max(0, h);
}

/**
 * A step's tokens for the token view: the completion's tokens with their recorded logprob (and
 * entropy where alternatives beside the sampled token were recorded), their ids where the file
 * keeps them, and the prompt's and completion's lengths, each with where it comes from (counted
 * from the recorded ids or tokens, or the usage the recording reports); a length nothing records
 * is absent, which the page shows as unknown. Importers of id-only formats write a token's id as its text; such a token is sent
 * without text, for the page to decode through the server.
 */
export function toTokenView(step: Step): TokenView {
  const ids = step.tokenIds?.completion;
  const logprobs = step.logprobs ?? [];
  const promptIds = step.tokenIds?.prompt;
  const prompt =
    promptIds !== undefined
      ? { promptTokens: promptIds.length, promptFrom: 'ids' as const }
      : step.tokens?.prompt !== undefined
        ? { promptTokens: step.tokens.prompt, promptFrom: 'usage' as const }
        : {};
  let completion: TokenView['completion'];
  if (logprobs.length > 0) {
    const aligned = ids !== undefined && ids.length === logprobs.length;
    completion = logprobs.map((lp, k) => {
      const id = aligned ? ids[k] : undefined;
      const idOnly = lp.token === '' || (id !== undefined && lp.token === String(id));
      const top = lp.top?.map(({ token, logprob }) => ({ token, logprob }));
      return {
        ...(id !== undefined ? { id } : {}),
        ...(idOnly ? {} : { text: lp.token }),
        logprob: lp.logprob,
        // The sampled token alone (top-1) is no alternative: its entropy would say nothing, so none is given.
        ...(top && top.length > 0 ? { top } : {}),
        ...(top?.some((t) => t.token !== lp.token) ? { entropy: recordedEntropy(lp, top) } : {}),
      };
    });
  } else completion = (ids ?? []).map((id) => ({ id }));
  // The completion's length: its recorded tokens counted, else the usage the recording reports, else unknown (never 0).
  const completionCount =
    completion.length > 0
      ? { completionTokens: completion.length, completionFrom: 'tokens' as const }
      : step.tokens?.completion !== undefined
        ? { completionTokens: step.tokens.completion, completionFrom: 'usage' as const }
        : {};
  return { ...prompt, ...completionCount, completion, ...(completion.length === 0 ? { none: NO_TOKEN_DATA } : {}) };
}

/**
 * What decoding completion token `position` of `step` needs: its text when the file keeps it, else
 * its id for the server's /detokenize, else why it cannot be decoded (`position` counts from 0).
 */
export function tokenToDecode(step: Step, position: number): { text: string } | { id: number } | { reason: string } {
  const { completion } = toTokenView(step);
  const token = completion[position];
  if (!token) return { reason: `step ${step.index + 1} has ${completion.length} completion token(s), not a token ${position + 1}` };
  if (token.text !== undefined) return { text: token.text };
  if (token.id === undefined) return { reason: `token ${position + 1} of step ${step.index + 1} is recorded with neither its text nor its id` };
  return { id: token.id };
}
