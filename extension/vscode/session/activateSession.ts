import * as path from 'node:path';
import { tmpdir } from 'node:os';
import * as vscode from 'vscode';
import { z } from 'zod';
import { dockerFromEnv } from '../../core/runtime/dockerConnection';
import { describeBreakpoint, type Breakpoint } from '../../core/session/breakpoints';
import { replaySettings } from '../../core/session/containerSession';
import { loadTrajectory } from '../../core/trajectory/load';
import { recordOf } from '../trajectory/trajectoryDocument';
import type { Trajectory } from '../../core/trajectory/model';
import { readSettings } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { CONTAINER_SCHEME, ContainerFileSystem, containerUri } from '../container/containerFileSystem';
import { NEXT_ACTION_SCHEME, NEXT_ACTION_URI, NextActionFileSystem } from './nextActionFileSystem';
import { SessionController, type RunningSession } from './sessionController';
import type { SessionLaunch } from './sessionLaunch';
import { SESSION_VIEW, SessionTreeProvider, type SessionNode } from './sessionTree';
import { SessionStatusBar } from './sessionStatusBar';
import { revealSessionOnStart } from './replayCompareView';
import { errorText } from '../../core/errors';
import { MissingImageError, missingImageOf } from '../../core/runtime/images';
import { needsR2eImage } from '../../core/runtime/r2eImage';
import { SessionChoices } from './sessionChoices';

export interface SessionApi {
  readonly controller: SessionController;
  /** The repository and image questions, asked once and remembered (tests replace `choices.prompts`). */
  readonly choices: SessionChoices;
  readonly nextAction: NextActionFileSystem;
  /** The next-action editor is shown and ready for typing, on the step it names (0-based). */
  readonly onDidShowNextAction: vscode.Event<number>;
  /**
   * Starts `launch` as the commands do: asks before stopping a running session, and offers
   * choices when the image is missing. Undefined when the person declined.
   */
  start(launch: SessionLaunch, verb: string): Promise<RunningSession | undefined>;
  readonly tree: SessionTreeProvider;
  readonly status: SessionStatusBar;
  /** The launch the replay command would make for `uri`, without asking (tests give the image and repository). */
  launchFor(
    mode: SessionLaunch['mode'],
    uri: vscode.Uri,
    choices: { image: string; repoDir: string; at?: number; then?: 'policy' | 'person' },
  ): Promise<SessionLaunch>;
}

type Recording = { trajectory: Trajectory; uri: vscode.Uri };

async function loadRecording(uri: vscode.Uri): Promise<Recording> {
  return { trajectory: (await loadTrajectory(uri.fsPath, { record: recordOf(uri) })).trajectory, uri };
}

/** The trajectory the command acts on: its argument (editor/title passes the file), the focused stepper, or a file asked for. */
async function recordingUri(argument: unknown): Promise<vscode.Uri | undefined> {
  if (argument instanceof vscode.Uri) return argument;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom) return input.uri;
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Replay', filters: { Trajectories: ['traj', 'json', 'jsonl'] } });
  return picked?.[0];
}

