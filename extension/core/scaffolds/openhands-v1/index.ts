/**
 * OpenHands V1 (the software-agent-sdk, `openhands-sdk` 1.x): its conversations (`format.ts`)
 * and its tools as a live policy calls them by function calling: `terminal` (a persistent
 * shell), `file_editor` (`fileEditor.ts`), `task_tracker`, `glob` and `grep` (`search.ts`),
 * `apply_patch` (`applyPatch.ts`), `think` and `finish`.
 *
 * What each tool prints is `openhands-tools` 1.43.1's: every tool but `think` and `finish` is
 * checked byte for byte against the reference's own executors
 * (test/conformance/openHandsV1Tools.test.ts, docs/scaffolds.md: what is not covered).
 */
import { z } from 'zod';
import type { ParseResult } from '../../parsing/commandSyntax';
import { currentPatch } from '../../aci/repositoryPatch';
import { defineTool, type ToolDefinition } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import type { ParsedReply, RecordedStepReading, Scaffold, ScaffoldFamily } from '../scaffold';
import type { Step } from '../../trajectory/model';
import { v1ApplyPatch } from './applyPatch';
import { v1FileEditor } from './fileEditor';
import { v1Glob, v1Grep } from './search';
import { openHandsV1Format } from './format';
import { laxFloat, laxInt } from './pydanticLax';

const BUNDLE = 'openhands-v1';
const VERSION = '1';

/** `printf` of the shell's directory and Python after a command: what the SDK's PS1 reports. */
const PS1_FIELDS = `printf '%s\\n%s' "$(pwd)" "$(command -v python || echo '')"`;

/** Python's `repr` of a string, as an f-string's `!r` writes it. */
function pyRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = [...text]
    .map((ch) => {
      if (ch === '\\' || ch === quote) return `\\${ch}`;
      if (ch === '\n') return '\\n';
      if (ch === '\r') return '\\r';
      if (ch === '\t') return '\\t';
      if (ch !== ' ' && /[\p{C}\p{Z}]/u.test(ch)) {
        const code = ch.codePointAt(0)!;
        const hex = code.toString(16);
        return code < 0x100 ? `\\x${hex.padStart(2, '0')}` : code < 0x10000 ? `\\u${hex.padStart(4, '0')}` : `\\U${hex.padStart(8, '0')}`;
      }
      return ch;
    })
    .join('');
  return quote + escaped + quote;
}

/**
 * `looks_like_python_literal_argument`: a command that starts like a Python/JSON list or dict
 * (`[{`, `["`, `{"`, `[[x`) is data the model packed into `command`; bash's `[ `, `[[ ` and
 * `{ ` are not.
 */
function literalKind(command: string): string | undefined {
  const s = command.trimStart();
  const [a, b, c] = [s[0], s[1], s[2]];
  if (s.length < 2) return undefined;
  if (a === '[' && (b === '{' || b === '"' || b === "'")) return 'list literal';
  if (a === '[' && b === '[') return c !== undefined && c !== ' ' && c !== '\t' ? 'nested list literal' : undefined;
  if (a === '{' && (b === '"' || b === "'")) return 'dict literal';
  return undefined;
}

/** TerminalExecutor's answer to such a command, which it does not run. */
const literalHint = (kind: string, command: string) =>
  `[An error occurred during execution.]\n[Tool-argument error] The \`command\` argument looks like a Python/JSON ${kind}, not a shell command. ` +
  `It starts with: ${pyRepr([...command.trimStart()].slice(0, 60).join(''))}\n\n` +
  'The `terminal` tool runs exactly ONE shell command at a time. To pass structured data or multi-line code:\n' +
  '  - Write a script first with `file_editor` (command="create", path="/tmp/run.py", ...), then invoke it: `python /tmp/run.py`.\n' +
  "  - Or use a heredoc inline, e.g.:\n        python - <<'EOF'\n        DATABASES = {'default': {...}}\n        # your code here\n        EOF\n\n" +
  'Do not put a Python list/dict literal into the `command` field; the shell cannot interpret it.';

/**
 * `terminal`: the command in the session's shell, observed as TerminalObservation's
 * `to_llm_content` words it: the output, the completion suffix, then the directory, the
 * interpreter and the exit code from the PS1 metadata.
 */
