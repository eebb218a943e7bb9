import { z } from 'zod';
import { InputError, jsonPath } from '../../errors';
import type { Step, Trajectory } from '../model';
import { ChatMessageSchema, chatStep, contentText, preambleOf, type ChatMessage } from '../chatSteps';
import { defined, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';
import { textCallHooks } from '../textCalls';

/**
 * Harbor's traces export: one row per LLM call of a run (`episode-N`), each holding the whole
 * conversation the model was sent and, last, its reply. A reply's calls are written in its text
 * (`<function=...>` for a non-function-calling run, `<tool_call>` for a function-calling one),
 * read by `core/trajectory/textCalls.ts`. One step per row, as Harbor counts the run's calls.
 */
const RowSchema = z.looseObject({
  conversations: z.array(ChatMessageSchema).min(1, { error: 'a trace row holds at least its reply' }),
  agent: z.string().nullish(),
  model: z.string().nullish(),
  task: z.string().nullish(),
  episode: z.string().nullish(),
  run_id: z.string().nullish(),
  trial_name: z.string().nullish(),
});
const TracesSchema = z.array(RowSchema).min(1, { error: 'a traces file has at least one row' });
type Row = z.infer<typeof RowSchema>;

/** Whether `next` carries `row`'s conversation on (the reply at the same place), as a run without context summarisation does. */
function continues(row: Row, next: Row | undefined): boolean {
  const at = row.conversations.length - 1;
  const reply = row.conversations[at]!;
  const same = next?.conversations[at];
  return same !== undefined && same.role === reply.role && contentText(same.content) === contentText(reply.content);
}

export function importHarborTraces(value: unknown, ctx: ImportContext): Trajectory {
  const rows = parseInput(TracesSchema, value, ctx.file, ctx.base);
  const trial = (r: Row) => `${r.run_id ?? ''}/${r.trial_name ?? ''}`;
  rows.forEach((row, i) => {
    if (trial(row) !== trial(rows[0]!))
      throw new InputError(
        ctx.file,
        jsonPath([...ctx.base, i]),
        `a row of another trial (${trial(row)}, the first is ${trial(rows[0]!)}): one trial's rows make a trajectory`,
      );
    if (row.conversations.at(-1)!.role !== 'assistant')
      throw new InputError(
        ctx.file,
        jsonPath([...ctx.base, i, 'conversations', row.conversations.length - 1, 'role']),
        "expected the row's reply, an assistant message",
      );
  });
  const replies: ChatMessage[] = rows.map((r) => r.conversations.at(-1)!);
  const first = rows[0]!.conversations;
  const preamble = preambleOf(first);
  // Harbor gives some agents' system prompt as the first user message.
  const calls = textCallHooks(replies, preamble.systemPrompt ?? contentText(first[0]!.content));
  const steps: Step[] = rows.map((row, k) => {
    const at = row.conversations.length - 1;
    const next = rows[k + 1];
    // The reply's results are the messages the next call was sent after it (none known after the last call, or a restarted context).
    const [list, where] = next && continues(row, next) ? [next.conversations, k + 1] : [row.conversations, k];
    const followers = list === row.conversations ? [] : Array.from({ length: list.length - 1 - (at + 1) }, (_, j) => at + 1 + j);
    return chatStep(list, { at, followers }, k, [where, 'conversations'], ctx, calls.hooks);
  });
  const row = rows[0]!;
  return {
    format: 'harbor-traces',
    task: defined({ instanceId: row.task ?? undefined }),
    steps,
    outcome: {},
    meta: defined({
      model: row.model ?? undefined,
      // The agent Harbor ran, by name only: its version is not in the traces.
      scaffold: row.agent ?? undefined,
      parseFunction: calls.format,
      id: row.run_id ?? undefined,
      systemPrompt: preamble.systemPrompt,
      instructions: preamble.instructions,
    }),
  };
}
