/**
 * Starts the scripted policy server from a terminal, e.g. to drive `swe-workbench run` by hand:
 *   node --import tsx test/helpers/policyServerMain.ts --script replies.json [--port 8000]
 * The script file holds a JSON array of replies ({content, reasoning, toolCalls, fault, choices...}).
 * Prints the base URL on the first line, then serves until interrupted.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { PolicyServer, type ScriptedReply } from '../../scripts/demo/policy/scriptedPolicyServer';

const ReplySchema: z.ZodType<ScriptedReply> = z.strictObject({
  content: z.string().nullable().optional(),
  reasoning: z.string().optional(),
  toolCalls: z.array(z.strictObject({ name: z.string(), arguments: z.string(), id: z.string().optional() })).optional(),
  finishReason: z.enum(['stop', 'length', 'tool_calls']).optional(),
  tokenLogprobs: z.array(z.number()).optional(),
  fault: z
    .discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('status'), status: z.number().int(), message: z.string(), retryAfterSeconds: z.number().optional() }),
      z.strictObject({ kind: z.literal('hang') }),
      z.strictObject({ kind: z.literal('reset') }),
      z.strictObject({ kind: z.literal('truncate'), afterChunks: z.number().int().nonnegative() }),
      z.strictObject({ kind: z.literal('stall'), afterChunks: z.number().int().nonnegative() }),
    ])
    .optional(),
  // Alternatives sampled at temperature above 0 (scriptedPolicyServer.ts says how).
  get choices() {
    return z.array(z.strictObject({ probability: z.number().min(0).max(1), reply: ReplySchema })).optional();
  },
});

const { values } = parseArgs({
  options: {
    script: { type: 'string' },
    port: { type: 'string', default: '0' },
    model: { type: 'string', multiple: true },
    'no-auto-tool-choice': { type: 'boolean', default: false },
    'legacy-errors': { type: 'boolean', default: false },
  },
});
if (!values.script) {
  process.stderr.write('usage: policyServerMain.ts --script FILE [--port N] [--model NAME]... [--no-auto-tool-choice] [--legacy-errors]\n');
  process.exit(2);
}
const parsed = z.array(ReplySchema).safeParse(JSON.parse(readFileSync(values.script, 'utf8')));
if (!parsed.success) {
  process.stderr.write(`${values.script}: ${z.prettifyError(parsed.error)}\n`);
  process.exit(2);
}
void main();

async function main(): Promise<void> {
  const replies = (parsed.data ?? []) as ScriptedReply[];
  const server = await new PolicyServer(replies, {
    models: values.model,
    autoToolChoice: !values['no-auto-tool-choice'],
    errorShape: values['legacy-errors'] ? 'vllm-legacy' : 'openai',
  }).listen(Number(values.port));
  process.stdout.write(`${server.url}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
