/**
 * The debugger: runs an agent loop in a sandbox, one action at a time, taking each action from a
 * source (a recording, a policy, a person), comparing replayed observations with the recording,
 * stopping at breakpoints, and recording a new trajectory. No VS Code here: views listen to the
 * events and call the controls.
 */
import { CancelledError, errorText } from '../errors';
import type { Outcome, Step, Task, Trajectory, TrajectoryMeta } from '../trajectory/model';
import type { AciSession } from '../aci/aciSession';
import { shellQuote } from '../parsing/shellWords';
import { typedAction, type ActionSource, type NextAction, type TypedCall } from './actionSources';
import { breakAfter, breakBefore, describeBreakpoint, observationFlags, type Breakpoint } from './breakpoints';
import type { Normaliser } from '../scaffolds/scaffold';
import { compareObservations, DEFAULT_NORMALISERS } from './divergence';
import type { SessionSnapshots, SnapshotKeeper } from './forkSnapshots';
import { TrajectoryRecorder } from './trajectoryRecorder';
import { joinObservations } from '../trajectory/chatSteps';

export type StopReason = 'step' | 'run-to' | 'breakpoint' | 'paused' | 'submitted' | 'exhausted' | 'max-steps' | 'error' | 'cancelled';

/** Reasons after which the episode is over: only `finish` is left to do. */
const FINAL_REASONS = new Set<StopReason>(['submitted', 'exhausted', 'max-steps', 'cancelled']);

export interface StepComparison {
  index: number;
  matched: boolean;
  diff: string;
  /** The normalisers the comparison applied (what it was ready to forgive). */
  normalisers: readonly Normaliser[];
}

export type SessionEvent =
  /** A source is asked for the action of step `index` (a policy may take a while). */
  | { type: 'asking'; index: number; source: ActionSource['kind'] }
  | { type: 'step-started'; index: number; next: NextAction; source: ActionSource['kind'] }
  | { type: 'step-done'; step: Step; comparison?: StepComparison }
  | { type: 'divergence'; index: number; diff: string }
  | { type: 'paused'; index: number; reason: StopReason; breakpoint?: Breakpoint; message: string }
  | { type: 'error'; index: number; message: string }
  | { type: 'finished'; trajectory: Trajectory; reason: string };

export interface Stop {
  reason: StopReason;
  /** Index of the next step to run. */
  index: number;
  breakpoint?: Breakpoint;
  error?: string;
  /** The episode is over (submitted, out of actions or steps, cancelled). */
  done: boolean;
}

export interface SessionOptions {
  /** The agent's tools bound to the sandbox the session runs in; the session disposes them (Pyright, then the sandbox). */
  aci: AciSession;
  /** The sources in turn: when one has no more actions, the next takes over (a fork: recording, then policy). */
  sources: ActionSource[];
  task: Task;
  meta?: TrajectoryMeta;
  breakpoints?: Breakpoint[];
  normalisers?: readonly Normaliser[];
  maxSteps?: number;
  /** Run in the sandbox at `finish` (e.g. the task's tests); its output goes into the outcome. */
  testCommand?: string;
  signal?: AbortSignal;
  /** Steps already done in the sandbox (a fork restored from a snapshot): the session goes on after them. */
  history?: readonly Step[];
  /** Takes a snapshot after every step, for forks (core/session/forkSnapshots); disposed at `finish`, unless `keeper` keeps them. */
  snapshots?: SessionSnapshots;
  /** Keeps `snapshots` and the sandbox holding them past `finish`, for forks started after this session ends. */
  keeper?: SnapshotKeeper;
}

export class DebugSession {
  readonly breakpoints: Breakpoint[];
  readonly comparisons: StepComparison[] = [];
  private readonly recorder: TrajectoryRecorder;
  private readonly listeners = new Set<(event: SessionEvent) => void>();
  private readonly sources: ActionSource[];
  private pending: { next: NextAction; source: ActionSource['kind'] } | undefined;
  /** A before-breakpoint that stopped at this index has been honoured; running on passes it. */
  private released: number | undefined;
  private pauseRequested = false;
  private running: Promise<Stop> | undefined;
  private readonly cancelling = new AbortController();
  /** The caller's signal, or `cancel()`: either stops the session. */
  private readonly signal: AbortSignal;
  private submission: string | undefined;
  private lastStop: Stop | undefined;
  private lastError: string | undefined;
  private finished: Trajectory | undefined;

