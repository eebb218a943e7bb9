/**
 * Terminus-2, Harbor's own agent (version 2.0.0): its actions are keystrokes typed into one tmux
 * session and its observations are what the terminal shows after them. A reply (JSON or XML, as
 * the run chose) holds a batch of commands, each keystrokes and a duration to wait; the batch is
 * one step, and the step's observation is read once, after its last command ("New Terminal
 * Output" or "Current Terminal Screen", cut to 10,000 bytes). `task_complete` is asked to be
 * confirmed once; the second one in a row ends the run. A reply that does not parse runs nothing:
 * the model is told the parser's error.
 */
import { z } from 'zod';
import type { ParseResult } from '../../parsing/commandSyntax';
import { defineTool, type ToolContext, type ToolResult } from '../../aci/toolDefinition';
import { ToolSet, type OpenAiToolSpec } from '../../aci/toolRegistry';
import type { PolicyReply } from '../../policy/policyClient';
import type { Sandbox } from '../../runtime/sandbox';
import type { Action, Step, Trajectory } from '../../trajectory/model';
import type { TextCallFormatDefinition } from '../../trajectory/textCalls';
import type { ParsedReply, RecordedStepReading, Scaffold, ScaffoldFamily } from '../scaffold';
import { parseTerminusReply, type TerminusParse, type TerminusReplyFormat } from './replyParsers';
import { TmuxSession, TmuxTimeoutError } from './tmuxSession';
import { TERMINUS_NORMALISERS } from './normalisers';
import { completionConfirmation, errorResponseType, limitOutputLength, promptTemplate, renderPrompt, timeoutMessage } from './prompts';

const VERSIONS = ['2.0.0'] as const;
const TERMINAL_STATE = '{terminal_state}';
/** Harbor caps every command's wait at 60 seconds (`min(duration, 60)`). */
const MAX_DURATION_S = 60;

/** What one sandbox's terminal holds between calls: the session, and the step being run. */
interface Terminal {
  session: TmuxSession;
  /** Harbor's `_pending_completion`: the last step marked the task complete and was asked to confirm. */
  pendingCompletion: boolean;
  /** This step called `mark_task_complete`. */
  completing: boolean;
  /** This step's send that timed out, after which its other commands do not run (Harbor returns at once). */
  timedOut?: { keystrokes: string; duration: number };
}

class TerminusToolSet extends ToolSet {
  private readonly terminals = new Map<string, Terminal>();
  /** The first screen of the session started last (a scaffold runs one session). */
  lastInitialScreen: string | undefined;

  constructor(readonly format: TerminusReplyFormat) {
    super(
      ['terminus-2'],
      new Map([
        [
          'bash_command',
          defineTool({
            name: 'bash_command',
            bundle: 'terminus-2',
            description: 'Send keystrokes to the terminal, then wait `duration` seconds before the next command',
            signature: '<keystrokes>',
            parameters: z.object({
              keystrokes: z.string().describe('The exact keystrokes, e.g. "ls -la\\n"; tmux key names such as C-c are sent as keys'),
              duration: z.number().default(1).describe('Seconds to wait after sending (at most 60)'),
            }),
            run: (ctx, args) => this.sendCommand(ctx, args.keystrokes, args.duration),
          }),
        ],
        [
          'mark_task_complete',
          defineTool({
            name: 'mark_task_complete',
            bundle: 'terminus-2',
            description: 'Mark the task complete (asked to be confirmed once)',
            signature: '',
            parameters: z.object({}),
            run: (ctx) => {
              this.terminal(ctx.sandbox).completing = true;
              return Promise.resolve({ observation: '', exitCode: 0 });
            },
          }),
        ],
      ]),
    );
  }

  private terminal(sandbox: Pick<Sandbox, 'id'>): Terminal {
    const terminal = this.terminals.get(sandbox.id);
    if (!terminal) throw new Error(`Terminus-2's tmux session was not started in sandbox ${sandbox.id}`);
    return terminal;
  }

  /** Starts the session and reads the first screen, as Harbor does before the first prompt. */
  async start(sandbox: Sandbox, signal?: AbortSignal): Promise<void> {
    const session = new TmuxSession(sandbox, { cwd: sandbox.repoPath });
    await session.start(signal);
    const initialScreen = limitOutputLength(await session.incrementalOutput(signal));
    this.terminals.set(sandbox.id, { session, pendingCompletion: false, completing: false });
    this.lastInitialScreen = initialScreen;
  }