async function chooseBreakpoint(session: RunningSession): Promise<Breakpoint | undefined> {
  const items: (vscode.QuickPickItem & { make: () => Promise<Breakpoint | undefined> })[] = [
    {
      label: 'At step…',
      description: 'stop before a step runs',
      make: async () => ((n) => (n === undefined ? undefined : { kind: 'step', index: n }))(await askStep('Break before step', session.index + 1)),
    },
    {
      label: 'Before a tool…',
      description: 'stop before the agent calls it',
      make: async () =>
        ((tool) => (tool ? { kind: 'tool', tool } : undefined))(
          await vscode.window.showQuickPick([...session.aci.tools.tools.keys()], { title: 'Break before the tool' }),
        ),
    },
    {
      label: 'Before an edit to a file…',
      make: async () =>
        ((p) => (p ? { kind: 'edit-file', path: p } : undefined))(
          await vscode.window.showInputBox({ title: 'Break before an edit to', prompt: 'A path in the repository, e.g. src/module.py' }),
        ),
    },
    { label: 'On a format error', description: 'an action the tools cannot read', make: async () => ({ kind: 'format-error' }) },
    { label: 'After a non-zero exit code', make: async () => ({ kind: 'exit-code' }) },
    { label: 'After a lint-rejected edit', make: async () => ({ kind: 'lint-rejected' }) },
    { label: 'After a divergence from the recording', make: async () => ({ kind: 'divergence' }) },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Add a breakpoint' });
  return picked?.make();
}

/**
 * Resolves once `document` shows `text` (the editor reloads a changed file that is not dirty by
 * itself), or once the person has typed in it, or it was closed.
 */
function reloaded(document: vscode.TextDocument, text: string): Promise<void> {
  const done = () => document.isClosed || document.isDirty || document.getText() === text;
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const listeners = [vscode.workspace.onDidChangeTextDocument, vscode.workspace.onDidCloseTextDocument].map((event) =>
      event(() => {
        if (!done()) return;
        for (const l of listeners) l.dispose();
        resolve();
      }),
    );
  });
}

/** A 1-based step number from the person, returned 0-based. */
async function askStep(title: string, suggested: number, max?: number): Promise<number | undefined> {
  const answer = await vscode.window.showInputBox({
    title,
    value: String(suggested),
    prompt: max ? `A step number from 1 to ${max}` : 'A step number (1 is the first step)',
    validateInput: (v) =>
      /^\d+$/.test(v) && Number(v) >= 1 && (!max || Number(v) <= max) ? undefined : max ? `Enter a number from 1 to ${max}` : 'Enter a step number from 1',
  });
  return answer === undefined ? undefined : Number(answer) - 1;
}

/** A step of a trajectory file, as the stepper's buttons pass it: nothing is asked about either. */
const TrajectoryStepSchema = z.object({
  trajectory: z.custom<vscode.Uri>((v) => v instanceof vscode.Uri, 'expected a vscode.Uri'),
  step: z.number().int().nonnegative(),
});

function trajectoryStepOf(argument: unknown): z.infer<typeof TrajectoryStepSchema> | undefined {
  const parsed = TrajectoryStepSchema.safeParse(argument);
  return parsed.success ? parsed.data : undefined;
}

function stepIndexOf(argument: unknown): number | undefined {
  if (typeof argument === 'number') return argument;
  const target = trajectoryStepOf(argument);
  if (target) return target.step;
  const node = argument as SessionNode | undefined;
  return node?.kind === 'step' ? node.index : undefined;
}

