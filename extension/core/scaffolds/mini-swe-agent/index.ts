/**
 * mini-swe-agent 1.x and 2.x: one `bash` action per reply (a fenced block), or in 2.x one or
 * more `bash` tool calls, all run in order as one step; each command runs in a fresh process of the recording's interpreter (`bash -lc` by default;
 * nothing carries over), its output shown through the
 * recording's own Jinja2 templates, or the version's defaults when the recording has none.
 */
import { z } from 'zod';
import type { ParseResult } from '../../parsing/commandSyntax';
import { defineTool } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import type { Action, Trajectory } from '../../trajectory/model';
import { runFreshProcess } from '../freshProcess';
import { renderJinja } from '../jinja';
import type { ParsedReply, Scaffold, ScaffoldFamily } from '../scaffold';
import { MINI_DEFAULTS, MINI_SUBMIT_MARKERS, type MiniVersion } from './defaults';
import { miniSettings, submissionOf, type MiniSettings } from './settings';
import { miniSweAgentFormat } from './format';

const MINI_VERSIONS: readonly MiniVersion[] = ['1.x', '2.x'];

function bashTool(settings: MiniSettings, version: MiniVersion) {
  return defineTool({
    name: 'bash',
    bundle: 'mini-swe-agent',
    description: 'Execute a bash command',
    signature: '<command>',
    parameters: z.object({ command: z.string().describe('The bash command to run') }),
    async run(ctx, { command }) {
      const argv = [...settings.interpreter, command].map(singleQuoted).join(' ');
      const run = await runFreshProcess(ctx.sandbox, `exec ${argv}`, {
        cwd: settings.cwd ?? ctx.sandbox.repoPath,
        env: settings.env,
        guardMs: settings.timeoutS * 1000,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      if (run.killed) {
        return {
          observation: renderJinja(settings.timeoutTemplate, { ...settings.templateVars, action: { action: command }, output: run.output }),
          exitCode: 124,
        };
      }
      // 2.x submits only when the command succeeded (`_check_finished`); 1.x read the marker alone.
      const submission = version === '2.x' && run.exitCode !== 0 ? undefined : submissionOf(run.output);
      if (submission !== undefined) return { observation: submission, exitCode: run.exitCode, submission };
      const output = { output: run.output, returncode: run.exitCode, exception_info: '' };
      return { observation: renderJinja(settings.observationTemplate, { ...settings.templateVars, output }), exitCode: run.exitCode };
    },
  });
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** One tool; a typed action is the shell command itself. */
class MiniToolSet extends ToolSet {
  constructor(settings: MiniSettings, version: MiniVersion) {
    super(['mini-swe-agent'], new Map([['bash', bashTool(settings, version)]]));
  }

  override parseCommand(text: string): ParseResult {
    return text.trim() === '' ? { error: 'empty command' } : { tool: 'bash', args: { command: text } };
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return [
      {
        type: 'function',
        function: {
          name: 'bash',
          description: 'Execute a bash command',
          parameters: { type: 'object', properties: { command: { type: 'string', description: 'The bash command to execute' } }, required: ['command'] },
        },
      },
    ];
  }
}

/**
 * 2.x's reading of tool calls (`parse_toolcall_actions`): every call of the reply is an action,
 * run in order; a reply without one, or a call that is not `bash` with a `command`, is a format
 * error worded as 2.x words it.
 */
function toolCallActions(reply: PolicyReply): { actions: Action[] } | { error: string } {
  if (reply.toolCalls.length === 0) return { error: 'No tool calls found in the response. Every response MUST include at least one tool call.' };
  const actions: Action[] = [];
  for (const call of reply.toolCalls) {
    let error = '';
    let args: unknown = {};
    try {
      args = JSON.parse(call.arguments);
    } catch (err) {
      error = `Error parsing tool call arguments: ${(err as Error).message}.`;
    }
    if (call.name !== 'bash') error += `Unknown tool '${call.name}'.`;
    const command = args && typeof args === 'object' ? (args as Record<string, unknown>).command : undefined;
    if (typeof command !== 'string') error += "Missing 'command' argument in bash tool call.";
    if (error || typeof command !== 'string') return { error: error.trim() };
    actions.push({ raw: command, tool: 'bash', args: { command }, toolCallId: call.id });
  }
  return { actions };
}

function parseReply(reply: PolicyReply, version: MiniVersion, toolCalling: boolean, settings: MiniSettings, tools: MiniToolSet): ParsedReply {
  const formatError = (error: string, actions: string[], raw: string): ParsedReply => ({
    thought: reply.content,
    action: { raw, tool: null, args: {} },
    formatError: error,
    errorMessage: renderJinja(settings.formatErrorTemplate, {
      ...settings.templateVars,
      actions,
      error,
      has_tool_calls: reply.toolCalls.length > 0,
      ...(reply.finishReason ? { finish_reason: reply.finishReason } : {}),
    }),
  });
  if (version === '2.x' && toolCalling) {
    const read = toolCallActions(reply);
    if ('error' in read) return formatError(read.error, [], reply.toolCalls.map((c) => c.arguments).join('\n'));
    const [first] = read.actions;
    return { thought: reply.content, action: first!, ...(read.actions.length > 1 ? { calls: read.actions } : {}) };
  }
  if (reply.toolCalls.length > 0) {
    const [call] = reply.toolCalls;
    if (reply.toolCalls.length > 1)
      return formatError(
        `expected exactly one tool call, found ${reply.toolCalls.length}`,
        reply.toolCalls.map((c) => c.arguments),
        call!.arguments,
      );
    const parsed = tools.parseFunctionCall(call!.name, call!.arguments);
    if ('error' in parsed) return formatError(parsed.error, [], call!.arguments);
    return { thought: reply.content, action: { raw: String(parsed.args.command), tool: 'bash', args: parsed.args, toolCallId: call!.id } };
  }
  const matches = [...reply.content.matchAll(settings.actionRegex)];
  const actions = matches.map((m) => (m[1] ?? '').trim());
  if (actions.length !== 1) return formatError(`expected exactly one action, found ${actions.length}`, actions, reply.content);
  const thought = reply.content.slice(0, matches[0]!.index).trim();
  return { thought, action: { raw: actions[0]!, tool: 'bash', args: { command: actions[0]! } } };
}

function createMiniSweAgent(version: string, recording?: Trajectory): Scaffold {
  const known = (MINI_VERSIONS as readonly string[]).includes(version) ? (version as MiniVersion) : '2.x';
  const settings = miniSettings(known, recording);
  const tools = new MiniToolSet(settings, known);
  const toolCalling = recording?.meta.parseFunction === 'tool_calling';
  return {
    name: 'mini-swe-agent',
    version: known,
    tools,
    replyFormat: toolCalling ? 'function_calling' : 'bash_block',
    tty: false,
    ...(settings.parallelToolCalls !== undefined ? { parallelToolCalls: settings.parallelToolCalls } : {}),
    config: {},
    present: (result) => result.observation,
    parseReply: (reply) => parseReply(reply, known, toolCalling, settings, tools),
    toolSpecs: () => (toolCalling ? tools.openAiToolSpecs() : undefined),
    // mini-swe-agent keeps the model's reply as written and the rendered observation as the next user message.
    context: {
      observationTemplate: '{observation}',
      assistantText: (step) =>
        step.action.raw ? `${step.thought.trimEnd()}\n\n\`\`\`${MINI_DEFAULTS[known].fence}\n${step.action.raw}\n\`\`\`` : step.thought,
    },
    prompts: ({ problemStatement, spec }) => ({
      system: MINI_DEFAULTS[known].systemPrompt,
      instructions: `Please solve this issue: ${problemStatement ?? spec}`,
    }),
  };
}

export const miniSweAgentFamily: ScaffoldFamily = {
  name: 'mini-swe-agent',
  formats: [miniSweAgentFormat],
  // Its runs submit by echoing a marker from bash, which the tools and the views read as the submission.
  submits: (action) => MINI_SUBMIT_MARKERS.test(action.raw) || (typeof action.args.command === 'string' && MINI_SUBMIT_MARKERS.test(action.args.command)),
  versions: MINI_VERSIONS,
  detect(recording) {
    if (recording.format !== 'mini-swe-agent') return undefined;
    const declared = recording.meta.scaffoldConfig?.mini_version;
    if (typeof declared === 'string') return { version: declared, reason: `info.mini_version is ${declared}` };
    const format = recording.meta.formatVersion;
    if (format === 'mini-swe-agent-1') return { version: '1.x', reason: "trajectory_format 'mini-swe-agent-1' without mini_version" };
    if (format) return { version: '2.x', reason: `trajectory_format '${format}' without mini_version` };
    if (recording.meta.parseFunction === 'tool_calling') return { version: '2.x', reason: 'tool-call messages (mini-swe-agent 2.x)' };
    // 2.x fences with mswea_bash_command, and so did some early 1.x runs; their templates print alike, so 1.x's run a replay.
    if (recording.meta.parseFunction === 'mswea_bash_block')
      return {
        version: '1.x',
        reason: 'a bare message list without mini_version, fenced with ```mswea_bash_command as 2.x and some early 1.x runs fence their commands',
        undecided: ['1.x', '2.x'],
      };
    return { version: '1.x', reason: 'a bare message list without mini_version: the 1.x templates' };
  },
  matchVersion(version) {
    const major = version.replace(/^v/, '').split('.')[0];
    return major === '1' || major === '0' ? '1.x' : major === '2' ? '2.x' : undefined;
  },
  create: (version, recording) => createMiniSweAgent(version, recording),
};
