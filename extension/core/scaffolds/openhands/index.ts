/**
 * OpenHands CodeAct, as its event stream records actions: `run` (the `execute_bash` tool) in a
 * persistent shell whose observation is the command's output; `message`, `think` and `finish`
 * run nothing and have no observation. A live policy calls OpenHands' function names
 * (`execute_bash`, `think`, `finish`), which map to those actions.
 *
 * `read` is the `view` command of OpenHands' editor (openhands-aci) and `edit` its other
 * commands (create, str_replace, insert, undo_edit), observed as the file's diff.
 */
import { z } from 'zod';
import type { ParseResult } from '../../parsing/commandSyntax';
import { currentPatch } from '../../aci/repositoryPatch';
import { defineTool, type ToolDefinition } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import { toolsCalled, type ParsedReply, type Scaffold, type ScaffoldFamily } from '../scaffold';
import { openHandsEdit } from './editorEdit';
import { openHandsView } from '../openHandsEditorView';
import { openHandsFormat } from './format';

const BUNDLE = 'openhands';
/** Actions that only talk (to the user, or to itself): nothing runs, nothing is observed. */
const SILENT_ACTIONS = ['message', 'think'] as const;

/** `read` as recorded (`start`/`end` of a FileReadAction) or as called (`view_range`). */
const read = defineTool({
  name: 'read',
  bundle: BUNDLE,
  description: "View a file or a folder with OpenHands' editor.",
  signature: 'read <path>',
  parameters: z.looseObject({ path: z.string() }),
  run(ctx, args) {
    const range =
      Array.isArray(args.view_range) && args.view_range.length === 2
        ? (args.view_range as [number, number])
        : typeof args.start === 'number' && args.start >= 1
          ? ([args.start, typeof args.end === 'number' ? args.end : -1] as [number, number])
          : undefined;
    return openHandsView(ctx, args.path, range);
  },
});

/**
 * `edit`: the editor call the model made (the importer keeps its arguments beside the event's),
 * or, from a live reply, the call itself.
 */
const edit = defineTool({
  name: 'edit',
  bundle: BUNDLE,
  description: "Create or change a file with OpenHands' editor.",
  signature: 'edit <path>',
  parameters: z.looseObject({ path: z.string() }),
  run: (ctx, args) => openHandsEdit(ctx, args),
});

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
  return defineTool({
    name,
    bundle: BUNDLE,
    description: name,
    signature: name,
    parameters: z.looseObject({}),
    run: async () => ({ observation: '', exitCode: 0 }),
  });
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

/** The function names a chat export keeps, run as the actions they stand for. */
const executeBash = { ...run, name: 'execute_bash' };
const strReplaceEditor = defineTool({
  name: 'str_replace_editor',
  bundle: BUNDLE,
  description: "OpenHands' editor",
  signature: 'str_replace_editor',
  parameters: z.looseObject({ command: z.string(), path: z.string() }),
  async run(ctx, args) {
    return args.command === 'view' ? read.run(ctx, args) : openHandsEdit(ctx, args);
  },
});

class OpenHandsToolSet extends ToolSet {
  constructor() {
    super([BUNDLE], new Map([run, read, edit, ...SILENT_ACTIONS.map(silent), finish, executeBash, strReplaceEditor].map((t) => [t.name, t] as const)));
  }

  /** Typed text is a shell command. */
  override parseCommand(text: string): ParseResult {
    return text.trim() === '' ? { error: 'empty command' } : { tool: 'run', args: { command: text } };
  }

