import { z } from 'zod';
import { coerceArguments, parseCommandText, validateArguments, type ParseResult } from '../parsing/commandSyntax';
import type { ToolContext, ToolDefinition, ToolResult } from './toolDefinition';
import { extractXmlFunctionCalls } from '../parsing/xmlFunctionCall';

/** One entry of the `tools` list of an OpenAI chat-completions request. */
export interface OpenAiToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * SWE-agent 1.0's bundle names (and 0.7's command files, which 0.7 demonstrations converted to
 * 1.x's format list under them) for the bundles 1.1 renamed: the tools are the same, and how
 * each version prints is the session's `sweAgentVersion`, not the bundle's name.
 */
const BUNDLE_ALIASES: Record<string, string[]> = {
  defaults: ['windowed'],
  edit_linting: ['windowed_edit_linting'],
  edit_replace: ['windowed_edit_replace'],
  edit_rewrite: ['windowed_edit_rewrite'],
  // One review message (SUBMIT_REVIEW_MESSAGE) instead of a list: see `aciConfigForRecording`.
  review_on_submit: ['review_on_submit_m'],
};

/** Bundles that only keep state or install helpers: they add no tool. */
const STATE_ONLY_BUNDLES = new Set(['registry', 'diff_state', 'multilingual_setup']);

/** `tools/windowed`, `/root/SWE-agent/tools/windowed/` and `windowed` all name `windowed`. */
export function bundleName(pathOrName: string): string {
  const parts = pathOrName.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] ?? pathOrName;
}

/**
 * Every tool the workbench can host, by bundle. Tool families register themselves from their
 * own modules (`registry.register(...myTools)`); a ToolSet picks the bundles a recording used.
 */
export class ToolRegistry {
  private readonly tools: ToolDefinition[] = [];

  register(...tools: ToolDefinition[]): this {
    for (const tool of tools) {
      if (this.tools.some((t) => t.name === tool.name && t.bundle === tool.bundle)) {
        throw new Error(`tool '${tool.name}' of bundle '${tool.bundle}' is already registered`);
      }
      this.tools.push(tool);
    }
    return this;
  }

  bundles(): string[] {
    return [...new Set(this.tools.map((t) => t.bundle))];
  }

  /**
   * The tools of the given bundles, later bundles winning on a shared name (as in SWE-agent,
   * where `windowed_edit_replace`'s `edit` replaces the linting one). `bash` is always present.
   */
  toolSet(bundles: readonly string[]): ToolSet {
    const names = bundles.flatMap((b) => BUNDLE_ALIASES[bundleName(b)] ?? [bundleName(b)]);
    const known = new Set(this.bundles());
    const unknown = names.filter((b) => !known.has(b) && !STATE_ONLY_BUNDLES.has(b));
    if (unknown.length > 0) {
      throw new Error(`unknown tool bundle(s): ${unknown.join(', ')} (known: ${[...known, ...Object.keys(BUNDLE_ALIASES)].sort().join(', ')})`);
    }
    const selected = new Map<string, ToolDefinition>();
    for (const bundle of ['bash', ...names]) {
      for (const tool of this.tools.filter((t) => t.bundle === bundle)) selected.set(tool.name, tool);
    }
    return new ToolSet(names, selected);
  }
}

/** The tools one session offers, and the three ways a model's action is turned into a call. */
export class ToolSet {
  constructor(
    readonly bundles: readonly string[],
    readonly tools: ReadonlyMap<string, ToolDefinition>,
  ) {}

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /**
   * The step's observation, for a family that reads it once after all of a step's calls
   * (Terminus-2 reads the terminal after its keystrokes); `feedback` is what the family's parser
   * said about the reply. Undefined for families whose calls each give their own.
   */
  endStep(_ctx: ToolContext, _feedback?: string): Promise<ToolResult | undefined> {
    return Promise.resolve(undefined);
  }

  /** SWE-agent command syntax (`open "a.py" 20`, `edit 3:5\n...\nend_of_edit`, or any shell command). */
  parseCommand(text: string): ParseResult {
    return parseCommandText(this.tools, text);
  }

  /**
   * A native function call. `args` is the JSON text from the reply (or an already parsed object);
   * errors read as SWE-agent's function-calling parser words them.
   */
  parseFunctionCall(name: string, args: string | Record<string, unknown>): ParseResult {
    const tool = this.tools.get(name);
    if (!tool) return { error: `Command '${name}' not found in list of available commands.` };
    let values: unknown = args;
    if (typeof args === 'string') {
      try {
        values = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        return { error: 'Tool call arguments are not valid JSON.' };
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      return { error: 'Tool call arguments are not valid JSON.' };
    }
    return checkArguments(tool, values as Record<string, unknown>, false);
  }

  /** The one XML function call in a reply (`<function=NAME><parameter=K>V</parameter></function>`). */
  parseXmlFunctionCall(text: string): ParseResult {
    const calls = extractXmlFunctionCalls(text);
    if (calls.length !== 1) {
      return { error: `Expected exactly one function call in model response - received ${calls.length} function calls.` };
    }
    const call = calls[0] as (typeof calls)[number];
    const tool = this.tools.get(call.name);
    if (!tool) return { error: `Command '${call.name}' not found in list of available commands.` };
    return checkArguments(tool, call.parameters, true);
  }

  /** OpenAI `tools` entries for the named tools (default: all of this set), in set order. */
  openAiToolSpecs(toolNames?: readonly string[]): OpenAiToolSpec[] {
    const names = toolNames ?? [...this.tools.keys()];
    return names.map((name) => {
      const tool = this.tools.get(name);
      if (!tool) throw new Error(`no tool '${name}' in bundles ${this.bundles.join(', ')}`);
      return { type: 'function', function: { name: tool.name, description: tool.description, parameters: jsonSchemaOf(tool) } };
    });
  }
}

function checkArguments(tool: ToolDefinition, values: Record<string, unknown>, fromText: boolean): ParseResult {
  const shape = tool.parameters.shape as Record<string, z.ZodType>;
  const required = Object.keys(shape).filter((k) => !(shape[k] as z.ZodType).safeParse(undefined).success);
  const missing = required.filter((k) => !(k in values));
  if (missing.length > 0) return { error: `Required argument(s) missing: ${missing.join(', ')}` };
  const extra = Object.keys(values).filter((k) => !(k in shape));
  if (extra.length > 0) return { error: `Unexpected argument(s): ${extra.join(', ')}` };
  return validateArguments(tool, fromText ? coerceArguments(tool, values) : values);
}

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's JSON Schema without `$schema` and without the safe-integer bounds zod adds to every int. */
function jsonSchemaOf(tool: ToolDefinition): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.parameters) as Record<string, unknown>;
  return JSON.parse(JSON.stringify(schema), (key, value: unknown) =>
    (key === 'minimum' || key === 'maximum') && typeof value === 'number' && SAFE_INTEGER_BOUNDS.has(value) ? undefined : value,
  ) as Record<string, unknown>;
}
