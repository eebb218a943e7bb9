import { z } from 'zod';
import { InputError, jsonPath } from '../../errors';
import type { Step, Trajectory } from '../model';
import { ChatMessageSchema, chatSteps, preambleOf } from '../chatSteps';
import { textCallHooks } from '../textCalls';
import { defined, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

const ResultSchema = z.looseObject({
  instance_id: z.union([z.string(), z.number()]).nullish(),
  trajectory_id: z.union([z.string(), z.number()]).nullish(),
  messages: z.array(ChatMessageSchema),
  error: z.string().nullish(),
  finish: z.boolean().nullish(),
  finish_reason: z.string().nullish(),
  reward: z.number().nullish(),
  eval_error: z.string().nullish(),
  // A generator output's per-sample fields (SkyRL-train): the prompt's ids, then every turn's
  // ids in one list, the assistant's marked 1 in the loss mask, with the engine's logprobs.
  prompt_token_ids: z.array(z.number().int()).nullish(),
  response_ids: z.array(z.number().int()).nullish(),
  loss_mask: z.array(z.number()).nullish(),
  loss_masks: z.array(z.number()).nullish(),
  rollout_logprobs: z.array(z.number()).nullish(),
});
type Result = z.infer<typeof ResultSchema>;

/** SkyRL-Agent's finish reasons whose loss is masked in training; FINISH_TOOL is a normal end. */
export const LOSS_MASKED_FINISH_REASONS: ReadonlySet<string> = new Set([
  'CONTEXT_WINDOW_EXCEEDED',
  'error_runtime',
  'error_evaluation',
  'max_iterations_reached',
  'BAD_LLM_RESPONSE',
  'stuck_in_a_loop',
  'cmd_timeout',
]);

/** The runs of 1 in the loss mask: each assistant turn's place in `response_ids`. */
function assistantSpans(mask: readonly number[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] !== 1) continue;
    const start = i;
    while (i < mask.length && mask[i] === 1) i++;
    spans.push([start, i]);
  }
  return spans;
}

/**
 * Each step's prompt is the sample's prompt plus every response token before its turn (the
 * observations included, as the engine saw them); its completion is its turn's span.
 */
function withTokenIds(steps: Step[], result: Result, ctx: ImportContext): Step[] {
  const response = result.response_ids;
  if (!response) return steps;
  const mask = result.loss_mask ?? result.loss_masks;
  const where = (key: string) => jsonPath([...ctx.base, key]);
  if (!mask)
    throw new InputError(ctx.file, where('response_ids'), 'response_ids without a loss_mask: the assistant turns cannot be told from the observations');
  if (mask.length !== response.length)
    throw new InputError(ctx.file, where('loss_mask'), `${mask.length} entries for ${response.length} response_ids; they must be as long`);
  const logprobs = result.rollout_logprobs;
  if (logprobs && logprobs.length !== response.length)
    throw new InputError(ctx.file, where('rollout_logprobs'), `${logprobs.length} logprobs for ${response.length} response_ids; they must be as long`);
  const spans = assistantSpans(mask);
  if (spans.length !== steps.length)
    throw new InputError(
      ctx.file,
      where('loss_mask'),
      `${spans.length} assistant turn(s) in the loss mask for ${steps.length} assistant step(s) in the messages`,
    );
  const prompt = result.prompt_token_ids ?? undefined;
  return steps.map((step, i) => {
    const [start, end] = spans[i]!;
    const completion = response.slice(start, end);
    return {
      ...step,
      tokenIds: { ...(prompt ? { prompt: [...prompt, ...response.slice(0, start)] } : {}), completion },
      ...(logprobs ? { logprobs: logprobs.slice(start, end).map((logprob, k) => ({ token: String(completion[k]), logprob })) } : {}),
    };
  });
}

/** A SkyRL-Agent TrajectoryResult, with a generator output's token ids when it carries them. */
export function importSkyRl(value: unknown, ctx: ImportContext): Trajectory {
  const result = parseInput(ResultSchema, value, ctx.file, ctx.base);
  const preamble = preambleOf(result.messages);
  // Assistant text without tool calls may still hold a call (SkyRL's text scaffolds write `<function=...>`).
  const calls = textCallHooks(result.messages, preamble.systemPrompt);
  return {
    format: 'skyrl',
    task: defined({ instanceId: result.instance_id == null ? undefined : String(result.instance_id) }),
    steps: withTokenIds(chatSteps(result.messages, ['messages'], ctx, calls.hooks), result, ctx),
    outcome: defined({
      exitStatus: result.finish_reason ?? undefined,
      reward: result.reward ?? undefined,
      error: result.error ?? result.eval_error ?? undefined,
    }),
    meta: defined({ id: result.trajectory_id == null ? undefined : String(result.trajectory_id), parseFunction: calls.format, ...preamble }),
  };
}
