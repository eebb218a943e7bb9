/**
 * What re-scoring asks of the policy server, in the words of vLLM's and SGLang's APIs
 * (docs/tokens.md lists the fields):
 * - vLLM: `POST /v1/completions` with the token ids as `prompt`, `max_tokens: 1` and
 *   `prompt_logprobs: 0`; each choice's `prompt_logprobs` holds, per position, null (position 0)
 *   or `{"<id>": {logprob, rank, decoded_token}}`.
 * - SGLang: `POST /generate` with `input_ids`, `return_logprob: true` and `logprob_start_len`;
 *   `meta_info.input_token_logprobs` holds `[logprob, id, text]` from that position on.
 * - vLLM's `POST /tokenize` with `messages` (its chat template applies, `add_generation_prompt`)
 *   and `POST /detokenize` with `tokens`, for drift.
 */
import { z } from 'zod';
import type { ChatMessage, PolicyClient } from '../policy/policyClient';

export type ScoringApi = 'vllm' | 'sglang';
export const SCORING_APIS: readonly ScoringApi[] = ['vllm', 'sglang'];

/** A request the server could not answer for this step: said per step, never turned into a number. */
class ScoringError extends Error {
  override readonly name = 'ScoringError';
}

const VllmCompletionSchema = z.looseObject({
  choices: z.array(z.looseObject({ prompt_logprobs: z.array(z.unknown()).nullish() })).min(1),
});
const PromptLogprobEntrySchema = z.record(z.string(), z.looseObject({ logprob: z.number() }));

const SglangGenerateSchema = z.looseObject({
  meta_info: z.looseObject({ input_token_logprobs: z.array(z.tuple([z.number().nullable(), z.number().int()]).rest(z.unknown())).nullish() }),
});

const TokenizeSchema = z.looseObject({ tokens: z.array(z.number().int()) });
const DetokenizeSchema = z.looseObject({ prompt: z.string() });

export class TokenServer {
  constructor(
    readonly client: PolicyClient,
    readonly api: ScoringApi = 'vllm',
  ) {}

  get maxModelLen(): number | undefined {
    return this.client.maxModelLen;
  }

  /** The server's logprob of each of `ids[from..]` given the ids before it: one request. */
  async score(ids: readonly number[], from: number, signal?: AbortSignal): Promise<number[]> {
    if (from < 1) throw new ScoringError('the first token has no logprob: nothing comes before it');
    const max = this.maxModelLen;
    // The server would refuse it anyway; saying so here names the step and spares the request.
    if (max !== undefined && ids.length + 1 > max)
      throw new ScoringError(`the prompt and completion are ${ids.length} tokens, longer than the model's context of ${max} (with 1 to generate)`);
    return this.api === 'vllm' ? this.scoreVllm(ids, from, signal) : this.scoreSglang(ids, from, signal);
  }

  private async scoreVllm(ids: readonly number[], from: number, signal?: AbortSignal): Promise<number[]> {
    const body = { model: this.client.model, prompt: ids, max_tokens: 1, prompt_logprobs: 0, temperature: 0 };
    const reply = await this.client.post('/v1/completions', body, VllmCompletionSchema, signal);
    const entries = reply.choices[0]!.prompt_logprobs;
    if (!entries) throw new ScoringError('the server sent no prompt_logprobs (does it support them? vLLM does)');
    if (entries.length !== ids.length) throw new ScoringError(`the server sent prompt_logprobs for ${entries.length} positions, not ${ids.length}`);
    const out: number[] = [];
    for (let p = from; p < ids.length; p++) {
      const entry = PromptLogprobEntrySchema.safeParse(entries[p]);
      const logprob = entry.success ? entry.data[String(ids[p])]?.logprob : undefined;
      if (logprob === undefined) throw new ScoringError(`the server's prompt_logprobs at position ${p} do not include token ${ids[p]}`);
      out.push(logprob);
    }
    return out;
  }

  private async scoreSglang(ids: readonly number[], from: number, signal?: AbortSignal): Promise<number[]> {
    const body = { input_ids: ids, sampling_params: { max_new_tokens: 1, temperature: 0 }, return_logprob: true, logprob_start_len: from };
    const reply = await this.client.post('/generate', body, SglangGenerateSchema, signal);
    const entries = reply.meta_info.input_token_logprobs;
    if (!entries) throw new ScoringError('the server sent no input_token_logprobs');
    if (entries.length !== ids.length - from)
      throw new ScoringError(`the server sent input_token_logprobs for ${entries.length} positions, not the ${ids.length - from} from position ${from}`);
    return entries.map(([logprob, id], k) => {
      if (logprob === null || id !== ids[from + k])
        throw new ScoringError(`the server's input_token_logprobs at position ${from + k} are not token ${ids[from + k]}'s`);
      return logprob;
    });
  }

  /** The ids the server's chat template gives `messages`, ready for the next assistant turn. */
  async tokenizeChat(messages: readonly ChatMessage[], signal?: AbortSignal): Promise<number[]> {
    const body = { model: this.client.model, messages, add_generation_prompt: true };
    return (await this.client.post('/tokenize', body, TokenizeSchema, signal)).tokens;
  }

  async detokenize(ids: readonly number[], signal?: AbortSignal): Promise<string> {
    return (await this.client.post('/detokenize', { model: this.client.model, tokens: ids }, DetokenizeSchema, signal)).prompt;
  }
}
