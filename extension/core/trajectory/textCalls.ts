/**
 * Calls written in a reply's text rather than as native tool calls: the one decision of which
 * text format a chat-shaped file (OpenAI messages, ATIF messages, an LLM log) writes its calls
 * in, and their reading. The formats are those the scaffolds parse:
 *   - `xml_function_calling`: `<function=NAME><parameter=K>V</parameter></function>` (SWE-agent's
 *     XML parser, OpenHands' non-function-calling mode, R2E-Gym, SWE-smith's fine-tuning data);
 *   - `tool_call_json`: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>` (the Hermes /
 *     Qwen chat template's calls, as Harbor's traces write a function-calling run's);
 *   - `bash_block`: exactly one ```bash (or ```mswea_bash_command) block (mini-swe-agent);
 *   - `thought_action`: a discussion, then the command in the last fenced block (SWE-agent);
 *   - a family's own reply format, which the family contributes (`ScaffoldFamily.textCalls`:
 *     Terminus-2's JSON and XML replies, which Harbor keeps as an ATIF step's message in its
 *     raw-content mode) and reads with its own parser.
 * A file uses one format: the one that reads the most of its replies, provided it reads at least
 * half of them or the system prompt asks for it, so a chat whose answers quote a code block now
 * and then is not taken for a run of commands.
 */
import { extractXmlFunctionCalls } from '../parsing/xmlFunctionCall';
import { splitThoughtAction } from '../parsing/thoughtAction';
import type { Action } from './model';
import { z } from 'zod';
import { errorText } from '../errors';
import { argumentsText, parseFencedCommand, parseToolArguments, type ParsedAction } from './actionText';
import { contentText, type ChatMessage, type ChatStepHooks, type MessageActions } from './chatSteps';

const BUILT_IN = ['xml_function_calling', 'tool_call_json', 'bash_block', 'thought_action'] as const;
type BuiltInFormat = (typeof BUILT_IN)[number];
/** A built-in format's name, or a family's (`TextCallFormatDefinition.name`). */
export type TextCallFormat = string;

/** A reply format a scaffold family reads with its own parser, contributed through `ScaffoldFamily.textCalls`. */
export interface TextCallFormatDefinition {
  /** Its name, kept as the trajectory's `meta.parseFunction` (`terminus_json`). */
  readonly name: string;
  /** What its call looks like, for the person reading why a reply has no action. */
  readonly looksLike: string;
  /** The reply's calls and thought; undefined when the reply is not in this format. A reply in the format that asks for nothing has one call whose tool is null. */
  read(text: string): MessageActions | undefined;
}

const familyFormats = new Map<string, TextCallFormatDefinition>();

/** Adds a family's reply format to those a chat's text is read in (the registry does, when it installs the family). */
export function registerTextCallFormat(format: TextCallFormatDefinition): void {
  if (familyFormats.has(format.name) || (BUILT_IN as readonly string[]).includes(format.name))
    throw new Error(`the text call format ${format.name} is already registered`);
  familyFormats.set(format.name, format);
}

/** Every format, the built-in ones first: ties go to the earlier. */
const formats = (): TextCallFormat[] => [...BUILT_IN, ...familyFormats.keys()];

/** What each built-in format's call looks like, for the person reading why a reply has no action. */
const BUILT_IN_LOOKS_LIKE: Record<BuiltInFormat, string> = {
  xml_function_calling: 'a <function=NAME>...</function> call',
  tool_call_json: 'a <tool_call>{"name": ...}</tool_call> call',
  bash_block: 'exactly one ```bash block',
  thought_action: 'a command in a ``` block',
};

const looksLike = (format: TextCallFormat): string => BUILT_IN_LOOKS_LIKE[format as BuiltInFormat] ?? familyFormats.get(format)!.looksLike;

const TOOL_CALL = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const JsonCallSchema = z.looseObject({ name: z.string(), arguments: z.unknown().optional() });

/** One `<tool_call>` body: its name and arguments, or why they cannot be read (kept as the step's format error). */
function jsonToolCall(raw: string, body: string): ParsedAction {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { action: { raw, tool: null, args: {} }, formatError: `a <tool_call> that is not JSON (${errorText(err)})` };
  }
  const call = JsonCallSchema.safeParse(value);
  if (!call.success) return { action: { raw, tool: null, args: {} }, formatError: 'a <tool_call> without a string "name"' };
  const args = parseToolArguments(argumentsText(call.data.arguments));
  if ('error' in args) return { action: { raw, tool: call.data.name, args: {} }, formatError: `${call.data.name}: ${args.error}` };
  return { action: { raw, tool: call.data.name, args: args.args } };
}

