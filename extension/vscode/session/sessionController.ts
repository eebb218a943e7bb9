import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorText } from '../../core/errors';
import { PersonSource, typedAction, type ActionSource, type NextAction } from '../../core/session/actionSources';
import { editedFile, type Breakpoint } from '../../core/session/breakpoints';
import type { DebugSession, SessionEvent, StepComparison, Stop } from '../../core/session/debugSession';
import { SnapshotKeeper } from '../../core/session/forkSnapshots';
import { launch as launchSession, type ForkStart, type LiveSource } from '../../core/session/launcher';
import { LiveTrajectoryFile, removeStaleSessionFolders, sessionFolderName, writeTrajectoryFile } from '../../core/session/trajectoryRecorder';
import { PolicyClient } from '../../core/policy/policyClient';
import type { AciSession } from '../../core/aci/aciSession';
import type { Step, Trajectory } from '../../core/trajectory/model';
import { launchRequest, type SessionLaunch } from './sessionLaunch';
import { describeChoice } from '../../core/scaffolds/registry';
import { nextActionHint, withoutHint } from '../../core/session/nextActionHint';
import { Disposable } from '../dispose';
import { readApiKey, readSettings, sandboxSettings } from '../settings';
import type { ContainerFileSystem } from '../container/containerFileSystem';
import { containerUri } from '../container/containerFileSystem';
import { lintProblems } from '../container/lintDiagnostics';
import { startContainerLanguageClient } from '../container/containerLanguageClient';

/** The label `swe-workbench.role` of the containers sessions started from VS Code. */
const SESSION_ROLE = 'vscode-session';

/** `finished`: the episode is over (submitted, out of actions or steps) and nothing is left to run; its container stays until Stop or the next session. */
export type SandboxState = 'starting' | 'ready' | 'running' | 'paused' | 'finished' | 'stopped';

/** How a finished episode ended, in the words of the view and the status bar. */
const FINISHED_TEXT: Partial<Record<Stop['reason'], string>> = {
  submitted: 'submitted',
  exhausted: 'out of actions',
  'max-steps': 'step limit reached',
  cancelled: 'cancelled',
};

export interface StepEntry {
  step: Step;
  comparison?: StepComparison;
  /** A fork's step restored from a snapshot with the workspace, not run again. */
  restored?: true;
}

export interface PolicyState {
  model?: string;
  reachable: boolean;
  message?: string;
}

/** One replay or run: the debug session, its container, and what the views show of it. */
export class RunningSession {
  state: SandboxState = 'ready';
  /** The step running now, or next. */
  index = 0;
  readonly entries: StepEntry[] = [];
  lastStop: Stop | undefined;
  trajectory: Trajectory | undefined;
  /** What the session waits for while running with nothing to run: a policy's reply or a person's action. */
  asking: ActionSource['kind'] | undefined;
  /** The trajectory so far, on disk for the stepper, rewritten after every step and at the end. */
  readonly trajectoryFile: LiveTrajectoryFile;

  constructor(
    /** The folder this session's trajectory file goes in. */
    folder: string,
    readonly launch: SessionLaunch,
    readonly aci: AciSession,
    readonly debug: DebugSession,
    readonly person: PersonSource | undefined,
    /** The scaffold the session runs, as `name@version`. */
    readonly scaffold: string,
    /** A fork: the snapshot it restored, if any, and the steps it replays. */
    readonly fork?: ForkStart,
  ) {
    // A fork restored from a snapshot starts after the steps it restored.
    for (const step of debug.steps) this.entries.push({ step, restored: true });
    this.index = debug.steps.length;
    this.trajectoryFile = new LiveTrajectoryFile(path.join(folder, `${this.title.replace(/[^\w.@ -]+/g, '-')}.json`));
  }

  get trajectoryUri(): vscode.Uri {
    return vscode.Uri.file(this.trajectoryFile.file);
  }

  private get name(): string | undefined {
    return this.launch.recording ? this.launch.recording.uri.path.split('/').at(-1) : this.launch.image;
  }

  get title(): string {
    const name = this.name;
    const at = this.launch.at ?? 0;
    // A fork of no recorded step is a live run of the recording's task (Run Live on a recording).
    if (this.launch.mode === 'fork') return at > 0 ? `fork of ${name} after step ${at}` : `live run of ${name}'s task`;
    return `${this.launch.mode} ${name}`;
  }

  /** The session can still run steps or take actions: not finished, not stopped. */
  get inProgress(): boolean {
    return this.state !== 'finished' && this.state !== 'stopped';
  }

