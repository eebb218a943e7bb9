import * as vscode from 'vscode';
import { classifyError } from '../../core/errors';
import { replayCompareLoad, replayCompareShow, type ReplayCompareState } from '../../protocol/replayCompare';
import { replayCompareContent } from '../../views/replayCompare';
import { Disposable } from '../dispose';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import type { RunningSession, SessionController } from './sessionController';
import { COMPARE_STEP_COMMAND, SESSION_NODE, type SessionNode } from './sessionTree';

const REPLAY_COMPARE_VIEW = 'sweWorkbench.replayCompare';

/** Step `index` of the session, recorded beside replayed; or why it cannot be shown. */
function replayCompareState(session: RunningSession | undefined, index: number): ReplayCompareState {
  if (!session) return { kind: 'empty', message: 'No session: replay a trajectory to compare its steps with the recording.' };
  const entry = session.entries.find((e) => e.step.index === index);
  if (!entry) return { kind: 'empty', message: `Step ${index + 1} has not run in ${session.title}.` };
  const recorded = session.launch.recording?.trajectory.steps[index];
  if (!entry.comparison || !recorded)
    return { kind: 'empty', message: `Step ${index + 1} of ${session.title} is not in the recording, so there is nothing to compare it with.` };
  return {
    kind: 'step',
    step: replayCompareContent({ session: session.title, recorded, replayed: entry.step, normalisers: entry.comparison.normalisers }),
  };
}

function titleOf(state: ReplayCompareState, index: number): string {
  return `Step ${index + 1}: Recorded ↔ Replayed${state.kind === 'step' && !state.step.matched ? ' (diverged)' : ''}`;
}

/**
 * The one view of a replayed step beside its recording. It follows the session: another step
 * row clicked moves it there, and a step or session change refreshes what it shows.
 */
export class ReplayCompareViews extends Disposable {
  private panel: { panel: vscode.WebviewPanel; messenger: WebviewMessenger; index: number } | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly controller: SessionController,
  ) {
    super();
    this._register(controller.onDidChange(() => this.refresh()));
    this._register(vscode.commands.registerCommand(COMPARE_STEP_COMMAND, (argument: unknown) => this.show(indexOf(argument))));
    this._register({ dispose: () => this.panel?.panel.dispose() });
  }

  show(index: number | undefined): ReplayCompareState | undefined {
    if (index === undefined) return undefined;
    const state = replayCompareState(this.controller.current, index);
    if (this.panel) {
      this.panel.index = index;
      this.panel.panel.title = titleOf(state, index);
      this.panel.messenger.notify(replayCompareShow, state);
      this.panel.panel.reveal(undefined, true);
      return state;
    }
    const panel = vscode.window.createWebviewPanel(REPLAY_COMPARE_VIEW, titleOf(state, index), vscode.ViewColumn.Active, { retainContextWhenHidden: false });
    panel.webview.options = webviewOptions(this.context.extensionUri);
    const messenger = new WebviewMessenger(panel.webview, this.log, classifyError);
    const shown = { panel, messenger, index };
    this.panel = shown;
    messenger.onRequest(replayCompareLoad, () => replayCompareState(this.controller.current, shown.index));
    panel.onDidDispose(() => {
      messenger.dispose();
      if (this.panel === shown) this.panel = undefined;
    });
    showView(panel.webview, this.context.extensionUri, 'replayCompare', 'Recorded ↔ Replayed', this.log);
    return state;
  }

  private refresh(): void {
    if (!this.panel) return;
    const state = replayCompareState(this.controller.current, this.panel.index);
    this.panel.panel.title = titleOf(state, this.panel.index);
    this.panel.messenger.notify(replayCompareShow, state);
  }
}

function indexOf(argument: unknown): number | undefined {
  if (typeof argument === 'number' && Number.isInteger(argument) && argument >= 0) return argument;
  const node = argument as SessionNode | undefined;
  return node?.kind === 'step' ? node.index : undefined;
}

/** Shows the Session view (without taking the focus) each time a new session starts. */
export function revealSessionOnStart(controller: SessionController, view: vscode.TreeView<SessionNode>): vscode.Disposable {
  let last: RunningSession | undefined;
  return controller.onDidChange((session) => {
    if (!session || session === last) return;
    last = session;
    if (!view.visible) void view.reveal(SESSION_NODE, { select: false, focus: false, expand: true }).then(undefined, () => undefined);
  });
}
