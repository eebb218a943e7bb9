import { z } from 'zod';
import type { Trajectory } from '../model';
import { parseXmlFunctionCall } from '../actionText';
import { ChatMessageSchema, chatSteps, contentText, preambleOf, type ChatMessage } from '../chatSteps';
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
});

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

/** Assistant text without tool calls may still hold an XML call (SkyRL's text scaffolds). */
function xmlActions(message: ChatMessage) {
  if (message.tool_calls?.length) return undefined;
  const text = contentText(message.content);
  const call = parseXmlFunctionCall(text);
  return call ? { thought: text.slice(0, text.indexOf('<function=')).trim(), calls: [{ action: call }] } : undefined;
}

/** A SkyRL-Agent TrajectoryResult. */
export function importSkyRl(value: unknown, ctx: ImportContext): Trajectory {
  const result = parseInput(ResultSchema, value, ctx.file, ctx.base);
  return {
    format: 'skyrl',
    task: defined({ instanceId: result.instance_id == null ? undefined : String(result.instance_id) }),
    steps: chatSteps(result.messages, ['messages'], ctx, { actionsOf: xmlActions }),
    outcome: defined({
      exitStatus: result.finish_reason ?? undefined,
      reward: result.reward ?? undefined,
      error: result.error ?? result.eval_error ?? undefined,
    }),
    meta: defined({ id: result.trajectory_id == null ? undefined : String(result.trajectory_id), ...preambleOf(result.messages) }),
  };
}
