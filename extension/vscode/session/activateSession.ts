import * as vscode from 'vscode';
import { errorText } from '../../core/errors';
import { registerCommands, reportFailure, type Glue } from '../commands';
import { CONTAINER_SCHEME, ContainerFileSystem } from '../container/containerFileSystem';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { NextActionEditor } from './nextActionEditor';
import { NEXT_ACTION_SCHEME, NEXT_ACTION_URI, NextActionFileSystem } from './nextActionFileSystem';
import { revealSessionOnStart } from './replayCompareView';
import { SessionChoices } from './sessionChoices';
import { SessionCommands } from './sessionCommands';
import { SessionController } from './sessionController';
import { SessionStarter } from './sessionStarter';
import { SessionStatusBar } from './sessionStatusBar';
import { SESSION_VIEW, SessionTreeProvider } from './sessionTree';

export interface SessionApi {
  readonly controller: SessionController;
  /** The repository and image questions, asked once and remembered (tests replace `choices.prompts`). */
  readonly choices: SessionChoices;
  readonly nextAction: NextActionFileSystem;
  /** The next-action editor is shown and ready for typing, on the step it names (0-based). */
  readonly onDidShowNextAction: vscode.Event<number>;
  /** Starts a launch as the commands do (`SessionStarter.start`); undefined when the person declined. */
  readonly start: SessionStarter['start'];
  readonly tree: SessionTreeProvider;
  readonly status: SessionStatusBar;
}

/** The `sweWorkbench.sessionState` context key and the empty view's hint follow the session. */
function showSessionState(controller: SessionController, view: vscode.TreeView<unknown>): vscode.Disposable {
  const update = () => {
    void vscode.commands.executeCommand('setContext', 'sweWorkbench.sessionState', controller.current?.state ?? 'none');
    view.message = controller.current ? undefined : 'Replay a trajectory or start a live run.';
  };
  update();
  return controller.onDidChange(update);
}

/** The Session view, its status bar items, the container and next-action file systems, and the session's commands. */
export function activateSession(glue: Glue, trajectoryEditor: TrajectoryEditorApi): { disposables: vscode.Disposable[]; api: SessionApi } {
  const { context, log } = glue;
  const files = new ContainerFileSystem();
  const controller = new SessionController(context.secrets, log, files, vscode.Uri.joinPath(context.globalStorageUri, 'sessions').fsPath);
  void controller.removeStaleTrajectories().catch((error: unknown) => log.warn(`could not delete earlier sessions' trajectory files: ${errorText(error)}`));
  const tree = new SessionTreeProvider(controller);
  const status = new SessionStatusBar(controller);
  const nextAction = new NextActionFileSystem(controller);
  const nextActionEditor = new NextActionEditor(nextAction, controller);
  const choices = new SessionChoices(context.workspaceState, log);
  const starter = new SessionStarter(controller, choices);
  const view = vscode.window.createTreeView(SESSION_VIEW, { treeDataProvider: tree, showCollapseAll: false });
  const disposables: vscode.Disposable[] = [
    controller,
    nextActionEditor,
    tree,
    status,
    view,
    showSessionState(controller, view),
    controller.onDidWriteTrajectory(({ uri, stepCount }) => void trajectoryEditor.follow(uri, stepCount)),
    revealSessionOnStart(controller, view),
    endNextActionWithSession(controller, nextAction),
    controller.onDidAskPerson(() => void nextActionEditor.open().catch((error: unknown) => void reportFailure(log, 'open the next action', error))),
    vscode.workspace.registerFileSystemProvider(CONTAINER_SCHEME, files, { isCaseSensitive: true }),
    vscode.workspace.registerFileSystemProvider(NEXT_ACTION_SCHEME, nextAction, { isCaseSensitive: true }),
    ...registerCommands(glue, new SessionCommands(glue, controller, starter, nextActionEditor, trajectoryEditor).commands()),
  ];
  const api: SessionApi = {
    controller,
    choices,
    nextAction,
    tree,
    status,
    onDidShowNextAction: nextActionEditor.onDidShow,
    start: (launch, verb) => starter.start(launch, verb),
  };
  return { disposables, api };
}

/** Once the session has ended, the next-action document stops asking for a step that will not run. */
function endNextActionWithSession(controller: SessionController, nextAction: NextActionFileSystem): vscode.Disposable {
  let endedTitle: string | undefined;
  return controller.onDidChange((session) => {
    if (!session || session.inProgress) {
      endedTitle = undefined;
      return;
    }
    // A session a newer one replaced can still report its end late (its run loop unwinding):
    // the document then belongs to the newer session, whose hint it must keep.
    if (session !== controller.current || endedTitle === session.title) return;
    endedTitle = session.title;
    // An open document with typed, unsaved text keeps it as it is: a changed file under a dirty
    // document is reloaded by the editor, which would drop what was typed. Saving it then says
    // that no session is running and keeps the action.
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === NEXT_ACTION_URI.toString());
    if (open?.isDirty) return;
    nextAction.ended(session.title, session.stateText);
  });
}
