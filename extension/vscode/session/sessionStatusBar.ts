import * as vscode from 'vscode';
import { Disposable } from '../dispose';
import type { PolicyState, SessionController } from './sessionController';

/** Two status bar items: the sandbox's state (starting, ready, running step N, paused, stopped) and the policy's. */
export class SessionStatusBar extends Disposable {
  /** The sandbox's item (its text is what the status bar shows). */
  readonly sandbox = this._register(vscode.window.createStatusBarItem('sweWorkbench.sandboxState', vscode.StatusBarAlignment.Left, 50));
  private readonly policy = this._register(vscode.window.createStatusBarItem('sweWorkbench.policyState', vscode.StatusBarAlignment.Left, 49));

  constructor(private readonly controller: SessionController) {
    super();
    this.sandbox.name = 'SWE Workbench Sandbox';
    this.sandbox.command = 'workbench.view.extension.sweWorkbench';
    this.policy.name = 'SWE Workbench Policy';
    this.policy.command = { command: 'workbench.action.openSettings', title: 'Policy settings', arguments: ['sweWorkbench.policy'] };
    this._register(controller.onDidChange(() => this.renderSandbox()));
    this._register(controller.onDidChangePolicy((state) => this.renderPolicy(state)));
    this.renderSandbox();
  }

  private renderSandbox(): void {
    const session = this.controller.current;
    if (this.controller.starting) {
      this.sandbox.text = `$(loading~spin) sandbox starting`;
      this.sandbox.tooltip = `Starting a container of ${this.controller.starting}`;
    } else if (!session) {
      this.sandbox.text = '';
      this.sandbox.hide();
      return;
    } else {
      const icon = { starting: 'loading~spin', ready: 'vm', running: 'loading~spin', paused: 'debug-pause', finished: 'pass', stopped: 'vm-outline' }[
        session.state
      ];
      this.sandbox.text = `$(${icon}) sandbox ${session.stateText}`;
      this.sandbox.tooltip = `${session.title}: container ${session.aci.sandbox.id.slice(0, 12)} of ${session.launch.image}`;
    }
    this.sandbox.show();
  }

  private renderPolicy(state: PolicyState): void {
    this.policy.text = state.reachable ? `$(hubot) ${state.model ?? 'policy'}` : '$(warning) policy unreachable';
    this.policy.tooltip = state.reachable ? `Policy server reachable, model ${state.model ?? '?'}` : `Policy server unreachable: ${state.message ?? ''}`;
    this.policy.backgroundColor = state.reachable ? undefined : new vscode.ThemeColor('statusBarItem.warningBackground');
    this.policy.show();
  }
}
