import { z } from 'zod';
import type { Trajectory } from '../model';
import { ChatMessageSchema, chatSteps, preambleOf } from '../chatSteps';
import { defined, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

const MessagesSchema = z.array(ChatMessageSchema);
const WrappedSchema = z.looseObject({ messages: MessagesSchema });

/** Plain OpenAI chat messages: a list, or `{messages: [...]}`. */
export function importOpenAiMessages(value: unknown, ctx: ImportContext): Trajectory {
  const wrapped = !Array.isArray(value);
  const messages = wrapped ? parseInput(WrappedSchema, value, ctx.file, ctx.base).messages : parseInput(MessagesSchema, value, ctx.file, ctx.base);
  return {
    format: 'openai-messages',
    task: {},
    steps: chatSteps(messages, wrapped ? ['messages'] : [], ctx),
    outcome: {},
    meta: defined({ parseFunction: 'function_calling', ...preambleOf(messages) }),
  };
}
