import * as vscode from 'vscode';
import { activateBranch, type BranchApi } from './branch/activateBranch';
import { activateBugs } from './bugs/activateBugs';
import { activateCheckSetup } from './doctor/checkSetup';
import { activateCompare } from './compare/activateCompare';
import { activatePatch } from './patch/activatePatch';
import { activateReward } from './reward/activateReward';
import { activateRollouts, type RolloutsApi } from './rollouts/activateRollouts';
import { activateSession, type SessionApi } from './session/activateSession';
import { ReplayCompareViews } from './session/replayCompareView';
import { activateSettings } from './settings';
import { activateTrajectoryEditor, type StepperRegistry } from './trajectory/trajectoryEditor';
import { errorText } from '../core/errors';
import { installScaffoldFamilies } from '../families';

/** What the extension exports to other extensions. */
export interface SweWorkbenchApi {
  /** Opens a trajectory file in the stepper on step `index` (0-based). */
  openTrajectoryAtStep(uri: vscode.Uri, index: number): Promise<void>;
}

/**
 * The extension's parts, for its own tests: the command `TEST_INTERNALS_COMMAND` returns them, and
 * it is registered only when the extension host runs tests (`ExtensionMode.Test`), so the public
 * API carries no test doors.
 */
export interface SweWorkbenchInternals {
  /** The open steppers: each one's webview panel and the messenger that answers its page. */
  readonly steppers: StepperRegistry;
  readonly rollouts: RolloutsApi;
  readonly session: SessionApi;
  readonly branch: BranchApi;
}

export const TEST_INTERNALS_COMMAND = 'sweWorkbench.test.internals';

let stopSession: (() => Promise<unknown>) | undefined;

export function activate(context: vscode.ExtensionContext): SweWorkbenchApi {
  installScaffoldFamilies();
  const log = vscode.window.createOutputChannel('SWE Workbench', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('sweWorkbench.log.show', () => log.show()),
  );
  const glue = { context, log };
  try {
    context.subscriptions.push(...activateSettings(context));
    context.subscriptions.push(...activateCheckSetup(glue));
    const trajectoryEditor = activateTrajectoryEditor(context, log);
    context.subscriptions.push(...trajectoryEditor.disposables);
    const rollouts = activateRollouts(glue, trajectoryEditor.api);
    context.subscriptions.push(...rollouts.disposables);
    const session = activateSession(glue, trajectoryEditor.api);
    stopSession = () => session.api.controller.shutdown();
    context.subscriptions.push(...session.disposables);
    context.subscriptions.push(new ReplayCompareViews(context, log, session.api.controller));
    context.subscriptions.push(...activatePatch(glue));
    context.subscriptions.push(...activateCompare(glue, trajectoryEditor.api, rollouts.api.rolloutAt));
    context.subscriptions.push(...activateReward(glue));
    const branch = activateBranch(glue, trajectoryEditor.api);
    context.subscriptions.push(...branch.disposables);
    context.subscriptions.push(...activateBugs(glue, { current: () => session.api.controller.current, choices: session.api.choices }));
    log.info(`activated ${context.extension.packageJSON.version as string}`);
    if (context.extensionMode === vscode.ExtensionMode.Test) {
      const internals: SweWorkbenchInternals = { steppers: trajectoryEditor.steppers, rollouts: rollouts.api, session: session.api, branch: branch.api };
      context.subscriptions.push(vscode.commands.registerCommand(TEST_INTERNALS_COMMAND, () => internals));
    }
    return { openTrajectoryAtStep: (uri, index) => trajectoryEditor.api.openAtStep(uri, index) };
  } catch (error) {
    // VS Code only logs a failed activation; say it where the user looks.
    log.error('activation failed', error);
    const message = errorText(error);
    void vscode.window.showErrorMessage(`SWE Workbench failed to start: ${message}`, 'Show Log').then((choice) => choice && log.show());
    throw error;
  }
}

/** Stops the running session and releases the kept snapshots, so their containers are removed before the extension host exits. */
export async function deactivate(): Promise<void> {
  await stopSession?.();
}
