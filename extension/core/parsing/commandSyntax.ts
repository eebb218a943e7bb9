import { z } from 'zod';
import { splitShellWords } from './shellWords';
import { describeZodError } from '../errors';

/**
 * What the parser needs of a tool: its name, SWE-agent's command signature, the zod schema of its
 * arguments and its block argument. The tools (`ToolSyntax`) carry more; the parser reads only this.
 */
export interface ToolSyntax {
  name: string;
  /** SWE-agent's signature: the command pattern, and a block argument's terminator line. */
  signature: string;
  parameters: z.ZodObject;
  /** A body on the lines after the command, up to a line holding only `terminator`. */
  block?: { argument: string; terminator: string };
}

/** A tool call: the tool's name and its arguments, validated against the tool's schema. */
export interface ParsedAction {
  tool: string;
  args: Record<string, unknown>;
}

export type ParseResult = ParsedAction | { error: string };

interface PropertyShape {
  type?: string;
  maxItems?: number;
  items?: { type?: string };
}

type Slot = { kind: 'flag'; name: string } | { kind: 'positional'; names: string[]; pattern: RegExp; optional: boolean };

interface CompiledSyntax {
  slots: Slot[];
  properties: Record<string, PropertyShape>;
}

const compiled = new WeakMap<ToolSyntax, CompiledSyntax>();

/** The first line of a signature with the `"` around `"<path>"` kept out (the shell drops them). */
function compileSignature(tool: ToolSyntax): CompiledSyntax {
  const cached = compiled.get(tool);
  if (cached) return cached;
  const firstLine = tool.signature.split('\n')[0] ?? '';
  const tokens = firstLine.match(/\[[^\]]*\]|\S+/g) ?? [];
  const slots: Slot[] = [];
  for (const token of tokens.slice(1)) {
    const optional = token.startsWith('[');
    const inner = optional ? token.slice(1, -1).trim() : token;
    const flag = /^--(\S+)\s+<[^>]+>$/.exec(inner);
    if (flag) {
      slots.push({ kind: 'flag', name: flag[1] as string });
      continue;
    }
    const names: string[] = [];
    const source = inner
      .replace(/"/g, '')
      .split(/(<[^>]+>)/)
      .map((part) => {
        const name = /^<([^>]+?)(?:\.\.\.)?>$/.exec(part);
        if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name[1] as string);
        return '([\\s\\S]*?)';
      })
      .join('');
    slots.push({ kind: 'positional', names, pattern: new RegExp(`^${source}$`), optional });
  }
  const schema = z.toJSONSchema(tool.parameters) as { properties?: Record<string, PropertyShape> };
  const result = { slots, properties: schema.properties ?? {} };
  compiled.set(tool, result);
  return result;
}

/** Turns text an agent wrote for one argument into the type the schema asks for, when it can. */
function coerceArgument(shape: PropertyShape | undefined, value: unknown): unknown {
  if (typeof value !== 'string' || !shape) return value;
  if ((shape.type === 'integer' || shape.type === 'number') && /^[+-]?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  if (shape.type === 'boolean' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  if (shape.type === 'array' && shape.items?.type === 'integer') {
    const parts = value
      .replace(/[[\],]/g, ' ')
      .trim()
      .split(/\s+/);
    if (parts.every((p) => /^[+-]?\d+$/.test(p))) return parts.map(Number);
  }
  return value;
}

export function coerceArguments(tool: ToolSyntax, args: Record<string, unknown>): Record<string, unknown> {
  const { properties } = compileSignature(tool);
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, coerceArgument(properties[k], v)]));
}

/** Validates arguments against the tool's schema; the error names the argument and the problem. */
export function validateArguments(tool: ToolSyntax, args: Record<string, unknown>): ParseResult {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return { tool: tool.name, args: parsed.data as Record<string, unknown> };
  const problems = describeZodError((path) => (path ? `argument '${path}'` : 'arguments'), parsed.error);
  return { error: `Invalid arguments for ${tool.name}: ${problems}` };
}

