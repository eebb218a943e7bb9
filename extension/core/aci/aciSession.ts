import { throwIfAborted } from '../errors';
import type { Sandbox } from '../runtime/sandbox';
import { shellQuote } from '../parsing/shellWords';
import { validateArguments, type ParsedAction } from '../parsing/commandSyntax';
import { disposeWarmServers } from '../runtime/warmPython';
import { disposePyright } from './lspServer';
import { currentPatch } from './repositoryPatch';
import { DEFAULT_ACI_CONFIG, type AciConfig, type AciState, type ToolContext, type ToolResult } from './toolDefinition';
import type { ToolSet } from './toolRegistry';

/** The step state SWE-agent records after every action (`state` in a `.traj` step). */
export interface AciStepState {
  open_file: string | null;
  working_dir: string;
  /** The repository's staged diff, when the `diff_state` bundle is selected. */
  diff?: string;
}

export interface AciStepResult {
  observation: string;
  exitCode: number;
  state: AciStepState;
  /** Why the action could not be run as written; the observation then holds the same text. */
  formatError?: string;
  /** The patch, when the action was a submission. */
  submission?: string;
}

export interface AciSessionOptions {
  /** The family's tools (a scaffold's, core/scaffolds). */
  tools: ToolSet;
  config?: Partial<AciConfig>;
  /**
   * The observation as the agent read it, from a tool's result (a scaffold's own wording,
   * core/scaffolds). Default: the tool set's `present`.
   */
  present?: (result: ToolResult) => string;
}

/**
 * What the tools remember between calls (the working directory, each family's own state such as
 * SWE-agent's viewer or OpenHands' undo history, the last `diff_state`), copied so that later
 * calls do not change it: a fork restores it with the workspace.
 */
export interface AciToolState {
  state: AciState;
  diff?: string;
}

/** Exit code given to an action that could not be parsed or validated (nothing ran). */
const FORMAT_ERROR_EXIT_CODE = 2;

/**
 * The agent's tools bound to one sandbox: what they remember between calls (the shell's working
 * directory, the editor's undo history, the family's own state) lives here. Calls run one at a
 * time, in order.
 */
export class AciSession {
  readonly tools: ToolSet;
  readonly config: AciConfig;
  private readonly state: AciState;
  private readonly present: ((result: ToolResult) => string) | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Set when the recording's bundles include `diff_state`: the diff after the last action. */
  private diff: string | undefined;

  constructor(
    readonly sandbox: Sandbox,
    options: AciSessionOptions,
  ) {
    this.tools = options.tools;
    this.config = { ...DEFAULT_ACI_CONFIG, ...options.config };
    this.present = options.present;
    this.state = { workingDir: sandbox.repoPath, families: {} };
    if (this.tools.recordsDiff) this.diff = '';
  }

  stepState(): AciStepState {
    const state: AciStepState = { open_file: this.tools.openFile(this.state), working_dir: this.state.workingDir };
    return this.diff === undefined ? state : { ...state, diff: this.diff };
  }

  /** A copy of the tools' state after the last call (`restoreToolState` puts it back). */
  toolState(): AciToolState {
    const state = { ...this.state, families: structuredClone(this.state.families) };
    return this.diff === undefined ? { state } : { state, diff: this.diff };
  }

  /**
   * Puts back a state from `toolState` (of this session or another one on the same workspace) and
   * moves the shell into its working directory. The shell's variables and functions are not part of it.
   */
  async restoreToolState(saved: AciToolState, signal?: AbortSignal): Promise<void> {
    const { state } = saved;
    await this.queue;
    Object.assign(this.state, state, { families: structuredClone(state.families) });
    if (this.diff !== undefined) this.diff = saved.diff ?? '';
    const cd = await this.sandbox.exec(`cd -- ${shellQuote(state.workingDir)}`, { timeoutMs: 10_000, ...(signal ? { signal } : {}) });
    if (cd.exitCode !== 0) throw new Error(`cannot enter the restored working directory ${state.workingDir}: ${cd.output.trim()}`);
  }

  /** Shuts down the sandbox's Pyright server and warm Python servers (flake8, R2E-Gym's tools), if the tools started them; the sandbox stays. */
  async stopServers(): Promise<void> {
    await Promise.all([disposePyright(this.sandbox), disposeWarmServers(this.sandbox)]);
  }

  /** Shuts down the sandbox's Pyright server and warm Python servers, if the tools started them, then removes the sandbox. */
  async dispose(): Promise<void> {
    try {
      await this.stopServers();
    } finally {
      await this.sandbox.dispose();
    }
  }

  /** Runs an action written as the agent wrote it in SWE-agent command syntax. */
  runCommand(text: string, signal?: AbortSignal): Promise<AciStepResult> {
    const parsed = this.tools.parseCommand(text);
    return 'error' in parsed ? Promise.resolve(this.formatError(parsed.error)) : this.run(parsed, signal);
  }

  /** Runs a named tool with arguments from outside (a function call, a JSON line): validated first. */
  runTool(name: string, args: string | Record<string, unknown>, signal?: AbortSignal): Promise<AciStepResult> {
    const parsed = this.tools.parseFunctionCall(name, args);
    return 'error' in parsed ? Promise.resolve(this.formatError(parsed.error)) : this.run(parsed, signal);
  }

  /** Runs an action (a recorded one, or one from the tool set's parsers); its arguments are checked against the tool's schema. */
  run(action: ParsedAction, signal?: AbortSignal): Promise<AciStepResult> {
    const next = this.queue.then(() => this.runNow(action, signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Ends a step whose calls have run: the observation the tools make once for the whole step, for
   * families that make one (core/scaffolds/terminus-2), else undefined.
   */
  endStep(signal?: AbortSignal, feedback?: string): Promise<AciStepResult | undefined> {
    const next = this.queue.then(async (): Promise<AciStepResult | undefined> => {
      throwIfAborted(signal);
      const ctx: ToolContext = { sandbox: this.sandbox, state: this.state, config: this.config, ...(signal ? { signal } : {}) };
      const result = await this.tools.endStep(ctx, feedback);
      if (!result) return undefined;
      return {
        observation: this.present ? this.present(result) : this.tools.present(result, '', this.config),
        exitCode: result.exitCode,
        state: this.stepState(),
        ...(result.submission !== undefined ? { submission: result.submission } : {}),
      };
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async runNow(action: ParsedAction, signal: AbortSignal | undefined): Promise<AciStepResult> {
    throwIfAborted(signal);
    const tool = this.tools.get(action.tool);
    if (!tool) return this.formatError(`Command '${action.tool}' not found in list of available commands.`);
    const checked = validateArguments(tool, action.args);
    if ('error' in checked) return this.formatError(checked.error);
    const ctx: ToolContext = { sandbox: this.sandbox, state: this.state, config: this.config, ...(signal ? { signal } : {}) };
    const result = await tool.run(ctx, checked.args);
    if (this.diff !== undefined) {
      // SWE-agent's diff_state stores `git diff --cached` after `git add -A`, stripped.
      const staged = await currentPatch(ctx);
      this.diff = 'patch' in staged ? staged.patch.trim() : '';
    }
    return {
      observation: this.present ? this.present(result) : this.tools.present(result, tool.name, this.config),
      exitCode: result.exitCode,
      state: this.stepState(),
      ...(result.submission !== undefined ? { submission: result.submission } : {}),
    };
  }

  private formatError(message: string): AciStepResult {
    return { observation: message, exitCode: FORMAT_ERROR_EXIT_CODE, state: this.stepState(), formatError: message };
  }
}
