import * as vscode from 'vscode';
import { errorText } from '../../core/errors';
import { editorEntry } from '../../core/trajectory/load';
import { webviewOptions } from '../webview/webviewContent';
import { activateRawRecordDocuments, type RawRecordDocuments } from './rawRecordDocuments';
import { StepperSession } from './stepperSession';
import { TokenDecoder } from './tokenDecoder';
import { TRAJECTORY_EDITOR_ANY_JSON, TrajectoryDocument } from './trajectoryDocument';

/** `*.traj` and `*.traj.json` open here by default; any JSON/JSONL file through "Open With". */
const TRAJECTORY_EDITOR = 'sweWorkbench.trajectory';

/** The open steppers, for commands that act on the focused one and for the extension's API. */
export class StepperRegistry {
  private readonly sessions = new Set<{ session: StepperSession; panel: vscode.WebviewPanel }>();
  /** Steps that a stepper about to open for a URI shows first (open at step N). */
  private readonly revealOnOpen = new Map<string, number>();

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

  /** Every stepper showing `uri` (one document may be open in several editors). */
  allFor(uri: vscode.Uri): StepperSession[] {
    return [...this.sessions].filter(({ session }) => session.document.uri.toString() === uri.toString()).map(({ session }) => session);
  }

  /** Opens `uri` in a stepper; one that this opens new starts on step `index` when given. */
  async open(uri: vscode.Uri, index?: number): Promise<void> {
    if (index !== undefined) this.revealOnOpen.set(uri.toString(), index);
    try {
      await vscode.commands.executeCommand('vscode.openWith', uri, TRAJECTORY_EDITOR_ANY_JSON);
    } finally {
      this.revealOnOpen.delete(uri.toString());
    }
  }

  /** The step a stepper being resolved for `uri` starts on, when it is opened on one. */
  stepToReveal(uri: vscode.Uri): number | undefined {
    return this.revealOnOpen.get(uri.toString());
  }
}

class TrajectoryEditorProvider implements vscode.CustomReadonlyEditorProvider<TrajectoryDocument> {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly registry: StepperRegistry,
    private readonly rawRecordDocuments: RawRecordDocuments,
    private readonly tokenDecoder: TokenDecoder,
  ) {}

  openCustomDocument(uri: vscode.Uri): TrajectoryDocument {
    const document = new TrajectoryDocument(uri);
    // Parse while VS Code creates the panel; a failure is shown by the page rendered for it.
    document.light().catch(() => undefined);
    return document;
  }

  async resolveCustomEditor(document: TrajectoryDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.options = webviewOptions(this.extensionUri);
    const session = new StepperSession(document, panel, this.extensionUri, this.log, this.rawRecordDocuments);
    this.tokenDecoder.register(session);
    const registration = this.registry.add(session, panel);
    panel.onDidDispose(() => {
      registration.dispose();
      session.dispose();
    });
    const step = this.registry.stepToReveal(document.uri);
    await session.render(step ?? 0, step !== undefined);
  }
}

export interface TrajectoryEditorApi {
  /** Opens `uri` in the stepper on step `index` (0-based). */
  openAtStep(uri: vscode.Uri, index: number): Promise<void>;
  /**
   * `uri` was rewritten with `stepCount` steps (a running session's trajectory): a stepper showing
   * it reads it again, and one on its last step moves to the new last step.
   */
  follow(uri: vscode.Uri, stepCount: number): Promise<void>;
  /** The trajectory of the focused stepper, if one is focused. */
  activeUri(): vscode.Uri | undefined;
  /** The branch run beside `uri` changed: each stepper showing it shows the new values. */
  branchesChanged(uri: vscode.Uri): Promise<void>;
}

export function activateTrajectoryEditor(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
): { disposables: vscode.Disposable[]; api: TrajectoryEditorApi; steppers: StepperRegistry } {
  const registry = new StepperRegistry();
  const raw = activateRawRecordDocuments();
  const provider = new TrajectoryEditorProvider(context.extensionUri, log, registry, raw.documents, new TokenDecoder(context.secrets));
  const options = { webviewOptions: { retainContextWhenHidden: false }, supportsMultipleEditorsPerDocument: true };
  const disposables = [
    ...raw.disposables,
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR, provider, options),
    vscode.window.registerCustomEditorProvider(TRAJECTORY_EDITOR_ANY_JSON, provider, options),
    vscode.commands.registerCommand('sweWorkbench.trajectory.open', (uri?: vscode.Uri) => openTrajectory(registry, uri)),
    vscode.commands.registerCommand('sweWorkbench.trajectory.goToStep', async () => {
      const session = registry.active();
      if (!session) {
        void vscode.window.showWarningMessage('SWE Workbench: open a trajectory first.');
        return;
      }
      const { stepCount } = await session.document.source();
      const answer = await vscode.window.showInputBox({
        title: 'Go to step',
        prompt: `A step number from 1 to ${stepCount}`,
        validateInput: (v) => (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= stepCount ? undefined : `Enter a number from 1 to ${stepCount}`),
      });
      if (answer !== undefined) await session.reveal(Number(answer) - 1);
    }),
  ];
  const api: TrajectoryEditorApi = {
    openAtStep: (uri, index) => openAtStep(registry, uri, index),
    follow: async (uri, stepCount) => {
      for (const session of registry.allFor(uri)) await session.follow(stepCount);
    },
    activeUri: () => registry.active()?.document.uri,
    branchesChanged: async (uri) => {
      for (const session of registry.allFor(uri)) await session.branchesChanged();
    },
  };
  return { disposables, api, steppers: registry };
}

/** Shows step `index` in the stepper of `uri`: a stepper already open selects it, a new one starts on it. */
async function openAtStep(registry: StepperRegistry, uri: vscode.Uri, index: number): Promise<void> {
  await registry.forUri(uri)?.reveal(index);
  await registry.open(uri, index);
}

/** The explorer's and the palette's "Open Trajectory": a file, or a recording kept as a folder (an OpenHands V1 conversation) through the file that stands for it. */
async function openTrajectory(registry: StepperRegistry, uri: vscode.Uri | undefined): Promise<void> {
  const target = uri ?? (await pickTrajectory());
  if (!target) return;
  let entry: vscode.Uri;
  try {
    entry = target.scheme === 'file' ? vscode.Uri.file(await editorEntry(target.fsPath)) : target;
  } catch (err) {
    void vscode.window.showErrorMessage(`SWE Workbench: ${errorText(err)}`);
    return;
  }
  await registry.open(entry);
}

async function pickTrajectory(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    openLabel: 'Open trajectory',
    filters: { Trajectories: ['traj', 'json', 'jsonl'] },
  });
  return picked?.[0];
}
