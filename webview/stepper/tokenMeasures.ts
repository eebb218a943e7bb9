/** How the token view measures tokens: which are marked and how strongly, and the counts it states. */
import type { TokenView } from '../../extension/protocol/stepper';
import { formatCount } from '../format';

export type Token = TokenView['completion'][number];
export type ColourBy = 'probability' | 'entropy';

/** A sampled token below this probability is marked, below the second strongly. */
const LOW_PROBABILITY = 0.5;
const VERY_LOW_PROBABILITY = 0.1;
/** Entropy (nats) of the recorded alternatives at which a token is marked uncertain, and strongly. */
const HIGH_ENTROPY = 0.5;
const VERY_HIGH_ENTROPY = 1.5;

/** How strongly a token is marked: 0 not, 1 `low`, 2 `very-low`; undefined when its measure was not recorded. */
export function tokenLevel(token: Token, by: ColourBy): 0 | 1 | 2 | undefined {
  if (by === 'entropy') {
    if (token.entropy === undefined) return undefined;
    return token.entropy >= VERY_HIGH_ENTROPY ? 2 : token.entropy >= HIGH_ENTROPY ? 1 : 0;
  }
  if (token.logprob === undefined) return undefined;
  const p = Math.exp(token.logprob);
  return p < VERY_LOW_PROBABILITY ? 2 : p < LOW_PROBABILITY ? 1 : 0;
}

/** A length as the recording gives it: counted from its recorded tokens or ids, or its reported usage; unknown when neither. */
function countText(count: number | undefined, from: 'ids' | 'tokens' | 'usage' | undefined): string {
  if (count === undefined) return 'unknown';
  return `${formatCount(count)} tokens (${from === 'usage' ? 'recorded usage' : `counted from the recorded ${from === 'ids' ? 'ids' : 'tokens'}`})`;
}

/** */
export function promptLine(view: TokenView): string {
  return `Prompt: ${countText(view.promptTokens, view.promptFrom)} · Completion: ${countText(view.completionTokens, view.completionFrom)}`;
}

/** How tokens are coloured at first: by entropy only where alternatives were recorded, else by the sampled token's probability. */
export function defaultColouring(tokens: readonly Token[]): ColourBy {
  return tokens.some((t) => t.entropy !== undefined) ? 'entropy' : 'probability';
}

export function legend(by: ColourBy, tokens: readonly Token[]): string {
  const marked = (level: 1 | 2) => tokens.filter((t) => (tokenLevel(t, by) ?? 0) >= level).length;
  return by === 'entropy'
    ? `${marked(1)} with entropy ≥ ${HIGH_ENTROPY} nats, ${marked(2)} ≥ ${VERY_HIGH_ENTROPY} (over the recorded alternatives: a lower bound)`
    : `${marked(1)} below p = ${LOW_PROBABILITY}, ${marked(2)} below p = ${VERY_LOW_PROBABILITY}`;
}
