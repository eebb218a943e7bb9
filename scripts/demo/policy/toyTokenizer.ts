/**
 * The scripted stand-in server's tokenizer, chat template and "model", documented so tests can
 * work their expected numbers out by hand (docs/tokens.md):
 *
 * - Token ids: one token per Unicode code point, its id the code point; the template's two
 *   markers are single tokens past the Unicode range, `<|im_start|>` = 1114112 and
 *   `<|im_end|>` = 1114113.
 * - Chat template: each message is `<|im_start|>{role}\n{content}<|im_end|>\n`; an assistant's
 *   tool calls follow its content as `<tool_call>{"name": ..., "arguments": ...}</tool_call>`; the
 *   generation prompt is `<|im_start|>assistant\n`. The drifting template (`drift: 'assistant-space'`)
 *   renders each assistant message with one extra space before its `<|im_end|>`, as a trainer's
 *   template that differs from the engine's would.
 * - Logprob rule: the token with id `t` at 0-based position `p` of the sequence has logprob
 *   `-(((t + p) % 20) + 1) / 10`, from -0.1 to -2.0; position 0 has none (nothing precedes it).
 */

/** @internal */
export const IM_START = 1_114_112;
/** @internal */
export const IM_END = 1_114_113;
const SPECIAL: ReadonlyMap<number, string> = new Map([
  [IM_START, '<|im_start|>'],
  [IM_END, '<|im_end|>'],
]);

export type TemplateDrift = 'none' | 'assistant-space';

/** One token per code point. */
export function toyEncode(text: string): number[] {
  const ids: number[] = [];
  for (const ch of text) ids.push(ch.codePointAt(0)!);
  return ids;
}

export function toyDecode(ids: readonly number[]): string {
  let out = '';
  for (const id of ids) out += SPECIAL.get(id) ?? (id >= 0 && id < 0x110000 ? String.fromCodePoint(id) : '\uFFFD');
  return out;
}

interface TemplateMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
}

function messageText(message: TemplateMessage): string {
  const content = typeof message.content === 'string' ? message.content : message.content == null ? '' : JSON.stringify(message.content);
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const rendered = calls.map(
    (c: { function?: { name?: unknown; arguments?: unknown } }) =>
      `<tool_call>${JSON.stringify({ name: c.function?.name, arguments: c.function?.arguments })}</tool_call>`,
  );
  return content + rendered.join('');
}

/** The chat template applied to `messages`, as token ids. */
export function toyChatIds(messages: readonly TemplateMessage[], addGenerationPrompt: boolean, drift: TemplateDrift = 'none'): number[] {
  const ids: number[] = [];
  for (const m of messages) {
    const extra = drift === 'assistant-space' && m.role === 'assistant' ? ' ' : '';
    ids.push(IM_START, ...toyEncode(`${m.role}\n${messageText(m)}${extra}`), IM_END, ...toyEncode('\n'));
  }
  if (addGenerationPrompt) ids.push(IM_START, ...toyEncode('assistant\n'));
  return ids;
}

/** The toy model's logprob of token `id` at position `position` (undefined at position 0). */
export function toyLogprob(id: number, position: number): number | undefined {
  if (position === 0) return undefined;
  return -(((id + position) % 20) + 1) / 10;
}