const terminal = defineTool({
  name: 'terminal',
  bundle: BUNDLE,
  description: 'Execute a bash command in the terminal within a persistent shell session.',
  signature: '<command>',
  // TerminalAction's `timeout` (float, >= 0) is checked as pydantic checks it; the command runs under the session's own limit.
  parameters: z.looseObject({ command: z.string(), timeout: z.preprocess(laxFloat, z.number().min(0)).nullish() }),
  async run(ctx, { command }) {
    const kind = literalKind(command);
    if (kind) return { observation: literalHint(kind, command), exitCode: 1 };
    const options = { timeoutMs: ctx.config.commandTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    const result = await ctx.sandbox.exec(command, options);
    const ps1 = await ctx.sandbox.exec(PS1_FIELDS, options);
    const [cwd = '', python = ''] = ps1.output.split('\n');
    const output = result.output.replace(/\r\n/g, '\n').replace(/\n+$/, '');
    let text = `${output}\n[The command completed with exit code ${result.exitCode}.]`;
    if (cwd) text += `\n[Current working directory: ${cwd}]`;
    if (python) text += `\n[Python interpreter: ${python}]`;
    text += `\n[Command finished with exit code ${result.exitCode}]`;
    return { observation: text, exitCode: result.exitCode };
  },
});

const fileEditor = defineTool({
  name: 'file_editor',
  bundle: BUNDLE,
  description: 'Custom editing tool for viewing, creating and editing files in plain-text format.',
  signature: 'file_editor <command> <path>',
  // FileEditorAction's fields: what pydantic refuses never reaches the editor.
  parameters: z.looseObject({
    command: z.enum(['view', 'create', 'str_replace', 'insert', 'undo_edit']),
    path: z.string(),
    file_text: z.string().nullish(),
    old_str: z.string().nullish(),
    new_str: z.string().nullish(),
    insert_line: z.preprocess(laxInt, z.number().int().min(0)).nullish(),
    view_range: z.array(z.preprocess(laxInt, z.number().int())).nullish(),
  }),
  run: (ctx, args) => v1FileEditor(ctx, args),
});

const TaskSchema = z.object({ title: z.string(), notes: z.string().default(''), status: z.enum(['todo', 'in_progress', 'done']).default('todo') });
const TaskTrackerArgs = z.looseObject({ command: z.enum(['view', 'plan']).default('view'), task_list: z.array(TaskSchema).default([]) });
const STATUS_ICONS = { todo: '⏳', in_progress: '🔄', done: '✅' } as const;

/**
 * `task_tracker`: `plan` replaces the task list, `view` shows it (TaskTrackerExecutor's
 * wording). The list lives in V1's slot of the session's tool state, so a fork keeps it; the
 * SDK's copy in the conversation's folder is outside the sandbox and not written.
 */
const taskTracker = defineTool({
  name: 'task_tracker',
  bundle: BUNDLE,
  description: 'Manage a structured task list: `view` shows it, `plan` replaces it.',
  signature: 'task_tracker <command>',
  parameters: TaskTrackerArgs,
  async run(ctx, args) {
    // The SDK builds the action before it runs, so arguments it refuses never reach the tool: a replay says why.
    const parsed = TaskTrackerArgs.safeParse(args);
    if (!parsed.success) return { observation: `task_tracker: ${parsed.error.issues[0]?.message ?? 'invalid arguments'}`, exitCode: 1 };
    const { command, task_list: tasks } = parsed.data;
    const slot = (ctx.state.families['openhands-v1'] ??= {}) as { tasks?: Array<z.infer<typeof TaskSchema>> };
    if (command === 'plan') {
      slot.tasks = tasks;
      return { observation: `Task list has been updated with ${tasks.length} item(s).`, exitCode: 0 };
    }
    const kept = slot.tasks ?? [];
    if (kept.length === 0) return { observation: 'No task list found. Use the "plan" command to create one.', exitCode: 0 };
    const blocks = kept.map((t, i) => `${i + 1}. ${STATUS_ICONS[t.status]} ${t.title}\n${t.notes ? `   ${t.notes}\n` : ''}`);
    return { observation: `# Task List\n\n${blocks.join('\n')}`.trim(), exitCode: 0 };
  },
});

const think = defineTool({
  name: 'think',
  bundle: BUNDLE,
  description: 'Use the tool to think about something.',
  signature: 'think',
  parameters: z.looseObject({ thought: z.string() }),
  // ThinkObservation's default text.
  run: async () => ({ observation: 'Your thought has been logged.', exitCode: 0 }),
});

/** `finish`: its observation is the message (FinishObservation), and the repository's diff is the submission. */
const finish = defineTool({
  name: 'finish',
  bundle: BUNDLE,
  description: 'Signals the completion of the current task or conversation.',
  signature: 'finish',
  parameters: z.looseObject({ message: z.string() }),
  async run(ctx, { message }) {
    const diff = await currentPatch(ctx);
    return { observation: message, exitCode: 0, submission: 'patch' in diff ? diff.patch : '' };
  },
});

const glob = defineTool({
  name: 'glob',
  bundle: BUNDLE,
  description: 'Find files by glob pattern (e.g. "**/*.py"), newest first, at most 100.',
  signature: 'glob <pattern>',
  readOnly: true,
  parameters: z.looseObject({ pattern: z.string(), path: z.string().nullish() }),
  run: (ctx, args) => v1Glob(ctx, args),
});

const grep = defineTool({
  name: 'grep',
  bundle: BUNDLE,
  description: 'Find the files whose contents match a regular expression (case-insensitive), newest first, at most 100.',
  signature: 'grep <pattern>',
  readOnly: true,
  parameters: z.looseObject({ pattern: z.string(), path: z.string().nullish(), include: z.string().nullish() }),
  run: (ctx, args) => v1Grep(ctx, args),
});

const applyPatch = defineTool({
  name: 'apply_patch',
  bundle: BUNDLE,
  description: "Apply a patch to files in the workspace. It starts with '*** Begin Patch' and ends with '*** End Patch'.",
  signature: 'apply_patch',
  parameters: z.looseObject({ patch: z.string() }),
  run: (ctx, { patch }) => v1ApplyPatch(ctx, patch),
});

/** A reply that called no tool: a message to the user, which runs nothing. */
const message = defineTool({
  name: 'message',
  bundle: BUNDLE,
  description: 'message',
  signature: 'message',
  parameters: z.looseObject({}),
  run: async () => ({ observation: '', exitCode: 0 }),
});

const TOOLS: readonly ToolDefinition[] = [terminal, fileEditor, taskTracker, glob, grep, applyPatch, think, finish, message];

class OpenHandsV1ToolSet extends ToolSet {
  constructor() {
    super([BUNDLE], new Map(TOOLS.map((t) => [t.name, t] as const)));
  }

  /** A recorded reply that called no tool (the agent's message to the user) runs nothing, as in V1. */
  readRecorded(step: Step): RecordedStepReading | undefined {
    return step.action.tool === null && step.formatError === undefined && !step.calls ? { action: step.action, runsNothing: true } : undefined;
  }

  /** Typed text is a terminal command. */
  override parseCommand(text: string): ParseResult {
    return text.trim() === '' ? { error: 'empty command' } : { tool: 'terminal', args: { command: text } };
  }

  override parseFunctionCall(name: string, args: string | Record<string, unknown>): ParseResult {
    let values: unknown = args;
    if (typeof args === 'string') {
      try {
        values = args.trim() === '' ? {} : JSON.parse(args);
      } catch {
        return { error: `the arguments of ${name} are not valid JSON` };
      }
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) return { error: `the arguments of ${name} are not a JSON object` };
    const tool = this.get(name);
    if (!tool || name === 'message')
      return {
        error: `Tool '${name}' not found. Available: ${TOOLS.filter((t) => t !== message)
          .map((t) => t.name)
          .join(', ')}`,
      };
    const parsed = tool.parameters.safeParse(values);
    if (!parsed.success)
      return { error: `Error validating args ${JSON.stringify(values)} for tool '${name}': ${parsed.error.issues[0]?.message ?? 'invalid'}` };
    return { tool: name, args: values as Record<string, unknown> };
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return [
      spec('terminal', terminal.description, { command: { type: 'string', description: 'The bash command to execute.' } }, ['command']),
      spec(
        'file_editor',
        fileEditor.description,
        {
          command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert', 'undo_edit'], description: 'The command to run.' },
          path: { type: 'string', description: 'Absolute path to file or directory.' },
          file_text: { type: 'string', description: 'Required parameter of `create` command, with the content of the file to be created.' },
          old_str: { type: 'string', description: 'Required parameter of `str_replace` command containing the string in `path` to replace.' },
          new_str: { type: 'string', description: 'Required parameter of `str_replace` (the new string) and `insert` (the string to insert) commands.' },
          insert_line: { type: 'integer', description: 'Required parameter of `insert` command: `new_str` is inserted AFTER this line of `path`.' },
          view_range: { type: 'array', items: { type: 'integer' }, description: 'Optional parameter of `view` command when `path` points to a file.' },
        },
        ['command', 'path'],
      ),
      spec(
        'task_tracker',
        taskTracker.description,
        {
          command: { type: 'string', enum: ['view', 'plan'], description: '`view` shows the current task list. `plan` creates or updates it.' },
          task_list: {
            type: 'array',
            description: 'The full task list. Required parameter of `plan` command.',
            items: {
              type: 'object',
              properties: { title: { type: 'string' }, notes: { type: 'string' }, status: { type: 'string', enum: ['todo', 'in_progress', 'done'] } },
              required: ['title'],
            },
          },
        },
        ['command'],
      ),
      spec(
        'glob',
        glob.description,
        {
          pattern: { type: 'string', description: 'The glob pattern, e.g. "**/*.js" or "src/**/*.ts".' },
          path: { type: 'string', description: 'The folder (absolute path) to search in; the working directory when omitted.' },
        },
        ['pattern'],
      ),
      spec(
        'grep',
        grep.description,
        {
          pattern: { type: 'string', description: 'The regular expression to search the files for.' },
          path: { type: 'string', description: 'The folder (absolute path) to search in; the working directory when omitted.' },
          include: { type: 'string', description: 'Only files whose name matches this pattern, e.g. "*.js".' },
        },
        ['pattern'],
      ),
      spec('apply_patch', applyPatch.description, { patch: { type: 'string', description: "The patch, from '*** Begin Patch' to '*** End Patch'." } }, [
        'patch',
      ]),
      spec('think', think.description, { thought: { type: 'string', description: 'The thought to log.' } }, ['thought']),
      spec('finish', finish.description, { message: { type: 'string', description: 'Final message to send to the user.' } }, ['message']),
    ];
  }
}

function spec(name: string, description: string, properties: Record<string, unknown>, required: string[]): OpenAiToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required } } };
}