function usage(tool: ToolSyntax, problem: string): { error: string } {
  return { error: `${problem}\nUsage: ${tool.signature}` };
}

/**
 * Parses one action written in SWE-agent's command syntax. A first word that names no tool, or
 * text holding several shell commands, is a `bash` action with the whole text as its command.
 */
export function parseCommandText(tools: ReadonlyMap<string, ToolSyntax>, text: string): ParseResult {
  const trimmed = text.trim();
  const name = /^\S+/.exec(trimmed)?.[0] ?? '';
  const tool = tools.get(name);
  const asBash = (): ParseResult => ({ tool: 'bash', args: { command: trimmed } });
  if (!tool || tool.name === 'bash') return asBash();
  if (tool.block) return parseBlockCommand(tool, trimmed);
  const split = splitShellWords(trimmed);
  if ('error' in split) return usage(tool, `Could not parse the command: ${split.error}`);
  if (split.compound) return asBash();
  return matchWords(tool, split.words.slice(1), {});
}

function parseBlockCommand(tool: ToolSyntax, text: string): ParseResult {
  const block = tool.block as { argument: string; terminator: string };
  const newline = text.indexOf('\n');
  const header = newline < 0 ? text : text.slice(0, newline);
  const bodyLines = newline < 0 ? [] : text.slice(newline + 1).split('\n');
  const end = bodyLines.findIndex((line) => line.trimEnd() === block.terminator);
  if (end >= 0 && bodyLines.slice(end + 1).some((line) => line.trim() !== '')) {
    return usage(tool, `Unexpected text after '${block.terminator}'.`);
  }
  const body = (end < 0 ? bodyLines : bodyLines.slice(0, end)).join('\n');
  const split = splitShellWords(header);
  if ('error' in split) return usage(tool, `Could not parse the command: ${split.error}`);
  if (split.compound) return usage(tool, 'The first line must hold only the command and its arguments.');
  return matchWords(tool, split.words.slice(1), { [block.argument]: body });
}

/** How many words from `from` on form a list value (`--view_range 1 10`): the numbers there. */
function countListWords(words: string[], from: number, max = Number.POSITIVE_INFINITY): number {
  let n = 0;
  while (n < max && /^[+-]?\d+,?$|^\[/.test(words[from + n] ?? '')) n++;
  return Math.max(n, 1);
}

function matchWords(tool: ToolSyntax, words: string[], preset: Record<string, unknown>): ParseResult {
  const { slots, properties } = compileSignature(tool);
  const args: Record<string, unknown> = { ...preset };
  const rest: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const key = word.startsWith('--') ? word.slice(2) : undefined;
    const shape = key === undefined ? undefined : properties[key];
    if (key === undefined || !shape) {
      rest.push(word);
      continue;
    }
    const take = shape.type === 'array' ? countListWords(words, i + 1, shape.maxItems) : 1;
    const values = words.slice(i + 1, i + 1 + take);
    if (shape.type === 'boolean' && !/^(true|false)$/i.test(values[0] ?? '')) {
      args[key] = true;
      continue;
    }
    if (values.length < take) return usage(tool, `Missing value for --${key}.`);
    args[key] = shape.type === 'array' ? values.join(' ') : values[0];
    i += take;
  }
  const positional = slots.filter((s): s is Extract<Slot, { kind: 'positional' }> => s.kind === 'positional');
  const unfilled = positional.filter((s) => !s.names.every((n) => n in args));
  if (rest.length > unfilled.length) return usage(tool, `Too many arguments: ${rest.slice(unfilled.length).join(' ')}`);
  for (const [i, slot] of unfilled.entries()) {
    const word = rest[i];
    if (word === undefined) {
      if (!slot.optional) return usage(tool, `Missing argument <${slot.names.join('>, <')}>.`);
      continue;
    }
    const match = slot.pattern.exec(word);
    if (!match) return usage(tool, `Argument '${word}' does not match ${slot.names.map((n) => `<${n}>`).join(', ')}.`);
    slot.names.forEach((n, j) => (args[n] = match[j + 1]));
  }
  return validateArguments(tool, coerceArguments(tool, args));
}
