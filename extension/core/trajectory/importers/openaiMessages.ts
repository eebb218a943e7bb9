import { z } from 'zod';
import type { Trajectory } from '../model';
import { ChatMessageSchema, chatSteps, preambleOf } from '../chatSteps';
import { defined, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';
import { isObject } from '../fingerprints';
import { textCallHooks } from '../textCalls';

const MessagesSchema = z.array(ChatMessageSchema);
const text = z.string().optional().catch(undefined);
/** What a fine-tuning row keeps beside its messages (SWE-smith's trajectories: `instance_id`, `model`, `resolved`). */
const WrappedSchema = z.looseObject({ messages: MessagesSchema, instance_id: text, model: text, resolved: z.boolean().optional().catch(undefined) });
/** An OpenRLHF SFT record: the chat under `input` (its default input key), as SWE-Master's data keeps it. */
const SftRecordSchema = z.looseObject({ input: MessagesSchema });

/**
 * Plain OpenAI chat messages: a list, `{messages: [...]}`, or an SFT record `{input: [...]}`;
 * calls written in the text (`core/trajectory/textCalls.ts`) are read too.
 */
export function importOpenAiMessages(value: unknown, ctx: ImportContext): Trajectory {
  const wrapped = !Array.isArray(value);
  // An SFT record names its chat `input`; every other wrapper, `messages`.
  const key = wrapped && isObject(value) && !('messages' in value) && 'input' in value ? 'input' : 'messages';
  const row = wrapped && key === 'messages' ? parseInput(WrappedSchema, value, ctx.file, ctx.base) : undefined;
  const messages = !wrapped
    ? parseInput(MessagesSchema, value, ctx.file, ctx.base)
    : row
      ? row.messages
      : parseInput(SftRecordSchema, value, ctx.file, ctx.base).input;
  const preamble = preambleOf(messages);
  const calls = textCallHooks(messages, preamble.systemPrompt);
  return {
    format: 'openai-messages',
    task: defined({ instanceId: row?.instance_id }),
    steps: chatSteps(messages, wrapped ? [key] : [], ctx, calls.hooks),
    outcome: defined({ resolved: row?.resolved }),
    meta: defined({ parseFunction: calls.format ?? 'function_calling', model: row?.model, ...preamble }),
  };
}
