import { z } from 'zod';
import type { Trajectory } from '../model';
import { ChatMessageSchema, chatSteps, preambleOf } from '../chatSteps';
import { defined, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';
import { textCallHooks } from '../textCalls';

const MessagesSchema = z.array(ChatMessageSchema);
const text = z.string().optional().catch(undefined);
/** What a fine-tuning row keeps beside its messages (SWE-smith's trajectories: `instance_id`, `model`, `resolved`). */
const WrappedSchema = z.looseObject({ messages: MessagesSchema, instance_id: text, model: text, resolved: z.boolean().optional().catch(undefined) });

/** Plain OpenAI chat messages: a list, or `{messages: [...]}`; calls written in the text (`core/trajectory/textCalls.ts`) are read too. */
export function importOpenAiMessages(value: unknown, ctx: ImportContext): Trajectory {
  const wrapped = !Array.isArray(value);
  const row = wrapped ? parseInput(WrappedSchema, value, ctx.file, ctx.base) : undefined;
  const messages = row ? row.messages : parseInput(MessagesSchema, value, ctx.file, ctx.base);
  const preamble = preambleOf(messages);
  const calls = textCallHooks(messages, preamble.systemPrompt);
  return {
    format: 'openai-messages',
    task: defined({ instanceId: row?.instance_id }),
    steps: chatSteps(messages, wrapped ? ['messages'] : [], ctx, calls.hooks),
    outcome: defined({ resolved: row?.resolved }),
    meta: defined({ parseFunction: calls.format ?? 'function_calling', model: row?.model, ...preamble }),
  };
}
