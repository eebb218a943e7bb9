import { z } from 'zod';
import type { Step, Trajectory } from '../../trajectory/model';
import { argumentsText, parseFencedCommand, parseToolArguments } from '../../trajectory/actionText';
import { ChatMessageSchema, chatSteps, contentText, preambleOf, type FollowerFacts, type MessageActions } from '../../trajectory/chatSteps';
import { defined, type ImportContext } from '../../trajectory/importContext';
import { parseInput } from '../../trajectory/inputSchema';
import { newerVersionWarning, parseVersion, refusedVersion, type KnownVersions } from '../../trajectory/formatVersion';
import { MINI_SUBMIT_MARKERS } from './defaults';

const MessageSchema = ChatMessageSchema.extend({
  extra: z
    .looseObject({
      actions: z.array(z.looseObject({ command: z.string(), tool_call_id: z.string().nullish() })).nullish(),
      returncode: z.number().nullish(),
      interrupt_type: z.string().nullish(),
      exit_status: z.string().nullish(),
      submission: z.string().nullish(),
      timestamp: z.union([z.number(), z.string()]).nullish(),
    })
    .nullish(),
});
export type MiniSweAgentMessage = z.infer<typeof MessageSchema>;
type Message = MiniSweAgentMessage;

const MessagesSchema = z.array(MessageSchema);

const RunSchema = z.looseObject({
  trajectory_format: z
    .string()
    .nullish()
    .superRefine((format, ctx) => {
      const v = format == null ? undefined : parseVersion(MINI_FORMAT, format);
      const refused = v && refusedVersion(MINI_FORMATS, v);
      if (refused) ctx.addIssue({ code: 'custom', message: refused });
    }),
  instance_id: z.string().nullish(),
  info: z
    .looseObject({
      exit_status: z.string().nullish(),
      submission: z.string().nullish(),
      mini_version: z.string().nullish(),
      scaffold: z.string().nullish(),
      base_commit: z.string().nullish(),
      model_stats: z.looseObject({ instance_cost: z.number().nullish(), api_calls: z.number().nullish() }).nullish(),
      config: z.looseObject({ model: z.looseObject({ model_name: z.string().nullish() }).nullish() }).nullish(),
    })
    .nullish(),
  messages: MessagesSchema,
});

const RETURNCODE = /^<returncode>(-?\d+)<\/returncode>/;

/**
 * The tool of an action: bash, unless its call names another scaffold's tool (a trajectory
 * converted from one), whose name and arguments the call keeps.
 */
function foreignTool(message: Message, id: string | null | undefined): { tool: string; args: Record<string, unknown> } | undefined {
  const call = id == null ? undefined : message.tool_calls?.find((c) => c.id === id);
  if (!call || call.function.name === 'bash') return undefined;
  const parsed = parseToolArguments(argumentsText(call.function.arguments));
  return 'args' in parsed ? { tool: call.function.name, args: parsed.args } : undefined;
}

function actionsOf(message: Message): MessageActions | undefined {
  const actions = message.extra?.actions;
  if (actions) {
    // An empty list is a reply the scaffold could not read: the FormatError message follows it.
    return {
      thought: contentText(message.content),
      calls: actions.map((a) => ({
        action: defined({
          raw: a.command,
          ...(foreignTool(message, a.tool_call_id) ?? { tool: 'bash', args: { command: a.command } }),
          toolCallId: a.tool_call_id ?? undefined,
        }),
      })),
    };
  }
  if (message.tool_calls?.length) return undefined;
  const { thought, ...call } = parseFencedCommand(contentText(message.content));
  return { thought, calls: [call] };
}

function followerFacts(message: Message): FollowerFacts {
  const extra = message.extra;
  const text = contentText(message.content);
  const code = extra?.returncode ?? (RETURNCODE.exec(text) ? Number(RETURNCODE.exec(text)![1]) : undefined);
  const stamp = extra?.timestamp;
  return defined({
    exitCode: code ?? undefined,
    formatError: extra?.interrupt_type === 'FormatError' ? `FormatError: ${text.split('\n', 1)[0]}` : undefined,
    timestamp: typeof stamp === 'number' ? new Date(stamp * 1000).toISOString() : (stamp ?? undefined),
  });
}

// The run's end: `role: exit` now; older versions wrote it as a user message carrying the exit status.
const isExit = (m: Message) => m.role === 'exit' || (m.role === 'user' && m.extra?.exit_status != null);

/**
 * A submission ends the run from inside the submitting command (2.x's `_check_finished` raises
 * before a tool message is written): an exit message that says Submitted right after the reply,
 * its content the submission, is what that command returned, so it is the step's observation.
 * Other exits (limits, errors, or after the command's own result) stay out of the steps.
 */
function skipsExit(m: Message, index: number, messages: ReadonlyArray<Message>): boolean {
  if (!isExit(m)) return false;
  return !(/^submitted$/i.test(m.extra?.exit_status ?? '') && messages[index - 1]?.role === 'assistant');
}

