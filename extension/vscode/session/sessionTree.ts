import * as vscode from 'vscode';
import { describeBreakpoint } from '../../core/session/breakpoints';
import { Disposable } from '../dispose';
import { stepDuration } from '../../views/replayCompare';
import { stepLabel } from '../../core/trajectory/stepLabels';
import type { RunningSession, SessionController, StepEntry } from './sessionController';

export const SESSION_VIEW = 'sweWorkbench.session';
/** Opens (or moves) the one replay compare view to a step: what a replayed step's row runs (replayCompareView.ts). */
export const COMPARE_STEP_COMMAND = 'sweWorkbench.session.compareStep';

export type SessionNode = { kind: 'session' } | { kind: 'step'; index: number } | { kind: 'breakpoint'; index: number };

/** The session's row, one object, so `TreeView.reveal` finds it again. */
export const SESSION_NODE: SessionNode = { kind: 'session' };

/** A step as the Session view shows it: its action as the stepper names it, exit code, duration, and whether it diverged or could not be read. */
function stepItem(entry: StepEntry): vscode.TreeItem {
  const { step, comparison, restored } = entry;
  const item = new vscode.TreeItem(`${step.index + 1}  ${stepLabel(step)}`);
  const marks = [
    step.formatError !== undefined ? 'format error' : `exit ${step.exitCode ?? '?'}`,
    ...(step.executionTime !== undefined ? [stepDuration(step.executionTime)] : []),
    ...(comparison ? [comparison.matched ? 'matched' : 'diverged'] : []),
    ...(restored ? ['restored'] : []),
    ...(step.flags ?? []).filter((f) => f === 'lint-rejected' || f === 'edited'),
  ];
  item.description = marks.join(' · ');
  const failed = step.formatError !== undefined || (step.exitCode ?? 0) !== 0;
  item.iconPath =
    comparison && !comparison.matched
      ? new vscode.ThemeIcon('diff', new vscode.ThemeColor('problemsWarningIcon.foreground'))
      : failed
        ? new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'))
        : new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
  const tooltip = new vscode.MarkdownString();
  tooltip.appendCodeblock(step.action.raw, 'shell');
  if (step.formatError) tooltip.appendMarkdown(`\n\n**Format error:** ${step.formatError.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&')}`);
  if (comparison && !comparison.matched) tooltip.appendCodeblock(comparison.diff, 'diff');
  if (restored) tooltip.appendMarkdown('\n\nRestored with the workspace from the snapshot a session took after this step, not run again.');
  item.tooltip = tooltip;
  item.contextValue = 'sweWorkbench.sessionStep';
  // A replayed step opens beside its recording; any other (a live run's, a fork's own, one restored) opens in the stepper on the session's trajectory.
  item.command = comparison
    ? { command: COMPARE_STEP_COMMAND, title: 'Compare with the Recording', arguments: [step.index] }
    : { command: 'sweWorkbench.session.revealStep', title: 'Open Step in Stepper', arguments: [step.index] };
  return item;
}

function sessionItem(session: RunningSession): vscode.TreeItem {
  const item = new vscode.TreeItem(session.title, vscode.TreeItemCollapsibleState.Expanded);
  const diverged = session.entries.filter((e) => e.comparison && !e.comparison.matched).length;
  item.description = `${session.stateText} · ${session.entries.length} steps${diverged ? ` · ${diverged} diverged` : ''}`;
  item.iconPath = new vscode.ThemeIcon(
    { starting: 'loading~spin', ready: 'debug-pause', running: 'loading~spin', paused: 'debug-pause', finished: 'pass', stopped: 'debug-stop' }[session.state],
  );
  item.contextValue = `sweWorkbench.session.${session.state}`;
  item.tooltip = `container ${session.aci.sandbox.id.slice(0, 12)} of ${session.launch.image}, repository at ${session.launch.repoPath}${session.fork ? `; ${session.fork.note}` : ''}`;
  return item;
}

/** The running replay or live run: the session, its breakpoints, and its steps as they happen. */
export class SessionTreeProvider extends Disposable implements vscode.TreeDataProvider<SessionNode> {
  private readonly changed = this._register(new vscode.EventEmitter<SessionNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly controller: SessionController) {
    super();
    this._register(controller.onDidChange(() => this.changed.fire(undefined)));
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    const session = this.controller.current;
    if (!session) return new vscode.TreeItem('no session');
    if (node.kind === 'session') return sessionItem(session);
    if (node.kind === 'breakpoint') {
      const breakpoint = session.debug.breakpoints[node.index];
      const item = new vscode.TreeItem(breakpoint ? `break at ${describeBreakpoint(breakpoint)}` : 'breakpoint');
      item.iconPath = new vscode.ThemeIcon('debug-breakpoint', new vscode.ThemeColor('debugIcon.breakpointForeground'));
      item.contextValue = 'sweWorkbench.sessionBreakpoint';
      return item;
    }
    const entry = session.entries[node.index];
    return entry ? stepItem(entry) : new vscode.TreeItem(`step ${node.index + 1}`);
  }

  getChildren(node?: SessionNode): SessionNode[] {
    const session = this.controller.current;
    if (!session) return [];
    if (!node) return [SESSION_NODE];
    if (node.kind !== 'session') return [];
    return [
      ...session.debug.breakpoints.map((_, index) => ({ kind: 'breakpoint' as const, index })),
      ...session.entries.map((_, index) => ({ kind: 'step' as const, index })),
    ];
  }

  getParent(node: SessionNode): SessionNode | undefined {
    return node.kind === 'session' ? undefined : SESSION_NODE;
  }
}
