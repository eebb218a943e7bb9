import { extractXmlFunctionCalls } from '../parsing/xmlFunctionCall';
import type { Action } from './model';
import { errorText } from '../errors';

/** An action together with why it could not be read, when it could not. */
export interface ParsedAction {
  action: Action;
  formatError?: string;
}

/** The first `<function=NAME><parameter=K>V</parameter>...</function>` call (SWE-agent XML, R2E-Gym). */
export function parseXmlFunctionCall(raw: string): Action | undefined {
  const call = extractXmlFunctionCalls(raw)[0];
  return call && { raw, tool: call.name, args: call.parameters };
}

/** The argument object of a function call, or why its JSON could not be read. */
export function parseToolArguments(text: string): { args: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `arguments are not valid JSON (${errorText(err)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'arguments are not a JSON object' };
  return { args: value as Record<string, unknown> };
}

/**
 * A function-calling action: the raw text is the call as the model wrote it, so malformed
 * arguments survive unchanged and the step is marked instead.
 */
export function toolCallAction(name: string, argumentsText: string, toolCallId?: string): ParsedAction {
  const raw = JSON.stringify({ name, arguments: argumentsText });
  const parsed = parseToolArguments(argumentsText);
  const base = toolCallId === undefined ? {} : { toolCallId };
  if ('error' in parsed) return { action: { raw, tool: name, args: {}, ...base }, formatError: `${name}: ${parsed.error}` };
  return { action: { raw, tool: name, args: parsed.args, ...base } };
}

/** Tool calls sometimes carry their arguments already decoded (rLLM, some exports). */
export function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

const FENCE = /```(?:bash|mswea_bash_command)[ \t]*\n([\s\S]*?)\n```/g;

/**
 * mini-swe-agent's text actions: exactly one fenced ```bash / ```mswea_bash_command block.
 * Anything else is the FormatError the scaffold raised, kept with the text.
 */
export function parseFencedCommand(content: string): ParsedAction & { thought: string } {
  const blocks = [...content.matchAll(FENCE)];
  if (blocks.length !== 1) {
    return { action: { raw: content, tool: null, args: {} }, thought: content, formatError: `expected exactly one bash code block, found ${blocks.length}` };
  }
  const block = blocks[0]!;
  const command = block[1]!;
  return { action: { raw: command, tool: 'bash', args: { command } }, thought: content.slice(0, block.index).trim() };
}