/** The legacy form ends with the submitting command and a user message holding the submission. */
function legacySubmission(messages: ReadonlyArray<Message>): string | undefined {
  const last = messages.length - 1;
  const command = messages[last - 1];
  if (last < 1 || messages[last]!.role !== 'user' || command?.role !== 'assistant') return undefined;
  return MINI_SUBMIT_MARKERS.test(contentText(command.content)) ? contentText(messages[last]!.content) : undefined;
}

/** How mini-swe-agent's messages make steps (`chatSteps`), for a reader that makes them a turn at a time (`core/trajectory/stepSource.ts`). */
export const MINI_SWE_AGENT_HOOKS = { actionsOf, followerFacts, skip: skipsExit };

/** Message `path` of a run, checked. */
export function miniSweAgentMessage(value: unknown, file: string, path: ReadonlyArray<string | number>): MiniSweAgentMessage {
  return parseInput(MessageSchema, value, file, path);
}

const RunFactsSchema = RunSchema.omit({ messages: true });

/** `trajectory_format`: `mini-swe-agent-1` (1.x's text messages) and `mini-swe-agent-1.1` (tool calls, 2.x too), under the rule every versioned format follows. */
const MINI_FORMAT = /^mini-swe-agent-(\d+)(?:\.(\d+))?$/;
const MINI_FORMATS: KnownVersions = {
  label: 'mini-swe-agent trajectory_format',
  major: 1,
  latestMinor: 1,
  spell: (v) => `mini-swe-agent-${v.major}${v.minor === 0 ? '' : `.${v.minor}`}`,
};

/** The one warning of a newer minor trajectory_format (mini-swe-agent-1.2), read as 1.1; a run reads any field, so none is named. */
function newerFormat(format: string | null | undefined): string[] | undefined {
  const v = format == null ? undefined : parseVersion(MINI_FORMAT, format);
  return v && v.major === MINI_FORMATS.major && v.minor > MINI_FORMATS.latestMinor ? [newerVersionWarning(MINI_FORMATS, v, undefined, '')] : undefined;
}
type RunFacts = z.infer<typeof RunFactsSchema>;

/** A run's values besides its messages (undefined: a bare message list), checked. */
export function miniSweAgentRunFacts(value: Record<string, unknown> | undefined, file: string): RunFacts | undefined {
  return value === undefined ? undefined : parseInput(RunFactsSchema, value, file, []);
}

export function importMiniSweAgent(value: unknown, ctx: ImportContext): Trajectory {
  const run = Array.isArray(value) ? undefined : parseInput(RunSchema, value, ctx.file, ctx.base);
  const messages = run ? run.messages : parseInput(MessagesSchema, value, ctx.file, ctx.base);
  const path = run ? ['messages'] : [];
  return miniSweAgentTrajectory(run, messages, chatSteps(messages, path, ctx, MINI_SWE_AGENT_HOOKS));
}

/**
 * The trajectory of a run and its messages. The header reads, of the messages, the roles, tool
 * calls and `extra` of each, and the text of the preamble (system and first user message) and of
 * the last two (a legacy run's submission).
 */
export function miniSweAgentTrajectory(run: RunFacts | undefined, messages: ReadonlyArray<Message>, steps: Step[]): Trajectory {
  const exit = messages.find(isExit)?.extra;
  const legacy = run?.info ? undefined : legacySubmission(messages);
  const stats = run?.info?.model_stats;
  return {
    format: 'mini-swe-agent',
    task: defined({ instanceId: run?.instance_id ?? undefined, baseCommit: run?.info?.base_commit ?? undefined }),
    steps,
    outcome: defined({
      exitStatus: exit?.exit_status ?? run?.info?.exit_status ?? (legacy === undefined ? undefined : 'Submitted'),
      submission: exit?.submission ?? run?.info?.submission ?? legacy,
      modelStats: stats ? defined({ instanceCost: stats.instance_cost ?? undefined, apiCalls: stats.api_calls ?? undefined }) : undefined,
    }),
    meta: defined({
      formatVersion: run?.trajectory_format ?? undefined,
      warnings: newerFormat(run?.trajectory_format),
      scaffold: run?.info?.scaffold ?? undefined,
      model: run?.info?.config?.model?.model_name ?? undefined,
      // Which fence the text actions use: ```mswea_bash_command (2.x, and some early 1.x runs) or ```bash (1.x).
      parseFunction: messages.some((m) => m.tool_calls?.length)
        ? 'tool_calling'
        : messages.some((m) => m.role === 'assistant' && contentText(m.content).includes('```mswea_bash_command'))
          ? 'mswea_bash_block'
          : 'bash_block',
      // mini-swe-agent runs every command in a fresh `bash -lc` without a terminal.
      pty: false,
      // Its version and config (templates, environment), so a replay words observations as the run did.
      scaffoldConfig:
        run?.info && (run.info.mini_version || run.info.config)
          ? defined({ mini_version: run.info.mini_version ?? undefined, config: run.info.config ?? undefined })
          : undefined,
      ...preambleOf(messages, isExit),
    }),
  };
}