export function activateSession(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  trajectoryEditor: TrajectoryEditorApi,
): { disposables: vscode.Disposable[]; api: SessionApi } {
  const files = new ContainerFileSystem();
  const controller = new SessionController(context.secrets, log, files, vscode.Uri.joinPath(context.globalStorageUri, 'sessions').fsPath);
  void controller.removeStaleTrajectories().catch((error: unknown) => log.warn(`could not delete earlier sessions' trajectory files: ${errorText(error)}`));
  const tree = new SessionTreeProvider(controller);
  const status = new SessionStatusBar(controller);
  const nextAction = new NextActionFileSystem(controller);
  const choices = new SessionChoices(context.workspaceState, log);
  const nextActionShown = new vscode.EventEmitter<number>();
  const view = vscode.window.createTreeView(SESSION_VIEW, { treeDataProvider: tree, showCollapseAll: false });
  const updateContext = (session: RunningSession | undefined) => {
    void vscode.commands.executeCommand('setContext', 'sweWorkbench.sessionState', session?.state ?? 'none');
    view.message = session ? undefined : 'Replay a trajectory or start a live run.';
  };

  /** Opens the session's trajectory in the stepper on step `index` (0-based), once the steps so far are on disk. */
  const openSessionStep = async (session: RunningSession, index: number) => {
    await session.trajectoryFile.settled();
    await trajectoryEditor.openAtStep(session.trajectoryUri, index);
  };

  const launchFor: SessionApi['launchFor'] = async (mode, uri, choices) => {
    const recording = await loadRecording(uri);
    return {
      mode,
      recording,
      image: choices.image,
      repoDir: choices.repoDir,
      repoPath: replaySettings(recording.trajectory).repoPath ?? '/repo',
      ...(choices.at !== undefined ? { at: choices.at } : {}),
      ...(choices.then ? { then: choices.then } : {}),
    };
  };

  const startWithProgress = (launch: SessionLaunch) =>
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SWE Workbench: starting a container of ${launch.image}`, cancellable: true },
      (_, token) => controller.start(launch, token),
    );

  const start: SessionApi['start'] = async (first, verb) => {
    const running = controller.current;
    if (running?.inProgress && !(await choices.prompts.confirmStop(running.title, verb))) return undefined;
    let launch = first;
    for (const tried = new Set<string>(); ;) {
      try {
        // Asked first, so no "starting a container" notification shows for an image that is not there.
        if (await choices.imageMissing(launch.image)) throw new MissingImageError(launch.image);
        return await startWithProgress(launch);
      } catch (error) {
        const what = launch.recording ? `${verb === 'Fork' ? 'a fork of' : 'a replay of'} ${path.basename(launch.recording.uri.fsPath)}` : 'the session';
        // An R2E-Gym run on an image without its interpreter: the way forward is the R2E-Gym image.
        if (needsR2eImage(error) && !tried.has(`r2e:${launch.image}`)) {
          tried.add(`r2e:${launch.image}`);
          const instead = await choices.replaceForR2e(launch.image, what, launch.recording?.trajectory.task.image);
          if (!instead) return undefined;
          launch = { ...launch, image: instead };
          continue;
        }
        const missing = missingImageOf(error);
        if (!missing || tried.has(missing.image)) throw error;
        tried.add(missing.image);
        const instead = await choices.replaceMissingImage(missing.image, what, { r2e: launch.recording?.trajectory.format === 'r2e-gym' });
        if (!instead) return undefined;
        launch = { ...launch, image: instead };
      }
    }
  };

  /**
   * Opens the next-action document on the session's next step: a document with unsaved text is
   * shown as it is; an action saved earlier that did not run is typed in again (unsaved), so
   * saving runs it.
   */
  const openNextAction = async () => {
    // After the save that gave the last action has finished: the file changing under it would leave the editor on stale text.
    await nextAction.settled();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === NEXT_ACTION_URI.toString());
    // Typed and not saved: the person's text stays as it is.
    const text = open?.isDirty ? undefined : await nextAction.refresh();
    const document = open ?? (await vscode.workspace.openTextDocument(NEXT_ACTION_URI));
    await vscode.window.showTextDocument(document, { preview: false });
    if (text !== undefined) await reloaded(document, text);
    const kept = text !== undefined ? nextAction.takeKept() : undefined;
    if (kept !== undefined) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(1, 0, document.lineCount, 0), kept);
      await vscode.workspace.applyEdit(edit);
    }
    void vscode.window.setStatusBarMessage('Save the document to run this action as the next step', 5000);
    nextActionShown.fire(controller.current?.index ?? 0);
  };

  /** The policy URL was set by the person (the default alone is not a configured policy). */
  const policyConfigured = () => {
    const url = vscode.workspace.getConfiguration('sweWorkbench').inspect<string>('policy.url');
    return [url?.globalValue, url?.workspaceValue, url?.workspaceFolderValue].some((v) => typeof v === 'string' && v.trim() !== '');
  };

  /** Runs a command's work and turns any failure into one message, the details in the log. */
  const guarded =
    <A extends unknown[]>(name: string, work: (...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      try {
        await work(...args);
      } catch (error) {
        log.error(`${name} failed`, error);
        void vscode.window.showErrorMessage(`SWE Workbench: ${errorText(error)}`, 'Show Log').then((c) => c && log.show());
      }
    };

  const askLaunch = async (
    mode: SessionLaunch['mode'],
    uri: vscode.Uri | undefined,
    fork?: { at: number; then: 'policy' | 'person' },
  ): Promise<SessionLaunch | undefined> => {
    if (!vscode.workspace.isTrusted) throw new Error('replays and live runs start containers, so they need a trusted workspace');
    const recording = uri ? await loadRecording(uri) : undefined;
    const image = await choices.image(recording?.trajectory.task.image);
    if (!image) return undefined;
    const repoDir = await choices.repository({ ...(uri ? { key: uri.toString() } : {}), ...(recording ? { task: recording.trajectory.task } : {}) });
    if (!repoDir) return undefined;
    const repoPath = (recording && replaySettings(recording.trajectory).repoPath) ?? '/repo';
    let problemStatement: string | undefined;
    if (mode === 'live' && !recording?.trajectory.task.problemStatement) {
      problemStatement = await vscode.window.showInputBox({
        title: 'Task for the agent',
        prompt: 'The problem statement the policy is given',
        ignoreFocusOut: true,
      });
      if (!problemStatement) return undefined;
    }
    return { mode, image, repoDir, repoPath, ...(recording ? { recording } : {}), ...(fork ?? {}), ...(problemStatement ? { problemStatement } : {}) };
  };

  const commands: [string, (...args: never[]) => unknown][] = [
    [
      'sweWorkbench.session.replay',
      guarded('replay', async (argument?: unknown) => {
        const target = trajectoryStepOf(argument);
        const uri = target?.trajectory ?? (await recordingUri(argument));
        const launch = uri && (await askLaunch('replay', uri));
        if (!launch || !(await start(launch, 'Replay'))) return;
        // From a stepper's step: replay up to and including that step, then pause.
        if (target) await controller.runTo(target.step + 1);
        else await controller.continue();
      }),
    ],
    [
      'sweWorkbench.session.runLive',
      guarded('live run', async () => {
        const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
        const launch = await askLaunch('live', input instanceof vscode.TabInputCustom ? input.uri : undefined);
        if (!launch || !(await start({ ...launch, mode: launch.recording ? 'fork' : 'live', at: 0, then: 'policy' }, 'Run Live'))) return;
        await controller.continue();
      }),
    ],
    [
      'sweWorkbench.session.fork',
      guarded('fork', async (argument?: unknown) => {
        const named = trajectoryStepOf(argument)?.trajectory ?? (argument instanceof vscode.Uri ? argument : undefined);
        const uri = named ?? controller.current?.launch.recording?.uri ?? (await recordingUri(undefined));
        if (!uri) return;
        const steps = (await loadRecording(uri)).trajectory.steps.length;
        const from = stepIndexOf(argument) ?? (await askStep('Fork after step (steps 1..N are replayed)', controller.current?.index ?? 1, steps));
        if (from === undefined) return;
        const configured = policyConfigured();
        const then = await vscode.window.showQuickPick(
          [
            {
              label: 'Continue with the policy',
              value: 'policy' as const,
              description: configured ? readSettings().policy.url : 'no policy server is configured: choose this to set sweWorkbench.policy.url',
            },
            { label: 'Continue by hand', value: 'person' as const, description: 'you type each action in the next-action editor' },
          ],
          { title: `Fork after step ${from + 1}` },
        );
        if (!then) return;
        if (then.value === 'policy' && !configured) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'sweWorkbench.policy.url');
          return;
        }
        const launch = await askLaunch('fork', uri, { at: from + 1, then: then.value });
        if (!launch || !(await start(launch, 'Fork'))) return;
        const stop = await controller.runTo(from + 1);
        // By hand: the session asks for the first action at once (the next-action editor opens).
        if (then.value === 'person' && stop.reason === 'run-to')
          void controller.continue().catch((error: unknown) => void vscode.window.showErrorMessage(`SWE Workbench: ${errorText(error)}`));
      }),
    ],
    ['sweWorkbench.session.step', guarded('step', () => controller.step())],
    ['sweWorkbench.session.continue', guarded('continue', () => controller.continue())],
    ['sweWorkbench.session.pause', guarded('pause', async () => controller.pause())],
    [
      'sweWorkbench.session.runTo',
      guarded('run to', async (argument?: unknown) => {
        const index = stepIndexOf(argument) ?? (await askStep('Run until step', (controller.current?.index ?? 0) + 2));
        if (index !== undefined) await controller.runTo(index);
      }),
    ],
    [
      'sweWorkbench.session.addBreakpoint',
      guarded('breakpoint', async (argument?: unknown) => {
        const session = controller.current;
        if (!session) throw new Error('no session is running');
        const index = stepIndexOf(argument);
        const breakpoint = index !== undefined ? ({ kind: 'step', index } as const) : await chooseBreakpoint(session);
        if (!breakpoint) return;
        controller.addBreakpoint(breakpoint);
        log.info(`breakpoint added: ${describeBreakpoint(breakpoint)}`);
      }),
    ],
    [
      'sweWorkbench.session.removeBreakpoint',
      guarded('remove breakpoint', async (node?: SessionNode) => {
        if (node?.kind === 'breakpoint') controller.removeBreakpoint(node.index);
      }),
    ],
    ['sweWorkbench.session.editNext', guarded('edit next action', openNextAction)],
    ['sweWorkbench.session.stop', guarded('stop', () => controller.stop())],
    ['sweWorkbench.session.releaseSnapshots', guarded('remove kept snapshots', () => controller.releaseSnapshots())],
    [
      'sweWorkbench.session.save',
      guarded('save', async () => {
        const session = controller.current;
        if (!session) throw new Error('no session has run yet');
        const base = session.launch.recording
          ? path.dirname(session.launch.recording.uri.fsPath)
          : (vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? tmpdir());
        const target = await vscode.window.showSaveDialog({
          defaultUri: vscode.Uri.file(path.join(base, 'session.traj')),
          filters: { 'SWE-agent trajectory': ['traj'], 'Canonical JSON': ['json'] },
        });
        if (!target) return;
        await controller.save(target);
        const open = await vscode.window.showInformationMessage(`SWE Workbench: saved ${path.basename(target.fsPath)}`, 'Open in Stepper');
        if (open) await vscode.commands.executeCommand('sweWorkbench.trajectory.open', target);
      }),
    ],
    [
      'sweWorkbench.session.openInStepper',
      guarded('open in stepper', async () => {
        const session = controller.current;
        if (!session) throw new Error('no session has run yet: replay a trajectory or start a live run first');
        // The stepper follows the session from here: each step is shown as it is done.
        await openSessionStep(session, Math.max(0, session.entries.length - 1));
      }),
    ],
    [
      'sweWorkbench.session.revealStep',
      guarded('reveal step', async (index: number) => {
        const session = controller.current;
        if (!session) throw new Error('no session has run yet');
        await openSessionStep(session, index);
      }),
    ],
    [
      'sweWorkbench.container.addToWorkspace',
      guarded('add container folder', async () => {
        const session = controller.current;
        if (!session || session.state === 'stopped') throw new Error('no session is running');
        const uri = containerUri(session.aci.sandbox, session.launch.repoPath);
        const count = vscode.workspace.workspaceFolders?.length ?? 0;
        vscode.workspace.updateWorkspaceFolders(count, 0, { uri, name: `${session.launch.repoPath} (container ${uri.authority})` });
      }),
    ],
  ];

  updateContext(undefined);
  const disposables: vscode.Disposable[] = [
    controller,
    nextActionShown,
    tree,
    status,
    view,
    controller.onDidChange(updateContext),
    controller.onDidWriteTrajectory(({ uri, stepCount }) => void trajectoryEditor.follow(uri, stepCount)),
    revealSessionOnStart(controller, view),
    controller.onDidAskPerson(() => void guarded('open the next action', openNextAction)()),
    vscode.workspace.registerFileSystemProvider(CONTAINER_SCHEME, files, { isCaseSensitive: true }),
    vscode.workspace.registerFileSystemProvider(NEXT_ACTION_SCHEME, nextAction, { isCaseSensitive: true }),
    ...commands.map(([id, handler]) => vscode.commands.registerCommand(id, handler as (...args: unknown[]) => unknown)),
  ];
  return { disposables, api: { controller, choices, nextAction, onDidShowNextAction: nextActionShown.event, start, tree, status, launchFor } };
}