  override parseFunctionCall(name: string, args: string | Record<string, unknown>): ParseResult {
    let action = FUNCTION_ACTIONS[name] ?? name;
    const editorCommand = name !== 'str_replace_editor' ? undefined : typeof args === 'string' ? jsonField(args, 'command') : args.command;
    if (name === 'str_replace_editor') action = editorCommand === 'view' ? 'read' : 'edit';
    let values: unknown = args;
    if (typeof args === 'string') {
      try {
        values = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        return { error: `the arguments of ${name} are not valid JSON` };
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) return { error: `the arguments of ${name} are not a JSON object` };
    if ((action === 'read' || action === 'edit') && typeof (values as Record<string, unknown>).path !== 'string')
      return { error: 'str_replace_editor needs a "path" string' };
    if (!this.get(action)) return { error: `${name} is not one of OpenHands' tools (${Object.keys(FUNCTION_ACTIONS).join(', ')})` };
    if (action === 'run' && typeof (values as Record<string, unknown>).command !== 'string') return { error: 'execute_bash needs a "command" string' };
    return { tool: action, args: values as Record<string, unknown> };
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return [
      {
        type: 'function',
        function: {
          name: 'execute_bash',
          description: 'Execute a bash command in the terminal within a persistent shell session.',
          parameters: { type: 'object', properties: { command: { type: 'string', description: 'The bash command to execute.' } }, required: ['command'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'str_replace_editor',
          description: 'Custom editing tool for viewing, creating and editing files in plain-text format.',
          parameters: {
            type: 'object',
            properties: {
              command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert', 'undo_edit'], description: 'The command to run.' },
              path: { type: 'string', description: 'Absolute path to file or directory.' },
              file_text: { type: 'string', description: 'Required for `create`: the content of the file to be created.' },
              old_str: { type: 'string', description: 'Required for `str_replace`: the string in `path` to replace.' },
              new_str: { type: 'string', description: 'The new string (`str_replace`) or the string to insert (`insert`).' },
              insert_line: { type: 'integer', description: 'Required for `insert`: `new_str` goes after this line.' },
              view_range: { type: 'array', items: { type: 'integer' }, description: 'Optional for `view` of a file: [start, end], -1 for the end.' },
            },
            required: ['command', 'path'],
          },
        },
      },
      {
        type: 'function',
        function: {
          name: 'think',
          description: 'Use the tool to think about something.',
          parameters: { type: 'object', properties: { thought: { type: 'string', description: 'The thought to log.' } }, required: ['thought'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'finish',
          description: 'Finish the interaction when the task is complete OR if the assistant cannot proceed further with the task.',
          parameters: { type: 'object', properties: {}, required: [] },
        },
      },
    ];
  }
}

function jsonField(text: string, field: string): unknown {
  try {
    return (JSON.parse(text) as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}

function parseReply(reply: PolicyReply, tools: OpenHandsToolSet): ParsedReply {
  const [call] = reply.toolCalls;
  // A reply without a call is a `message` to the user: it runs nothing.
  if (!call) return { thought: '', action: { raw: reply.content, tool: 'message', args: { content: reply.content } } };
  const parsed = tools.parseFunctionCall(call.name, call.arguments);
  if ('error' in parsed)
    return {
      thought: reply.content,
      action: { raw: call.arguments, tool: null, args: {}, toolCallId: call.id },
      formatError: parsed.error,
      errorMessage: parsed.error,
    };
  return { thought: reply.content, action: { raw: call.arguments, tool: parsed.tool, args: parsed.args, toolCallId: call.id } };
}

function createOpenHands(version = 'codeact'): Scaffold {
  const tools = new OpenHandsToolSet();
  return {
    name: 'openhands',
    version,
    tools,
    replyFormat: 'function_calling',
    tty: false,
    // OpenHands' bash session is a tmux window running `su root -`: a login shell (/etc/profile, ~/.profile).
    shellStartup: { login: true },
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
  formats: [openHandsFormat],
  toolKinds: {
    run: 'run',
    execute_bash: 'run',
    cmd_run: 'run',
    run_ipython: 'run',
    execute_ipython_cell: 'run',
    read: 'view',
    edit: 'edit',
    str_replace_editor: 'editor',
    think: 'think',
    message: 'think',
    finish: 'submit',
    browse: 'browse',
  },
  replyTools: ['message'],
  versions: ['codeact'],
  detect(recording) {
    if (recording.format === 'openhands') return { version: 'codeact', reason: 'an OpenHands event stream (`source`/`action`/`observation` events)' };
    // Chat exports of CodeAct runs (SkyRL-Agent's) keep OpenHands' function names.
    const called = [...toolsCalled(recording)];
    if (called.includes('execute_bash') && called.every((t) => t in FUNCTION_ACTIONS || t === 'str_replace_editor')) {
      return { version: 'codeact', reason: `the actions call OpenHands' functions (${called.join(', ')})` };
    }
    return undefined;
  },
  matchVersion: (version) => (version === 'codeact' || /^\d/.test(version) ? 'codeact' : undefined),
  create: (version) => createOpenHands(version),
};
