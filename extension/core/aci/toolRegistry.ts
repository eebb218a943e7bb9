import { z } from 'zod';
import { coerceArguments, parseCommandText, validateArguments, type ParseResult } from '../parsing/commandSyntax';
import type { AciConfig, AciState, ToolContext, ToolDefinition, ToolResult } from './toolDefinition';
import { extractXmlFunctionCalls } from '../parsing/xmlFunctionCall';

/** One entry of the `tools` list of an OpenAI chat-completions request. */
export interface OpenAiToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
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

  /**
   * The observation the agent reads from what tool `tool` returned, for a family whose scaffold
   * gives no `present` of its own: as the tool printed it, unless the family's tool set words it.
   */
  present(result: ToolResult, _tool: string, _config: AciConfig): string {
    return result.observation;
  }

  /** The file the step's recorded state names as open (SWE-agent's `open_file`); null for a family without a viewer. */
  openFile(_state: AciState): string | null {
    return null;
  }

  /** The session keeps the repository's staged diff after every action (SWE-agent's `diff_state`). */
  get recordsDiff(): boolean {
    return false;
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