/** A reply read in one format; undefined when the format finds no call in it. */
function readAs(format: TextCallFormat, text: string): MessageActions | undefined {
  const family = familyFormats.get(format);
  if (family) return family.read(text);
  switch (format as BuiltInFormat) {
    case 'xml_function_calling': {
      const calls = extractXmlFunctionCalls(text);
      if (calls.length === 0) return undefined;
      return {
        thought: text.slice(0, calls[0]!.start).trim(),
        calls: calls.map((c) => ({ action: { raw: text.slice(c.start, c.end), tool: c.name, args: c.parameters } })),
      };
    }
    case 'tool_call_json': {
      const calls = [...text.matchAll(TOOL_CALL)];
      if (calls.length === 0) return undefined;
      return { thought: text.slice(0, calls[0]!.index).trim(), calls: calls.map((c) => jsonToolCall(c[0], c[1]!)) };
    }
    case 'bash_block': {
      const read = parseFencedCommand(text);
      if (read.formatError !== undefined) return undefined;
      return { thought: read.thought, calls: [{ action: read.action }] };
    }
    case 'thought_action': {
      const split = splitThoughtAction(text);
      if (!split || split.action.trim() === '') return undefined;
      // SWE-agent sends the block to its shell, where its own tools are commands too.
      return { thought: split.thought.trim(), calls: [{ action: { raw: split.action, tool: 'bash', args: { command: split.action } } }] };
    }
  }
}

/** What a system prompt says about the format it asks for. */
function askedFor(systemPrompt: string | undefined): TextCallFormat | undefined {
  if (!systemPrompt) return undefined;
  if (/<function=/.test(systemPrompt)) return 'xml_function_calling';
  if (/```mswea_bash_command|EXACTLY ONE bash code block/i.test(systemPrompt)) return 'bash_block';
  return undefined;
}

/** How a file's replies write their calls, and why we think so. */
export interface TextCallReading {
  format: TextCallFormat;
  reason: string;
  /** A reply's calls and thought; a reply without a call in the format is a step without an action, saying why. */
  read(text: string): MessageActions;
  /** A reply's calls and thought, or undefined when it holds none in the format (a message not written to this format: one copied from another agent's run). */
  find(text: string): MessageActions | undefined;
}

/**
 * The text format of `replies` (the assistant texts that made no native tool call), or undefined
 * when none reads enough of them (see the module's comment).
 */
export function textCallFormat(replies: readonly string[], systemPrompt?: string): TextCallReading | undefined {
  if (replies.length === 0) return undefined;
  const counts = formats().map((format) => ({ format, read: replies.filter((r) => readAs(format, r) !== undefined).length }));
  // Ties go to the more specific format, the order of `formats()`.
  const best = counts.reduce((a, b) => (b.read > a.read ? b : a));
  const asked = askedFor(systemPrompt);
  const chosen = asked !== undefined && counts.find((c) => c.format === asked)!.read > 0 ? counts.find((c) => c.format === asked)! : best;
  if (chosen.read === 0 || (chosen.format !== asked && chosen.read * 2 < replies.length)) return undefined;
  const reason = `${chosen.read} of ${replies.length} replies hold ${looksLike(chosen.format)}${chosen.format === asked ? ', as the system prompt asks' : ''}`;
  return {
    format: chosen.format,
    reason,
    read: (text) => readAs(chosen.format, text) ?? noCall(chosen.format, text),
    find: (text) => readAs(chosen.format, text),
  };
}

function noCall(format: TextCallFormat, text: string): MessageActions {
  const action: Action = { raw: '', tool: null, args: {} };
  const call: ParsedAction = { action, formatError: `no call in the reply: the file's other replies hold ${looksLike(format)}` };
  return { thought: text, calls: [call] };
}

/**
 * The `chatSteps` hook reading text calls from a message list's assistant replies that make no
 * native call, with the format found (undefined when the replies hold none).
 */
export function textCallHooks<M extends ChatMessage>(
  messages: ReadonlyArray<M>,
  systemPrompt?: string,
): { hooks: Pick<ChatStepHooks<M>, 'actionsOf'>; format?: TextCallFormat } {
  const replies = messages.filter((m) => m.role === 'assistant' && !m.tool_calls?.length).map((m) => contentText(m.content));
  const reading = textCallFormat(replies, systemPrompt);
  if (!reading) return { hooks: {} };
  return {
    format: reading.format,
    hooks: { actionsOf: (m) => (m.tool_calls?.length ? undefined : reading.read(contentText(m.content))) },
  };
}
