import { z } from 'zod';

/**
 * What an OpenAI-compatible server (vLLM, SGLang, TGI) sends back, checked at the edge. Fields the
 * client does not read stay loose so a newer server's additions do not break a run.
 */

const TokenIdsSchema = z.array(z.number().int()).nullable().optional();

export const ModelListSchema = z.looseObject({
  object: z.literal('list').optional(),
  data: z.array(z.looseObject({ id: z.string(), max_model_len: z.number().optional() })),
});

const TopLogprobSchema = z.looseObject({ token: z.string(), logprob: z.number() });
const TokenLogprobEntrySchema = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(TopLogprobSchema).nullable().optional(),
});
export type TokenLogprobEntry = z.infer<typeof TokenLogprobEntrySchema>;
const ChoiceLogprobsSchema = z
  .looseObject({ content: z.array(TokenLogprobEntrySchema).nullable().optional() })
  .nullable()
  .optional();

const UsageSchema = z
  .looseObject({ prompt_tokens: z.number(), completion_tokens: z.number().optional(), total_tokens: z.number().optional() })
  .nullable()
  .optional();
export type Usage = z.infer<typeof UsageSchema>;

const ToolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

export const ChatCompletionSchema = z.looseObject({
  id: z.string(),
  model: z.string(),
  choices: z
    .array(
      z.looseObject({
        index: z.number(),
        message: z.looseObject({
          role: z.literal('assistant'),
          content: z.string().nullable().optional(),
          reasoning_content: z.string().nullable().optional(),
          tool_calls: z.array(ToolCallSchema).nullable().optional(),
        }),
        logprobs: ChoiceLogprobsSchema,
        finish_reason: z.string().nullable(),
        /** vLLM with `return_token_ids`: the sampled ids. */
        token_ids: TokenIdsSchema,
      }),
    )
    .min(1),
  usage: UsageSchema,
  /** vLLM with `return_token_ids`: the ids of the prompt as the engine saw it. */
  prompt_token_ids: TokenIdsSchema,
});

export const ChatCompletionChunkSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number(),
      delta: z.looseObject({
        role: z.string().nullable().optional(),
        content: z.string().nullable().optional(),
        reasoning_content: z.string().nullable().optional(),
        tool_calls: z
          .array(
            z.looseObject({
              index: z.number().int().nonnegative(),
              id: z.string().nullable().optional(),
              type: z.literal('function').nullable().optional(),
              function: z.looseObject({ name: z.string().nullable().optional(), arguments: z.string().nullable().optional() }).optional(),
            }),
          )
          .nullable()
          .optional(),
      }),
      logprobs: ChoiceLogprobsSchema,
      finish_reason: z.string().nullable().optional(),
      token_ids: TokenIdsSchema,
    }),
  ),
  usage: UsageSchema,
  prompt_token_ids: TokenIdsSchema,
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

const ErrorDetailSchema = z.looseObject({
  message: z.string(),
  type: z.string().nullable().optional(),
  param: z.unknown().optional(),
  code: z.union([z.string(), z.number()]).nullable().optional(),
});

/** OpenAI's `{"error": {...}}`, or older vLLM's top-level `{"object": "error", message, ...}`. */
export const ErrorBodySchema = z.union([
  z.looseObject({ error: ErrorDetailSchema }).transform((b) => b.error),
  z.looseObject({ object: z.literal('error') }).and(ErrorDetailSchema),
]);
