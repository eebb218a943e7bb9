/**
 * OpenHands CodeAct, as its event stream records actions: `run` (the `execute_bash` tool) in a
 * persistent shell whose observation is the command's output; `message`, `think` and `finish`
 * run nothing and have no observation. A live policy calls OpenHands' function names
 * (`execute_bash`, `think`, `finish`), which map to those actions.
 *
 * Not here yet: OpenHands' own editor (`read` / `edit`, `str_replace_editor` through
 * openhands-aci); such a step is reported as a format error naming what is missing.
 */
import { z } from 'zod';
import type { ParseResult } from '../../aci/commandSyntax';
import { currentPatch } from '../../aci/submitTools';
import { defineTool, type ToolDefinition } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import type { ParsedReply } from '../../policy/scaffolds';
import type { Scaffold, ScaffoldFamily } from '../scaffold';

const BUNDLE = 'openhands';
/** Actions that only talk (to the user, or to itself): nothing runs, nothing is observed. */
export const SILENT_ACTIONS = ['message', 'think'] as const;

const run = defineTool({
  name: 'run',
  bundle: BUNDLE,
  description: 'Execute a bash command in the terminal.',
  signature: '<command>',
  parameters: z.looseObject({ command: z.string() }),
  async run(ctx, { command }) {
    const result = await ctx.sandbox.exec(command, { timeoutMs: ctx.config.commandTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    return { observation: result.output.replace(/\r\n/g, '\n').replace(/\n+$/, ''), exitCode: result.exitCode };
  },
});

function silent(name: string): ToolDefinition {
  return defineTool({ name, bundle: BUNDLE, description: name, signature: name, parameters: z.looseObject({}), run: async () => ({ observation: '', exitCode: 0 }) });
}

const finish = defineTool({
  name: 'finish',
  bundle: BUNDLE,
  description: 'Finish the interaction when the task is complete.',
  signature: 'finish',
  parameters: z.looseObject({}),
  async run(ctx) {
    const diff = await currentPatch(ctx);
    return { observation: '', exitCode: 0, submission: 'patch' in diff ? diff.patch : '' };
  },
});

/** OpenHands' function names as its actions. */
const FUNCTION_ACTIONS: Record<string, string> = { execute_bash: 'run', think: 'think', finish: 'finish' };

class OpenHandsToolSet extends ToolSet {
  constructor() {
    super([BUNDLE], new Map([run, ...SILENT_ACTIONS.map(silent), finish].map((t) => [t.name, t] as const)));
  }

  /** Typed text is a shell command. */
  override parseCommand(text: string): ParseResult {
    return text.trim() === '' ? { error: 'empty command' } : { tool: 'run', args: { command: text } };
  }

  override parseFunctionCall(name: string, args: string | Record<string, unknown>): ParseResult {
    const action = FUNCTION_ACTIONS[name] ?? name;
    if (action === 'read' || action === 'edit' || name === 'str_replace_editor') return { error: "OpenHands' editor (str_replace_editor: read/edit) is not supported by this workbench yet" };
    let values: unknown = args;
    if (typeof args === 'string') {
      try {
        values = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        return { error: `the arguments of ${name} are not valid JSON` };
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) return { error: `the arguments of ${name} are not a JSON object` };
    if (!this.get(action)) return { error: `${name} is not one of OpenHands' tools (${Object.keys(FUNCTION_ACTIONS).join(', ')})` };
    if (action === 'run' && typeof (values as Record<string, unknown>).command !== 'string') return { error: 'execute_bash needs a "command" string' };
    return { tool: action, args: values as Record<string, unknown> };
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return [
      { type: 'function', function: { name: 'execute_bash', description: 'Execute a bash command in the terminal within a persistent shell session.', parameters: { type: 'object', properties: { command: { type: 'string', description: 'The bash command to execute.' } }, required: ['command'] } } },
      { type: 'function', function: { name: 'think', description: 'Use the tool to think about something.', parameters: { type: 'object', properties: { thought: { type: 'string', description: 'The thought to log.' } }, required: ['thought'] } } },
      { type: 'function', function: { name: 'finish', description: 'Finish the interaction when the task is complete OR if the assistant cannot proceed further with the task.', parameters: { type: 'object', properties: {}, required: [] } } },
    ];
  }
}

function parseReply(reply: PolicyReply, tools: OpenHandsToolSet): ParsedReply {
  const [call] = reply.toolCalls;
  // A reply without a call is a `message` to the user: it runs nothing.
  if (!call) return { thought: '', action: { raw: reply.content, tool: 'message', args: { content: reply.content } } };
  const parsed = tools.parseFunctionCall(call.name, call.arguments);
  if ('error' in parsed) return { thought: reply.content, action: { raw: call.arguments, tool: null, args: {}, toolCallId: call.id }, formatError: parsed.error, errorMessage: parsed.error };
  return { thought: reply.content, action: { raw: call.arguments, tool: parsed.tool, args: parsed.args, toolCallId: call.id } };
}

export function createOpenHands(version = 'codeact'): Scaffold {
  const tools = new OpenHandsToolSet();
  return {
    name: 'openhands',
    version,
    tools,
    replyFormat: 'function_calling',
    tty: false,
    config: {},
    present: (result) => result.observation,
    parseReply: (reply) => parseReply(reply, tools),
    toolSpecs: () => tools.openAiToolSpecs(),
    context: { observationTemplate: '{observation}' },
    prompts: ({ problemStatement, spec, repoPath }) => ({
      system: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.',
      instructions: `<uploaded_files>\n${repoPath}\n</uploaded_files>\nI've uploaded a code repository in the directory ${repoPath}. Consider the following issue description:\n\n<issue_description>\n${problemStatement ?? spec}\n</issue_description>`,
    }),
  };
}

export const openHandsFamily: ScaffoldFamily = {
  name: 'openhands',
  versions: ['codeact'],
  detect(recording) {
    if (recording.meta.scaffold?.startsWith('openhands')) return { version: 'codeact', reason: `meta.scaffold is '${recording.meta.scaffold}'` };
    if (recording.format === 'openhands') return { version: 'codeact', reason: 'an OpenHands event stream (`source`/`action`/`observation` events)' };
    return undefined;
  },
  matchVersion: (version) => (version === 'codeact' || /^\d/.test(version) ? 'codeact' : undefined),
  create: (version) => createOpenHands(version),
};