function parseReply(reply: PolicyReply, tools: OpenHandsV1ToolSet): ParsedReply {
  const [call] = reply.toolCalls;
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

function createOpenHandsV1(version: string): Scaffold {
  const tools = new OpenHandsV1ToolSet();
  return {
    name: 'openhands-v1',
    version,
    tools,
    replyFormat: 'function_calling',
    tty: false,
    shellStartup: { login: true },
    config: {},
    present: (result) => result.observation,
    parseReply: (reply) => parseReply(reply, tools),
    toolSpecs: () => tools.openAiToolSpecs(),
    context: { observationTemplate: '{observation}' },
    prompts: ({ problemStatement, spec: task, repoPath }) => ({
      system: 'You are OpenHands agent, a helpful AI assistant that can interact with a computer to solve tasks.',
      instructions: `<uploaded_files>\n${repoPath}\n</uploaded_files>\nI've uploaded a code repository in the directory ${repoPath}. Consider the following issue description:\n\n<issue_description>\n${problemStatement ?? task}\n</issue_description>`,
    }),
  };
}

/** The SDK's default tool names; a chat export calling `terminal` and only these is V1's. */
const V1_TOOLS = new Set(['terminal', 'file_editor', 'task_tracker', 'think', 'finish', 'glob', 'grep', 'apply_patch', 'message']);

export const openHandsV1Family: ScaffoldFamily = {
  name: 'openhands-v1',
  formats: [openHandsV1Format],
  toolKinds: {
    terminal: 'run',
    file_editor: 'editor',
    think: 'think',
    message: 'think',
    finish: 'submit',
    task_tracker: 'other',
    glob: 'search',
    grep: 'search',
    apply_patch: 'edit',
  },
  versions: [VERSION],
  detect(recording) {
    if (recording.format === 'openhands-v1') return { version: VERSION, reason: 'an OpenHands V1 conversation (events with a `kind`)' };
    const called = new Set(recording.steps.flatMap((s) => (s.calls ?? [s]).flatMap((c) => ('action' in c && c.action.tool ? [c.action.tool] : []))));
    if (called.has('terminal') && [...called].every((t) => V1_TOOLS.has(t)))
      return { version: VERSION, reason: `the actions call OpenHands V1's tools (${[...called].join(', ')})` };
    return undefined;
  },
  matchVersion: (version) => (/^1(\.|$)/.test(version) ? VERSION : undefined),
  create: (version) => createOpenHandsV1(version),
};
