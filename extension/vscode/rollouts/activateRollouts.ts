import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../../core/errors';
import type { RolloutIndex } from '../../core/rollouts/rolloutIndex';
import type { ResponseMessage } from '../../protocol/ipc';
import { SECTION } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { openRollout, type OpenedRollout } from './openRollout';
import { ROLLOUTS_TABLE_VIEW, RolloutsTablePanel } from './rolloutsTablePanel';
import { RolloutsSource } from './rolloutsSource';
import { RolloutsTreeProvider } from './rolloutsTree';

export const ROLLOUTS_VIEW = 'sweWorkbench.rollouts';
const FOLDER_SETTING = 'rollouts.folder';

/** What tests and other extensions can drive without the UI. */
export interface RolloutsApi {
  readonly tree: vscode.TreeDataProvider<unknown>;
  openFolder(folder: string): Promise<RolloutIndex | undefined>;
  open(id: string): Promise<OpenedRollout>;
  /** Sends one protocol message to the open table, exactly as its webview would. */
  requestTable(message: unknown): Promise<ResponseMessage | undefined>;
}

/** A folder setting may be relative to the first workspace folder. */
function configuredFolder(): string | undefined {
  const raw = vscode.workspace.getConfiguration(SECTION).get<unknown>(FOLDER_SETTING);
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return base ? path.resolve(base, raw) : path.resolve(raw);
}

export function activateRollouts(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, editor: TrajectoryEditorApi): { disposables: vscode.Disposable[]; api: RolloutsApi } {
  const source = new RolloutsSource(vscode.Uri.joinPath(context.globalStorageUri, 'rollouts-cache').fsPath, log);
  const tree = new RolloutsTreeProvider(source);
  const view = vscode.window.createTreeView(ROLLOUTS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  let table: RolloutsTablePanel | undefined;

  const openFolder = async (folder: string): Promise<RolloutIndex | undefined> => {
    try {
      return await source.open(folder);
    } catch (error) {
      log.error(`cannot index ${folder}`, error);
      void vscode.window.showErrorMessage(`SWE Workbench: ${error instanceof InputError ? error.message : `cannot index ${folder}: ${String(error)}`}`);
      return undefined;
    }
  };
  const open = async (id: string): Promise<OpenedRollout> => {
    const rollout = source.rollout(id);
    const root = source.index?.root;
    if (!rollout || !root) throw new Error(`no rollout ${id} in the index`);
    return openRollout(root, rollout, editor);
  };
  const showTable = (): RolloutsTablePanel => {
    if (table) {
      table.panel.reveal();
      return table;
    }
    const panel = vscode.window.createWebviewPanel(ROLLOUTS_TABLE_VIEW, 'Rollouts', vscode.ViewColumn.Active, { retainContextWhenHidden: false });
    const created = new RolloutsTablePanel(panel, source, context.extensionUri, log, (r) => open(r.id));
    panel.onDidDispose(() => (table = undefined));
    table = created;
    return created;
  };

  const describe = (index: RolloutIndex) => {
    view.message = `${index.rollouts.length} rollouts in ${index.root}${index.errors.length ? ` · ${index.errors.length} unreadable` : ''}`;
  };
  const initial = configuredFolder();
  if (initial) void openFolder(initial);

  const disposables: vscode.Disposable[] = [
    source,
    tree,
    view,
    { dispose: () => table?.panel.dispose() },
    source.onDidChange(describe),
    vscode.commands.registerCommand('sweWorkbench.rollouts.openFolder', async (target?: vscode.Uri | string) => {
      const folder = typeof target === 'string' ? target : (target?.fsPath ?? (await pickFolder()));
      return folder ? openFolder(folder) : undefined;
    }),
    vscode.commands.registerCommand('sweWorkbench.rollouts.showTable', () => void showTable()),
    vscode.commands.registerCommand('sweWorkbench.rollouts.open', async (id: unknown) => {
      if (typeof id !== 'string') throw new Error('sweWorkbench.rollouts.open takes a rollout id');
      try {
        return await open(id);
      } catch (error) {
        log.error(`cannot open rollout ${id}`, error);
        void vscode.window.showErrorMessage(`SWE Workbench: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const folder = configuredFolder();
      if (e.affectsConfiguration(`${SECTION}.${FOLDER_SETTING}`) && folder && folder !== source.folder) void openFolder(folder);
    }),
  ];
  const api: RolloutsApi = {
    tree,
    openFolder,
    open,
    requestTable: (message) => showTable().messenger.receive(message),
  };
  return { disposables, api };
}

async function pickFolder(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Index rollouts' });
  return picked?.[0]?.fsPath;
}