  private async sendCommand(ctx: ToolContext, keystrokes: string, duration: number): Promise<ToolResult> {
    const terminal = this.terminal(ctx.sandbox);
    if (terminal.timedOut) return { observation: '', exitCode: 0 };
    const wait = Math.min(duration, MAX_DURATION_S);
    try {
      await terminal.session.sendKeys(keystrokes, { block: false, minTimeoutS: wait, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    } catch (err) {
      if (!(err instanceof TmuxTimeoutError)) throw err;
      terminal.timedOut = { keystrokes, duration: wait };
    }
    return { observation: '', exitCode: 0 };
  }

  /**
   * The step's observation, read once after its commands (`_execute_commands` and the
   * completion logic of `_run_agent_loop`); `feedback` is the parser's warnings for this reply.
   */
  override async endStep(ctx: ToolContext, feedback?: string): Promise<ToolResult> {
    const terminal = this.terminal(ctx.sandbox);
    const { session, completing, timedOut } = terminal;
    terminal.completing = false;
    delete terminal.timedOut;
    const screen = limitOutputLength(await session.incrementalOutput(ctx.signal));
    const output = timedOut ? timeoutMessage(timedOut.keystrokes, timedOut.duration, screen) : screen;
    if (completing) {
      if (terminal.pendingCompletion) return { observation: output, exitCode: 0, submission: '' };
      terminal.pendingCompletion = true;
      return { observation: completionConfirmation(this.format, output), exitCode: 0 };
    }
    terminal.pendingCompletion = false;
    if (feedback?.includes('WARNINGS:')) return { observation: `Previous response had warnings:\n${feedback}\n\n${limitOutputLength(output)}`, exitCode: 0 };
    return { observation: limitOutputLength(output), exitCode: 0 };
  }

  /** A typed action is the keystrokes themselves, sent with Harbor's default duration. */
  override parseCommand(text: string): ParseResult {
    return { tool: 'bash_command', args: { keystrokes: text, duration: 1 } };
  }

  override openAiToolSpecs(): OpenAiToolSpec[] {
    return [];
  }

  /**
   * How a recorded step that names no tool replays: a context-summarisation turn runs nothing; a
   * reply Harbor could not parse runs nothing and keeps its error turn; a reply kept as its raw
   * text (Harbor's `raw_content` mode) is read with the parser; an agent turn with no command
   * reads the terminal. A step with commands carries the parser's warnings its observation shows.
   */
  readRecorded(step: Step): RecordedStepReading | undefined {
    const feedback = /^Previous response had warnings:\n([\s\S]*?)\n\n(?=New Terminal Output:|Current Terminal Screen:|Previous command:)/.exec(
      step.observation,
    )?.[1];
    if (step.action.tool !== null) return feedback === undefined ? undefined : { action: step.action, ...callsOf(step), feedback };
    if (step.observation === '') return { action: step.action, runsNothing: true };
    if (step.observation.startsWith('Previous response had parsing errors:\n')) {
      const error = /^Previous response had parsing errors:\nERROR: (.*)/.exec(step.observation)?.[1] ?? 'the reply could not be parsed';
      return { action: step.action, formatError: error, errorMessage: step.observation };
    }
    const parsed = parseTerminusReply(this.format, step.thought);
    if (parsed.error) return { action: noCommand(), ...(feedback !== undefined ? { feedback } : {}) };
    const actions = actionsOf(parsed);
    return { action: actions[0] ?? noCommand(), ...(actions.length > 1 ? { calls: actions } : {}), ...(feedback !== undefined ? { feedback } : {}) };
  }
}

function callsOf(step: Step): { calls?: Action[] } {
  return step.calls ? { calls: step.calls.map((c) => c.action) } : {};
}

function noCommand(): Action {
  return { raw: '', tool: null, args: {} };
}

/** The reply's commands, then `mark_task_complete` when it marked the task complete, as Harbor records them. */
function actionsOf(parsed: TerminusParse): Action[] {
  const actions: Action[] = parsed.commands.map((c) => {
    const args = { keystrokes: c.keystrokes, duration: Math.min(c.duration, MAX_DURATION_S) };
    return { raw: JSON.stringify(args), tool: 'bash_command', args };
  });
  if (parsed.isTaskComplete) actions.push({ raw: '{}', tool: 'mark_task_complete', args: {} });
  return actions;
}

function feedbackOf(parsed: TerminusParse): string {
  if (parsed.error) return `ERROR: ${parsed.error}${parsed.warning ? `\nWARNINGS: ${parsed.warning}` : ''}`;
  return parsed.warning ? `WARNINGS: ${parsed.warning}` : '';
}

/** A parsed reply's thought as Harbor records it in an ATIF step's message (`Analysis: ...\nPlan: ...`). */
function thoughtOf(parsed: TerminusParse): string {
  return [parsed.analysis ? `Analysis: ${parsed.analysis}` : '', parsed.plan ? `Plan: ${parsed.plan}` : ''].filter((p) => p !== '').join('\n');
}

function parseReply(format: TerminusReplyFormat, reply: PolicyReply): ParsedReply {
  const parsed = parseTerminusReply(format, reply.content);
  const feedback = feedbackOf(parsed);
  if (parsed.error) {
    return {
      thought: reply.content,
      action: noCommand(),
      formatError: parsed.error,
      errorMessage: `Previous response had parsing errors:\n${feedback}\n\nPlease fix these issues and provide a proper ${errorResponseType(format)}.`,
    };
  }
  const actions = actionsOf(parsed);
  return {
    thought: thoughtOf(parsed),
    action: actions[0] ?? noCommand(),
    ...(actions.length > 1 ? { calls: actions } : {}),
    ...(feedback ? { feedback } : {}),
  };
}

/**
 * A reply kept as its text in another format's message (Harbor's raw-content mode writes the
 * model's JSON or XML as the ATIF step's message): its commands as the calls, as Harbor's parser
 * reads them, and the analysis and plan as the thought. A reply the parser refuses is not in the
 * format; one that asks for nothing has one call naming no tool.
 */
function textCallFormat(format: TerminusReplyFormat): TextCallFormatDefinition {
  return {
    name: format === 'json' ? 'terminus_json' : 'terminus_xml',
    looksLike: format === 'json' ? 'a Terminus-2 JSON reply ({"analysis", "plan", "commands"})' : 'a Terminus-2 <response> reply',
    read(text) {
      const parsed = parseTerminusReply(format, text);
      if (parsed.error) return undefined;
      const actions = actionsOf(parsed);
      return { thought: thoughtOf(parsed), calls: (actions.length > 0 ? actions : [noCommand()]).map((action) => ({ action })) };
    },
  };
}

/** The reply as the model would have written it, from a step's analysis, plan, commands and completion. */
function replyText(format: TerminusReplyFormat, step: Step): string {
  if (step.formatError !== undefined || step.action.tool === null) return step.thought;
  const analysis = /^Analysis: ([\s\S]*?)(?:\nPlan: |$)/.exec(step.thought)?.[1] ?? '';
  const plan = /(?:^|\n)Plan: ([\s\S]*)$/.exec(step.thought)?.[1] ?? '';
  const actions = step.calls ? step.calls.map((c) => c.action) : [step.action];
  const commands = actions
    .filter((a) => a.tool === 'bash_command')
    .map((a) => ({ keystrokes: String(a.args.keystrokes), duration: Number(a.args.duration ?? 1) }));
  const complete = actions.some((a) => a.tool === 'mark_task_complete');
  if (format === 'json') return JSON.stringify({ analysis, plan, commands, task_complete: complete }, null, 2);
  const keys = commands.map((c) => `<keystrokes duration="${c.duration}">${c.keystrokes}</keystrokes>`).join('\n');
  return `<response>\n<analysis>\n${analysis}\n</analysis>\n<plan>\n${plan}\n</plan>\n<commands>\n${keys}\n</commands>\n<task_complete>${complete}</task_complete>\n</response>`;
}

/** The reply format a recording used: Harbor writes it as `agent.extra.parser`; JSON is Harbor's default. */
function formatOf(recording?: Trajectory): TerminusReplyFormat {
  const config = recording?.meta.scaffoldConfig;
  const parser = config?.parser ?? (config?.extra as Record<string, unknown> | undefined)?.parser;
  if (parser === 'xml' || recording?.meta.parseFunction === 'terminus_xml') return 'xml';
  return 'json';
}

function createTerminus2(version: string, recording?: Trajectory): Scaffold {
  const format = formatOf(recording);
  const tools = new TerminusToolSet(format);
  return {
    name: 'terminus-2',
    version: (VERSIONS as readonly string[]).includes(version) ? version : VERSIONS.at(-1)!,
    tools,
    replyFormat: format === 'json' ? 'terminus_json' : 'terminus_xml',
    tty: false,
    config: {},
    defaultRepoPath: '/app',
    prepare: (sandbox, signal) => tools.start(sandbox, signal),
    present: (result) => result.observation,
    parseReply: (reply) => parseReply(format, reply),
    toolSpecs: () => undefined,
    context: { observationTemplate: '{observation}', assistantText: (step) => replyText(format, step) },
    prompts: ({ problemStatement, spec }) => ({
      system: '',
      instructions: renderPrompt(promptTemplate(format), problemStatement ?? spec ?? '', TERMINAL_STATE),
    }),
    // The first prompt shows the terminal, known once the session has started: filled in when a live policy is first asked.
    liveInstructions: (instructions) => {
      const screen = tools.lastInitialScreen;
      const at = instructions.lastIndexOf(TERMINAL_STATE);
      return screen === undefined || at === -1 ? instructions : instructions.slice(0, at) + screen + instructions.slice(at + TERMINAL_STATE.length);
    },
  };
}

export const terminus2Family: ScaffoldFamily = {
  name: 'terminus-2',
  versions: VERSIONS,
  normalisers: TERMINUS_NORMALISERS,
  textCalls: [textCallFormat('json'), textCallFormat('xml')],
  detect(recording) {
    const label = recording.meta.scaffold;
    if (!label?.startsWith('terminus-2')) return undefined;
    return { version: label.split('@')[1] ?? VERSIONS.at(-1)!, reason: `meta.scaffold is '${label}' (ATIF agent name and version)` };
  },
  matchVersion: (version) => (version.replace(/^v/, '').split('.')[0] === '2' ? '2.0.0' : undefined),
  create: (version, recording) => createTerminus2(version, recording),
};
