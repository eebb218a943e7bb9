import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Rollout } from '../../core/rollouts/record';
import { loadTrajectory } from '../../core/trajectory/load';
import { compareLoad, compareOpenStep, type CompareContent } from '../../protocol/compare';
import { ProtocolFailure } from '../../protocol/ipc';
import { classifyError } from '../../core/errors';
import { command, registerCommands, type Glue } from '../commands';
import { recordOf } from '../trajectory/trajectoryDocument';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { compareContent, type CompareFrom, type LoadedRun } from '../../views/compareView';

const COMPARE_VIEW = 'sweWorkbench.compare';
const COMPARE_COMMAND = 'sweWorkbench.compare.open';

/** What the command returns to its caller: the panel and what it shows. */
interface CompareShown {
  panel: vscode.WebviewPanel;
  content: CompareContent;
}

/** The trajectories the command was given: explorer (clicked, selected), a list, or nothing (ask). */
function urisOf(first: unknown, selected: unknown): vscode.Uri[] | undefined {
  if (Array.isArray(selected) && selected.length > 0 && selected.every((u) => u instanceof vscode.Uri)) return selected as vscode.Uri[];
  if (Array.isArray(first) && first.every((u) => u instanceof vscode.Uri)) return first as vscode.Uri[];
  if (first instanceof vscode.Uri) return [first];
  return undefined;
}

/** What to compare: the runs, and the branch point they share when compared from one. */
interface CompareRequest {
  uris: vscode.Uri[];
  from?: CompareFrom;
}

/** `{ runs: [recording, continuation], afterStep }`: the Branches view's Compare from the branch point. */
function fromBranchPoint(first: unknown): CompareRequest | undefined {
  if (typeof first !== 'object' || first === null || !('runs' in first) || !('afterStep' in first)) return undefined;
  const { runs, afterStep } = first;
  if (!Array.isArray(runs) || !runs.every((u) => u instanceof vscode.Uri) || typeof afterStep !== 'number' || !Number.isInteger(afterStep) || afterStep < 0)
    throw new Error(`${COMPARE_COMMAND}: from a branch point takes { runs: Uri[], afterStep: a whole number of steps, 0 or more }`);
  return { uris: runs as vscode.Uri[], from: { afterStep } };
}

/** The runs to compare: those the command was given, else picked; one file from the explorer has the others asked for. */
async function chooseRuns(first?: unknown, selected?: unknown): Promise<CompareRequest | undefined> {
  const branched = fromBranchPoint(first);
  if (branched) return branched;
  const uris = urisOf(first, selected) ?? (await pick());
  if (uris?.length !== 1) return uris && { uris };
  const more = await pick();
  return more && { uris: [uris[0]!, ...more.filter((u) => u.toString() !== uris[0]!.toString())] };
}

async function pick(): Promise<vscode.Uri[] | undefined> {
  return vscode.window.showOpenDialog({
    title: 'Compare trajectories: pick two or more runs of one task',
    canSelectMany: true,
    openLabel: 'Compare',
    filters: { Trajectories: ['traj', 'json', 'jsonl'] },
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
}

function labelOf(uri: vscode.Uri): string {
  const record = recordOf(uri);
  return `${path.basename(uri.fsPath)}${record === undefined ? '' : ` (record ${record + 1})`}`;
}

/** The rollouts folder's row a file is, so a run is graded from the evidence the rollouts table grades it with. */
type RolloutLookup = (file: string, record: number | undefined) => Promise<Rollout | undefined>;

async function loadRuns(uris: readonly vscode.Uri[], rolloutAt: RolloutLookup): Promise<LoadedRun[]> {
  return Promise.all(
    uris.map(async (uri) => {
      const record = recordOf(uri);
      const [{ trajectory, line }, rollout] = await Promise.all([
        loadTrajectory(uri.fsPath, record === undefined ? {} : { record }),
        rolloutAt(uri.fsPath, record),
      ]);
      return {
        path: uri.fsPath,
        trajectory,
        ...(record === undefined ? {} : { record, ...(line === undefined ? {} : { line }) }),
        ...(rollout ? { rollout } : {}),
      };
    }),
  );
}

export function activateCompare(glue: Glue, editor: TrajectoryEditorApi, rolloutAt: RolloutLookup): vscode.Disposable[] {
  const { context, log } = glue;
  const panels = new Set<vscode.WebviewPanel>();
  /** The open view of each comparison, by its runs and branch point. */
  const byRuns = new Map<string, vscode.WebviewPanel>();
  const open = async ({ uris, from }: CompareRequest): Promise<CompareShown> => {
    if (uris.length < 2) {
      throw new Error(`Compare Trajectories needs two or more trajectories; ${uris.length === 0 ? 'none was' : `only ${labelOf(uris[0]!)} was`} chosen.`);
    }
    // Nothing is opened half-read: a failure names the file and where instead.
    const content: CompareContent = compareContent(await loadRuns(uris, rolloutAt), from);
    const panel = vscode.window.createWebviewPanel(COMPARE_VIEW, content.title, vscode.ViewColumn.Active, { retainContextWhenHidden: false });
    // The same comparison asked again replaces its view, read afresh, rather than adding a second tab of the same title.
    const key = JSON.stringify([uris.map((uri) => uri.toString()), from ?? null]);
    byRuns.get(key)?.dispose();
    byRuns.set(key, panel);
    panel.webview.options = webviewOptions(context.extensionUri);
    const messenger = new WebviewMessenger(panel.webview, log, classifyError);
    messenger.onRequest(compareLoad, () => content);
    messenger.onRequest(compareOpenStep, async ({ run, index }) => {
      const uri = uris[run];
      if (!uri || index >= (content.runs[run]?.stepCount ?? 0)) throw new ProtocolFailure('not-found', `run ${run + 1} has no step ${index + 1}`);
      await editor.openAtStep(uri, index);
      return { opened: true };
    });
    panels.add(panel);
    panel.onDidDispose(() => {
      panels.delete(panel);
      if (byRuns.get(key) === panel) byRuns.delete(key);
      messenger.dispose();
    });
    showView(panel.webview, context.extensionUri, 'compare', content.title, log);
    return { panel, content };
  };
  return [
    { dispose: () => [...panels].forEach((p) => p.dispose()) },
    ...registerCommands(glue, [command({ id: COMPARE_COMMAND, title: 'compare', args: chooseRuns, run: open })]),
  ];
}
