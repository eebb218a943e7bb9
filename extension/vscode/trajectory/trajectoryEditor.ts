import * as vscode from 'vscode';
import type { ResponseMessage } from '../../protocol/ipc';
import { showView, webviewOptions } from '../webview/webviewContent';
import { activateRawRecordDocuments, type RawRecordDocuments } from './rawRecordDocuments';
import { StepperSession } from './stepperSession';
import { TrajectoryDocument } from './trajectoryDocument';

/** `*.traj` and `*.traj.json` open here by default; any JSON/JSONL file through "Open With". */
export const TRAJECTORY_EDITOR = 'sweWorkbench.trajectory';
export const TRAJECTORY_EDITOR_ANY_JSON = 'sweWorkbench.trajectoryAnyJson';

/** The open steppers, for commands that act on the focused one and for the extension's API. */
export class StepperRegistry {
  private readonly sessions = new Set<{ session: StepperSession; panel: vscode.WebviewPanel }>();

  add(session: StepperSession, panel: vscode.WebviewPanel): vscode.Disposable {
    const entry = { session, panel };
    this.sessions.add(entry);
    return { dispose: () => this.sessions.delete(entry) };
  }

  active(): StepperSession | undefined {
    for (const { session, panel } of this.sessions) if (panel.active) return session;
    return undefined;
  }

  forUri(uri: vscode.Uri): StepperSession | undefined {
    for (const { session } of this.sessions) if (session.document.uri.toString() === uri.toString()) return session;
    return undefined;
  }

  panelFor(uri: vscode.Uri): { session: StepperSession; panel: vscode.WebviewPanel } | undefined {
    for (const entry of this.sessions) if (entry.session.document.uri.toString() === uri.toString()) return entry;
    return undefined;
  }
}

class TrajectoryEditorProvider implements vscode.CustomReadonlyEditorProvider<TrajectoryDocument> {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly registry: StepperRegistry,
    private readonly rawRecordDocuments: RawRecordDocuments,
  ) {}

  openCustomDocument(uri: vscode.Uri): TrajectoryDocument {
    return new TrajectoryDocument(uri);
  }

  resolveCustomEditor(document: TrajectoryDocument, panel: vscode.WebviewPanel): void {
    panel.webview.options = webviewOptions(this.extensionUri);
    // Parse while the view boots; a failure is reported when the view asks for the trajectory.
    document.loaded().catch(() => undefined);
    const session = new StepperSession(document, panel.webview, this.log, this.rawRecordDocuments);
    const registration = this.registry.add(session, panel);
    panel.onDidDispose(() => {
      registration.dispose();
      session.dispose();
    });
    showView(panel.webview, this.extensionUri, 'stepper', document.fileName, this.log);
  }
}

export interface TrajectoryEditorApi {
  /** Sends one protocol message to the stepper showing `uri`, exactly as its webview would. */
  request(uri: vscode.Uri, message: unknown): Promise<ResponseMessage | undefined>;
  /** Opens `uri` in the stepper on step `index` (0-based). */
  openAtStep(uri: vscode.Uri, index: number): Promise<void>;
}

export function activateTrajectoryEditor(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): { disposables: vscode.Disposable[]; api: TrajectoryEditorApi } {
  const registry = new StepperRegistry();
  const raw = activateRawRecordDocuments();
  const provider = new TrajectoryEditorProvider(context.extensionUri, log, registry, raw.documents);
  const options = { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true };
  const disposables = [
    ...raw.disposables,
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR, provider, options),
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR_ANY_JSON, provider, options),
    vscode.commands.registerCommand('sweWorkbench.trajectory.open', async (uri?: vscode.Uri) => {
      const target = uri ?? (await pickTrajectory());
      if (target) await vscode.commands.executeCommand('vscode.openWith', target, TRAJECTORY_EDITOR_ANY_JSON);
    }),
    vscode.commands.registerCommand('sweWorkbench.trajectory.goToStep', async () => {
      const session = registry.active();
      if (!session) {
        void vscode.window.showWarningMessage('SWE Workbench: open a trajectory first.');
        return;
      }
      const stepCount = (await session.document.trajectory()).steps.length;
      const answer = await vscode.window.showInputBox({
        title: 'Go to step',
        prompt: `A step number from 1 to ${stepCount}`,
        validateInput: (v) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= stepCount ? undefined : `Enter a number from 1 to ${stepCount}`),
      });
      if (answer !== undefined) session.reveal(Number(answer) - 1);
    }),
  ];
  const api: TrajectoryEditorApi = {
    request: async (uri, message) => {
      const session = registry.forUri(uri);
      if (!session) throw new Error(`no stepper is open for ${uri.toString()}`);
      return session.messenger.receive(message);
    },
    openAtStep: (uri, index) => openAtStep(registry, uri, index),
  };
  return { disposables, api };
}

/**
 * A stepper that is loading (new, or reloaded after being hidden) selects its saved step once
 * it asks for the first step's details, and drops notifications sent before that; so the
 * step is revealed after that request, or at once when the view is already showing.
 */
async function openAtStep(registry: StepperRegistry, uri: vscode.Uri, index: number): Promise<void> {
  const showing = registry.panelFor(uri)?.panel.visible === true;
  const loaded = showing ? undefined : waitForDetailsRequest(registry, uri);
  await vscode.commands.executeCommand('vscode.openWith', uri, TRAJECTORY_EDITOR_ANY_JSON);
  await loaded;
  registry.forUri(uri)?.reveal(index);
}

async function waitForDetailsRequest(registry: StepperRegistry, uri: vscode.Uri, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let entry = registry.panelFor(uri);
  while (!entry && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    entry = registry.panelFor(uri);
  }
  if (!entry) return;
  const { webview } = entry.panel;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    const listener = webview.onDidReceiveMessage((m: unknown) => {
      if (typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'steps/details') done();
    });
    function done(): void {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    }
  });
}

async function pickTrajectory(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: 'Open trajectory',
    filters: { Trajectories: ['traj', 'json', 'jsonl'] },
  });
  return picked?.[0];
}