  constructor(private readonly options: SessionOptions) {
    this.breakpoints = [...(options.breakpoints ?? [])];
    this.sources = [...options.sources];
    this.recorder = new TrajectoryRecorder(options.task, options.meta);
    for (const step of options.history ?? []) this.recorder.append(step);
    this.signal = options.signal ? AbortSignal.any([options.signal, this.cancelling.signal]) : this.cancelling.signal;
  }

  on(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get steps(): readonly Step[] {
    return this.recorder.steps;
  }

  get firstDivergence(): StepComparison | undefined {
    return this.comparisons.find((c) => !c.matched);
  }

  /** The trajectory recorded so far: the finished one with its outcome, else the steps run (the outcome not known yet). */
  get trajectorySoFar(): Trajectory {
    if (this.finished) return this.finished;
    // An episode that is over while its sandbox is kept (for forks, until the session is stopped)
    // already knows how it ended and what it submitted: a viewer must not read "not graded" alone.
    const over = this.lastStop?.done === true || this.submission !== undefined;
    return this.recorder.trajectory(over ? { exitStatus: this.exitStatus(), ...(this.submission !== undefined ? { submission: this.submission } : {}) } : {});
  }

  get isFinished(): boolean {
    return this.finished !== undefined;
  }

  /**
   * The action the next step will run, asking its source for it if needed (while stopped). With
   * `askPerson: false` a person is never waited for: undefined when the person gives the next action.
   */
  async peekNext(options: { askPerson?: boolean } = {}): Promise<NextAction | undefined> {
    if (this.running) return this.pending?.next;
    return (await this.pendingAction(options.askPerson ?? true))?.next;
  }

  /** Who gives the next action: the source of the one waiting, else the source asked next. */
  get nextSource(): ActionSource['kind'] | undefined {
    return this.pending?.source ?? this.sources[0]?.kind;
  }

  /**
   * Replaces the next action with one typed as command text or given as a tool call. When the
   * person gives the next action, the typed one becomes it (never waiting for the person, who
   * is the one typing); one that replaces a recorded or a policy's action is flagged `edited`.
   */
  async editNext(input: string | TypedCall): Promise<NextAction> {
    if (this.running) throw new Error('the session is running: pause it before editing the next action');
    const current = await this.pendingAction(false);
    const edited = typedAction(input, this.options.aci.tools, current?.next.thought ?? '');
    const next: NextAction = current ? { ...current.next, ...edited, flags: [...(current.next.flags ?? []), 'edited'] } : edited;
    if (edited.formatError === undefined) {
      delete next.formatError;
      delete next.errorMessage;
    }
    this.pending = { next, source: current?.source ?? 'person' };
    return next;
  }

  /** Drops the next action and asks its source again (e.g. after a policy's reply stream broke). */
  async regenerateNext(): Promise<NextAction | undefined> {
    if (this.running) throw new Error('the session is running');
    this.pending = undefined;
    this.released = undefined;
    return this.peekNext();
  }

  /** Sources to use once the current ones run out (e.g. continue live after a replay). */
  addSource(source: ActionSource): void {
    this.sources.push(source);
  }

  /** Stops the session now, the step in progress included; only `finish` is left to do. */
  cancel(): void {
    this.cancelling.abort();
  }

  /** Asks a running session to stop after the step in progress. */
  pause(): void {
    if (this.running) this.pauseRequested = true;
  }

  step(): Promise<Stop> {
    return this.advance(this.steps.length + 1, 'step');
  }

  continue(): Promise<Stop> {
    return this.advance(Number.POSITIVE_INFINITY, 'exhausted');
  }

  /** Runs until step `index` is next (steps 0..index-1 done), or something stops it first. */
  runTo(index: number): Promise<Stop> {
    return this.advance(index, 'run-to');
  }

  /**
   * Ends the session: runs the test command if any, writes the outcome, disposes the sandbox
   * (always, whatever happened) and returns the recorded trajectory.
   */
  async finish(): Promise<Trajectory> {
    if (this.finished) return this.finished;
    if (this.running) {
      this.cancel();
      this.lastStop = await this.running;
    }
    const sandbox = this.options.aci.sandbox;
    const outcome: Outcome = { exitStatus: this.exitStatus() };
    try {
      outcome.submission = this.submission ?? (await this.currentPatch());
      if (this.options.testCommand && !this.signal.aborted) {
        const result = await sandbox.exec(this.options.testCommand, { cwd: sandbox.repoPath, signal: this.signal });
        outcome.testOutput = result.output;
        outcome.resolved = result.exitCode === 0 && !result.timedOut;
      }
    } catch (err) {
      outcome.error = errorText(err);
    }
    const { snapshots, keeper, aci } = this.options;
    // Kept: the sandbox stays (its tool servers stop), holding the snapshots, until the keeper lets them go.
    const kept = snapshots && keeper ? await keeper.keep(snapshots, () => aci.dispose()) : false;
    if (!kept) await snapshots?.dispose();
    try {
      await (kept ? aci.stopServers() : aci.dispose());
    } catch (err) {
      outcome.error ??= `could not remove the sandbox ${sandbox.id}: ${errorText(err)}`;
    }
    if (this.lastError && !outcome.error) outcome.error = this.lastError;
    this.finished = this.recorder.trajectory(outcome);
    this.emit({ type: 'finished', trajectory: this.finished, reason: outcome.exitStatus ?? 'finished' });
    return this.finished;
  }

  private exitStatus(): string {
    if (this.submission !== undefined) return 'submitted';
    const reason = this.lastStop?.reason;
    if (reason === 'max-steps') return 'exit_step_limit';
    if (reason === 'cancelled') return 'exit_cancelled';
    if (reason === 'error') return 'exit_error';
    if (reason === 'exhausted') return 'exit_no_more_actions';
    return 'stopped';
  }

  /** The patch so far, as `submit` would make it, for an episode that ended without one. */
  private async currentPatch(): Promise<string | undefined> {
    const { sandbox, config } = this.options.aci;
    const base = config.baseCommit ? ` ${shellQuote(config.baseCommit)}` : '';
    const result = await sandbox.exec(`git add -A && git --no-pager diff --no-color --cached${base}`, { cwd: sandbox.repoPath });
    return result.exitCode === 0 ? result.output : undefined;
  }

  private emit(event: SessionEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /** The next action, asking the sources in turn; without `askPerson`, undefined when the person is the one to ask. */
  private async pendingAction(askPerson = true): Promise<{ next: NextAction; source: ActionSource['kind'] } | undefined> {
    while (!this.pending && this.sources.length > 0) {
      const source = this.sources[0]!;
      if (!askPerson && source.kind === 'person') return undefined;
      this.emit({ type: 'asking', index: this.steps.length, source: source.kind });
      const next = await source.next(this.steps, this.signal);
      if (next) this.pending = { next, source: source.kind };
      else this.sources.shift();
    }
    return this.pending;
  }

  private async advance(target: number, reachedReason: StopReason): Promise<Stop> {
    if (this.finished) throw new Error('the session has finished');
    if (this.running) throw new Error('the session is already running');
    this.pauseRequested = false;
    this.running = this.guardedLoop(target, reachedReason);
    try {
      this.lastStop = await this.running;
    } finally {
      this.running = undefined;
    }
    if (!this.lastStop.done) {
      const { reason, index, breakpoint } = this.lastStop;
      const message = breakpoint ? `stopped at ${describeBreakpoint(breakpoint)}` : reason === 'error' ? (this.lastStop.error ?? 'error') : reason;
      this.emit({ type: 'paused', index, reason, ...(breakpoint ? { breakpoint } : {}), message });
    }
    return this.lastStop;
  }

  /** The loop, with any failure turned into a stop: an error pauses, a cancel ends. */
  private async guardedLoop(target: number, reachedReason: StopReason): Promise<Stop> {
    try {
      return await this.loop(target, reachedReason);
    } catch (err) {
      this.pending = undefined;
      if (err instanceof CancelledError || this.signal.aborted) return this.stop('cancelled');
      this.lastError = errorText(err);
      this.emit({ type: 'error', index: this.steps.length, message: this.lastError });
      return this.stop('error', undefined, this.lastError);
    }
  }

  private stop(reason: StopReason, breakpoint?: Breakpoint, error?: string): Stop {
    return { reason, index: this.steps.length, done: FINAL_REASONS.has(reason), ...(breakpoint ? { breakpoint } : {}), ...(error ? { error } : {}) };
  }

  private async loop(target: number, reachedReason: StopReason): Promise<Stop> {
    for (;;) {
      if (this.signal.aborted) return this.stop('cancelled');
      const index = this.steps.length;
      if (index >= target) return this.stop(reachedReason);
      if (this.pauseRequested) return this.stop('paused');
      if (this.options.maxSteps !== undefined && index >= this.options.maxSteps) return this.stop('max-steps');
      const pending = await this.pendingAction();
      if (!pending) return this.stop('exhausted');
      if (this.released !== index) {
        const before = breakBefore(this.breakpoints, index, pending.next, this.steps.at(-1)?.state?.openFile);
        if (before) {
          this.released = index;
          return this.stop('breakpoint', before);
        }
      }
      this.pending = undefined;
      this.released = undefined;
      this.emit({ type: 'step-started', index, next: pending.next, source: pending.source });
      const { step, comparison } = await this.runStep(index, pending.next);
      this.recorder.append(step);
      await this.options.snapshots?.take(this.steps, this.signal);
      this.emit({ type: 'step-done', step, ...(comparison ? { comparison } : {}) });
      if (comparison && !comparison.matched) this.emit({ type: 'divergence', index, diff: comparison.diff });
      if (this.submission !== undefined) return this.stop('submitted');
      const after = breakAfter(this.breakpoints, step, comparison?.matched === false);
      if (after) return this.stop('breakpoint', after);
    }
  }

  private async runStep(index: number, next: NextAction): Promise<{ step: Step; comparison?: StepComparison }> {
    const step: Step = { index, thought: next.thought, action: next.action, observation: '', timestamp: new Date().toISOString() };
    if (next.reasoning !== undefined) step.reasoning = next.reasoning;
    if (next.tokens) step.tokens = next.tokens;
    if (next.logprobs) step.logprobs = next.logprobs;
    if (next.tokenIds) step.tokenIds = next.tokenIds;
    if (next.sampling) step.sampling = next.sampling;
    const flags = [...(next.flags ?? [])];
    if (next.runsNothing) {
      step.observation = next.recorded?.observation ?? '';
      if (flags.length > 0) step.flags = flags;
      return { step };
    }
    if (next.formatError !== undefined) {
      step.formatError = next.formatError;
      step.observation = next.errorMessage ?? next.formatError;
    } else {
      const started = performance.now();
      // A reply without a command (Terminus-2's empty batch) runs no tool; the step's end still reads the terminal.
      const executed =
        next.action.tool === null
          ? { observation: '', exitCode: 0, state: this.options.aci.stepState() }
          : await this.options.aci.run({ tool: next.action.tool, args: next.action.args }, this.signal);
      step.observation = executed.observation;
      step.exitCode = executed.exitCode;
      if (next.calls && next.calls.length > 1) {
        // A reply with several tool calls: each runs in order, as the scaffold ran them, until one submits.
        const calls = [{ action: next.calls[0]!, observation: executed.observation }];
        for (const action of next.calls.slice(1)) {
          if (executed.submission !== undefined || this.submission !== undefined) break;
          const more = await this.options.aci.run({ tool: action.tool ?? '', args: action.args }, this.signal);
          calls.push({ action, observation: more.observation });
          flags.push(...observationFlags(more.observation, more.exitCode));
          if (more.submission !== undefined) this.submission = more.submission;
        }
        step.calls = calls;
        step.observation = joinObservations(calls.map((c) => c.observation).filter((o) => o !== ''));
      }
      const ended = await this.options.aci.endStep(this.signal, next.feedback);
      if (ended) {
        step.observation = ended.observation;
        // One observation for the whole batch: it belongs to the first call, as Harbor records it.
        if (step.calls?.[0]) step.calls[0].observation = ended.observation;
        step.exitCode = ended.exitCode;
        flags.push(...observationFlags(ended.observation, ended.exitCode));
        if (ended.submission !== undefined) this.submission = ended.submission;
      }
      step.executionTime = (performance.now() - started) / 1000;
      step.state = { openFile: executed.state.open_file, workingDir: executed.state.working_dir };
      if (executed.state.diff !== undefined) step.state.diff = executed.state.diff;
      if (executed.formatError !== undefined) step.formatError = executed.formatError;
      flags.push(...observationFlags(executed.observation, executed.exitCode));
      if (executed.submission !== undefined) this.submission = executed.submission;
    }
    if (flags.length > 0) step.flags = flags;
    if (!next.recorded) return { step };
    const normalisers = this.options.normalisers ?? DEFAULT_NORMALISERS;
    const { matched, diff } = compareObservations(next.recorded.observation, step.observation, normalisers);
    // The recorded trajectory keeps the mark, so the stepper shows where a replay diverged. An
    // edited action was not the recorded one: its mark says so already.
    if (!matched && !flags.includes('edited')) step.flags = [...flags, 'diverged'];
    const comparison = { index, matched, diff, normalisers };
    this.comparisons.push(comparison);
    return { step, comparison };
  }
}