  get stateText(): string {
    switch (this.state) {
      case 'finished':
        return `finished (${(this.lastStop && FINISHED_TEXT[this.lastStop.reason]) ?? 'over'})`;
      case 'running':
        return this.asking === 'person' ? `waiting for your action for step ${this.index + 1}` : `running step ${this.index + 1}`;
      case 'paused':
        return `paused before step ${this.index + 1}${this.lastStop && this.lastStop.reason !== 'step' ? ` (${this.lastStop.reason})` : ''}`;
      default:
        return this.state;
    }
  }

  /** What the session is doing while it runs, as its progress notification says it: "replaying run.traj". */
  get doing(): string {
    switch (this.launch.mode) {
      case 'replay':
        return `replaying ${this.name}`;
      case 'fork':
        return (this.launch.at ?? 0) > 0 ? `running the fork of ${this.name}` : `running live on ${this.name}'s task`;
      case 'live':
        return `running live in ${this.launch.image}`;
    }
  }
}

/**
 * Starts and controls the one debug session of the window, and keeps the container's files,
 * the language client and the lint problems in step with it. The views listen to `onDidChange`.
 */
export class SessionController extends Disposable {
  private session: RunningSession | undefined;
  /** The image of a container being started, for the status bar. */
  starting: string | undefined;
  private teardown: (() => Promise<void>)[] = [];
  private readonly changed = this._register(new vscode.EventEmitter<RunningSession | undefined>());
  readonly onDidChange = this.changed.event;
  private readonly policyChanged = this._register(new vscode.EventEmitter<PolicyState>());
  readonly onDidChangePolicy = this.policyChanged.event;
  private readonly askedPerson = this._register(new vscode.EventEmitter<RunningSession>());
  /** The session waits for the person's next action (the next-action document opens). */
  readonly onDidAskPerson = this.askedPerson.event;
  private readonly wrote = this._register(new vscode.EventEmitter<{ uri: vscode.Uri; stepCount: number }>());
  /** The session's trajectory file was written with `stepCount` steps (a stepper showing it reads it again). */
  readonly onDidWriteTrajectory = this.wrote.event;
  private readonly lint = this._register(vscode.languages.createDiagnosticCollection('swe-workbench-lint'));
  private languageClient: Promise<{ stop(): Promise<void> } | undefined> | undefined;
  /**
   * The snapshots of the sessions this controller stopped, in their containers, so that a fork
   * (which stops the running session first) restores instead of replaying; released by `shutdown`.
   */
  private readonly keeper = new SnapshotKeeper();

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: vscode.LogOutputChannel,
    private readonly files: ContainerFileSystem,
    /** Where each session's trajectory file goes, in a folder of its own. */
    private readonly sessionsFolder: string,
  ) {
    super();
    this._register(vscode.workspace.onDidOpenTextDocument((doc) => this.maybeStartLanguageClient(doc)));
  }

  get current(): RunningSession | undefined {
    return this.session;
  }

  /** Starts a container and a session in it; a session already running is stopped first. */
  async start(launch: SessionLaunch, token?: vscode.CancellationToken): Promise<RunningSession> {
    if (!vscode.workspace.isTrusted) throw new Error('replays and live runs start containers, so they need a trusted workspace');
    await this.stop();
    const request = launchRequest(launch);
    const abort = new AbortController();
    const cancel = token?.onCancellationRequested(() => abort.abort());
    try {
      const sandbox = sandboxSettings(readSettings());
      const started = await launchSession(request, {
        role: SESSION_ROLE,
        signal: abort.signal,
        snapshots: { keeper: this.keeper },
        // Asked once the request is planned (a bad recording fails before any question), then the views say "starting".
        live: async () => {
          const live = launch.mode === 'replay' ? undefined : await this.liveSource(launch, abort.signal);
          this.setStarting(launch);
          return live;
        },
        onSettled: (plan) => this.log.info(describeChoice(plan.scaffoldChoice)),
        ...sandbox,
      });
      const { plan } = started;
      const scaffold = `${plan.scaffoldChoice.name}@${plan.scaffoldChoice.version}`;
      const folder = path.join(this.sessionsFolder, sessionFolderName());
      const session = new RunningSession(folder, launch, started.aci, started.debug, started.person, scaffold, started.fork);
      started.debug.on((event) => this.onEvent(session, event));
      this.writeTrajectory(session);
      this.session = session;
      const registration = this.files.add(started.aci.sandbox);
      this.teardown = [async () => registration.dispose()];
      this.log.info(
        `${session.title}: container ${started.aci.sandbox.id.slice(0, 12)} of ${launch.image} ready, ${launch.repoDir} at ${plan.container.repoPath}`,
      );
      if (started.fork) this.log.info(`${session.title}: ${started.fork.note}`);
      this.changed.fire(session);
      return session;
    } catch (error) {
      // Cleared before the views hear of it: the status bar never stays on "starting" after a failure.
      this.discard(this.session);
      this.session = undefined;
      this.starting = undefined;
      this.changed.fire(undefined);
      throw error;
    } finally {
      this.starting = undefined;
      cancel?.dispose();
    }
  }

  step(): Promise<Stop> {
    return this.drive('one step', (d) => d.step());
  }

  continue(): Promise<Stop> {
    return this.drive('', (d) => d.continue());
  }

  /** Runs until step `index` (0-based) is next. */
  runTo(index: number): Promise<Stop> {
    return this.drive(`up to step ${index + 1}`, (d) => d.runTo(index));
  }

  pause(): void {
    this.requireInProgress().debug.pause();
  }

  addBreakpoint(breakpoint: Breakpoint): void {
    this.requireInProgress().debug.breakpoints.push(breakpoint);
    this.changed.fire(this.session);
  }

  removeBreakpoint(index: number): void {
    this.requireInProgress().debug.breakpoints.splice(index, 1);
    this.changed.fire(this.session);
  }

  /** The next action's text as it would run, asking a recording or policy if needed; empty when the person gives it (never waits for the person). */
  async nextActionText(): Promise<string> {
    const session = this.requireInProgress();
    if (session.asking === 'person') return '';
    if (session.state === 'running') throw new Error('the session is running: pause it first');
    return (await session.debug.peekNext({ askPerson: false }))?.action.raw ?? '';
  }

  /** The next-action document's text: the syntax hint for the next step, then the action (empty when the person gives it). */
  async nextActionDocument(): Promise<string> {
    const session = this.requireInProgress();
    const text = await this.nextActionText();
    return `${nextActionHint(session.index, session.scaffold, session.aci.tools)}\n${text}`;
  }

  /** Whether a session is there to take an action (running or paused). */
  get acceptsActions(): boolean {
    return !!this.session?.inProgress;
  }

  /**
   * Runs `text` (the hint line dropped) as the next step: given to the session when it waits for
   * the person, else replacing the next action while paused and running it; a hand-driven
   * session then waits for the person again. Returns once the action is handed over, not run.
   */
  async editNext(text: string): Promise<NextAction | undefined> {
    const session = this.requireInProgress();
    const action = withoutHint(text);
    if (!action.trim()) throw new Error('the document holds no action: type one below the first line');
    const unreadable = typedAction(action, session.aci.tools).formatError;
    if (unreadable !== undefined) throw new Error(`the tools cannot read this action: ${unreadable}`);
    if (session.asking === 'person' && session.person) {
      session.person.type(action);
      return undefined;
    }
    if (session.state === 'running') throw new Error('the session is running: pause it before giving the next action');
    const next = await session.debug.editNext(action);
    this.log.info(`step ${session.index + 1}: next action ${next.flags?.includes('edited') ? 'edited to' : 'typed:'} ${JSON.stringify(action)}`);
    const byHand = session.debug.nextSource === 'person' && session.person !== undefined;
    // Not awaited: the save returns while the step runs. A hand-driven session then asks for the next action.
    (byHand ? this.continue() : this.step()).catch((error: unknown) => {
      this.log.error('the typed action could not run', error);
      void vscode.window.showErrorMessage(`SWE Workbench: ${errorText(error)}`);
    });
    return next;
  }

  /** Ends the session: the sandbox is removed, the recorded trajectory kept for saving. */
  async stop(): Promise<Trajectory | undefined> {
    const session = this.session;
    if (!session) return undefined;
    if (session.state !== 'stopped') {
      session.person?.end();
      const [teardown, client] = [this.teardown.splice(0), this.languageClient];
      this.languageClient = undefined;
      await (await client?.catch(() => undefined))?.stop();
      session.trajectory = await session.debug.finish();
      for (const step of teardown) await step();
      session.state = 'stopped';
      this.lint.clear();
      if (session.trajectory.outcome.error) this.log.warn(`${session.title}: ${session.trajectory.outcome.error}`);
      this.log.info(`${session.title}: stopped after ${session.trajectory.steps.length} steps (${session.trajectory.outcome.exitStatus ?? 'stopped'})`);
      if (this.keeper.sandboxIds.includes(session.aci.sandbox.id))
        this.log.info(`${session.title}: its container stays, holding the snapshots a fork of these steps restores, until newer sessions' replace them`);
      this.changed.fire(session);
    }
    return session.trajectory;
  }

  /** Writes the recorded trajectory (stopping the session first): `.traj` as SWE-agent's format, else canonical JSON. */
  async save(target: vscode.Uri): Promise<void> {
    const trajectory = (await this.stop()) ?? this.session?.trajectory;
    if (!trajectory) throw new Error('no session has run yet');
    await writeTrajectoryFile(target.fsPath, trajectory);
  }

  /** Removes the stopped sessions' snapshots with their containers (a later fork of their steps replays); returns how many containers went. */
  async releaseSnapshots(): Promise<number> {
    const count = this.keeper.sandboxIds.length;
    await this.keeper.clear();
    this.log.info(`removed the snapshots of ${count} stopped session${count === 1 ? '' : 's'} with their containers`);
    return count;
  }

  /** Stops the session and removes its trajectory file and the stopped sessions' snapshots with their containers (at deactivation). */
  async shutdown(): Promise<void> {
    try {
      await this.stop();
    } finally {
      const session = this.session;
      this.session = undefined;
      await Promise.all([this.keeper.dispose(), session?.trajectoryFile.remove()]);
    }
  }

  /**
   * Deletes the trajectory files that sessions of ended windows left in the sessions folder (a
   * window that closed without deactivating, or crashed); those of windows still open stay.
   */
  async removeStaleTrajectories(): Promise<void> {
    const removed = await removeStaleSessionFolders(this.sessionsFolder);
    if (removed.length > 0) this.log.info(`removed the trajectory files of ${removed.length} earlier session${removed.length === 1 ? '' : 's'}`);
  }

  /** A session the window no longer shows (replaced by the next one): its trajectory file goes. */
  private discard(session: RunningSession | undefined): void {
    session?.trajectoryFile
      .remove()
      .catch((error: unknown) => this.log.warn(`${session.title}: could not delete its trajectory file ${session.trajectoryFile.file}: ${errorText(error)}`));
  }

  override dispose(): void {
    void this.shutdown().catch((error: unknown) => this.log.error('could not stop the session', error));
    super.dispose();
  }

  /** The session, when it can still run: a finished one says how it ended and what is left to do. */
  private requireInProgress(): RunningSession {
    const session = this.session;
    if (!session || session.state === 'stopped') throw new Error('no session is running: replay a trajectory or start a live run first');
    if (session.state === 'finished')
      throw new Error(`the session has ${session.stateText}: nothing is left to run (replay or fork again; Stop removes its container)`);
    return session;
  }

  private setStarting(launch: SessionLaunch): void {
    this.discard(this.session);
    this.session = undefined;
    this.starting = launch.image;
    this.changed.fire(undefined);
    this.log.info(`starting a container of ${launch.image} for a ${launch.mode}`);
  }

  /** Runs the session; the progress reads "SWE Workbench: replaying run.traj, one step" and each step "step 3: bash". */
  private async drive(how: string, run: (debug: DebugSession) => Promise<Stop>): Promise<Stop> {
    const session = this.requireInProgress();
    if (session.state === 'running') throw new Error('the session is already running');
    session.state = 'running';
    this.changed.fire(session);
    // A hand-driven session spends its run waiting for the person: its progress goes to the status
    // bar, not a notification left spinning over the editor they type in (Pause and Stop remain).
    // That holds from its first drive, which replays the recorded steps before the fork and then
    // waits for the person under the same progress.
    const byHand = session.person !== undefined && session.launch.then === 'person';
    return vscode.window.withProgress(
      {
        location: byHand ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification,
        title: `SWE Workbench: ${session.doing}${how ? `, ${how}` : ''}`,
        cancellable: !byHand,
      },
      async (progress, token) => {
        const cancel = token.onCancellationRequested(() => session.debug.pause());
        const listener = session.debug.on((event) => {
          if (event.type === 'step-started') progress.report({ message: `step ${event.index + 1}: ${event.next.action.tool ?? 'unparsed action'}` });
          else if (event.type === 'asking' && event.source === 'person') progress.report({ message: `waiting for your action for step ${event.index + 1}` });
        });
        try {
          const stop = await run(session.debug);
          session.lastStop = stop;
          session.index = stop.index;
          // An episode that is over is finished, not paused: nothing is left to step or continue.
          session.state = stop.done ? 'finished' : 'paused';
          if (stop.error) void vscode.window.showErrorMessage(`SWE Workbench: step ${stop.index + 1} failed: ${stop.error}`);
          return stop;
        } finally {
          session.asking = undefined;
          if (session.state === 'running') session.state = 'paused';
          cancel.dispose();
          listener();
          this.changed.fire(session);
        }
      },
    );
  }

  private onEvent(session: RunningSession, event: SessionEvent): void {
    switch (event.type) {
      case 'asking':
        session.asking = event.source;
        session.index = event.index;
        if (event.source === 'person') {
          this.changed.fire(session);
          this.askedPerson.fire(session);
          return;
        }
        break;
      case 'step-started':
        session.asking = undefined;
        session.index = event.index;
        this.log.info(`step ${event.index + 1} (${event.source}): ${event.next.action.raw.split('\n')[0] ?? ''}`);
        break;
      case 'step-done':
        session.entries.push({ step: event.step, ...(event.comparison ? { comparison: event.comparison } : {}) });
        session.index = event.step.index + 1;
        this.afterStep(session, event.step);
        this.writeTrajectory(session);
        break;
      case 'divergence':
        this.log.warn(`step ${event.index + 1} diverged from the recording:\n${event.diff}`);
        break;
      case 'error':
        this.log.error(`step ${event.index + 1}: ${event.message}`);
        break;
      case 'paused':
        this.log.info(`paused before step ${event.index + 1}: ${event.message}`);
        break;
      case 'finished':
        this.writeTrajectory(session);
        break;
    }
    this.changed.fire(session);
  }

  /** Writes the session's trajectory so far to its file (in order, one write after another), then tells the steppers. */
  private writeTrajectory(session: RunningSession): void {
    const trajectory = session.debug.trajectorySoFar;
    session.trajectoryFile.write(trajectory).then(
      () => this.wrote.fire({ uri: session.trajectoryUri, stepCount: trajectory.steps.length }),
      (error: unknown) => this.log.warn(`${session.title}: could not write its trajectory to ${session.trajectoryFile.file}: ${errorText(error)}`),
    );
  }

  /** The agent may have changed any file: editors reload, and a rejected edit's lint shows as problems. */
  private afterStep(session: RunningSession, step: Step): void {
    const sandbox = session.aci.sandbox;
    const previous = session.entries.at(-2)?.step.state?.openFile;
    const edited = editedFile({ thought: step.thought, action: step.action }, previous ?? step.state?.openFile);
    const touched = [step.state?.openFile, edited]
      .filter((p): p is string => typeof p === 'string')
      .map((p) => (p.startsWith('/') ? p : `${sandbox.repoPath}/${p}`));
    this.files.changed(sandbox, touched);
    const problems = lintProblems(step, touched.at(-1));
    if (problems) this.lint.set(containerUri(sandbox, problems.file), problems.diagnostics);
  }

  private maybeStartLanguageClient(document: vscode.TextDocument): void {
    const session = this.session;
    if (!session || session.state === 'stopped' || document.languageId !== 'python') return;
    if (document.uri.toString() !== containerUri(session.aci.sandbox, document.uri.path).toString() || this.languageClient) return;
    this.languageClient = startContainerLanguageClient(session.aci.sandbox, this.log).catch((error: unknown) => {
      this.log.error('Pyright could not start in the container', error);
      void vscode.window.showWarningMessage(`SWE Workbench: go to definition is unavailable in the container: ${errorText(error)}`);
      return undefined;
    });
  }

  /** Who gives the actions after the recording's: the person, or the configured policy (connected here, its state shown). */
  private async liveSource(launch: SessionLaunch, signal: AbortSignal): Promise<LiveSource> {
    if (launch.mode === 'fork' && launch.then === 'person') return { kind: 'person' };
    const settings = readSettings();
    const apiKey = await readApiKey(this.secrets);
    let client: PolicyClient;
    try {
      client = await PolicyClient.connect(
        {
          baseUrl: settings.policy.url,
          ...(settings.policy.model ? { model: settings.policy.model } : {}),
          ...(apiKey ? { apiKey } : {}),
          logprobs: true,
          topLogprobs: 5,
          // The ids the engine saw and sampled, for the token view and re-scoring (`run --token-ids`).
          ...(settings.policy.tokenIds ? { returnTokenIds: true } : {}),
        },
        signal,
      );
    } catch (error) {
      const message = errorText(error);
      this.policyChanged.fire({ reachable: false, message });
      throw new Error(`the policy server at ${settings.policy.url} cannot be used: ${message}`);
    }
    this.policyChanged.fire({ model: client.model, reachable: true });
    return { kind: 'policy', client, onRetry: (r) => this.log.warn(`policy: attempt ${r.attempt} failed (${r.reason}); retrying in ${r.delayMs} ms`) };
  }
}
