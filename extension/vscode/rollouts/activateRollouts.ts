import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError, errorText } from '../../core/errors';
import type { Rollout } from '../../core/rollouts/record';
import { goldPatches } from '../../core/rollouts/recipeEvidence';
import type { RolloutIndex } from '../../core/rollouts/rolloutIndex';
import type { ResponseMessage } from '../../protocol/ipc';
import { RolloutsUiStateSchema } from '../../protocol/rollouts';
import type { PatchShown } from '../patch/activatePatch';
import type { RewardShown } from '../reward/activateReward';
import { SECTION, configuredPath, recipeCatalog } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { openRollout, type OpenedRollout } from './openRollout';
import { InstanceCatalog, patchSourceOf, rewardSourcesOf, rolloutAt, rolloutFile } from './rolloutEvidence';
import { withRecord } from '../trajectory/trajectoryDocument';
import { ROLLOUTS_TABLE_VIEW, RolloutsTablePanel } from './rolloutsTablePanel';
import { RolloutsSource } from './rolloutFolder';
import { RolloutsTreeProvider, type RolloutsNode } from './rolloutsTree';

const ROLLOUTS_VIEW = 'sweWorkbench.rollouts';
const FOLDER_SETTING = 'rollouts.folder';
const INSTANCES_SETTING = 'rollouts.instances';

/** What tests and other extensions can drive without the UI. */
export interface RolloutsApi {
  readonly tree: vscode.TreeDataProvider<unknown>;
  openFolder(folder: string): Promise<RolloutIndex | undefined>;
  open(id: string): Promise<OpenedRollout>;
  /** Sends one protocol message to the open table, exactly as its webview would. */
  requestTable(message: unknown): Promise<ResponseMessage | undefined>;
  /** Restores a table panel from the state its webview saved, as a window reload does. */
  restoreTable(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  /** The indexed folder's rollout a trajectory file (a JSONL file's 0-based record) is, if any: the compare view grades with it. */
  rolloutAt(file: string, record: number | undefined): Promise<Rollout | undefined>;
}

/** A command's rollout: an id (command links, tests) or the tree node it was invoked on. */
function rolloutId(arg: unknown): string {
  if (typeof arg === 'string') return arg;
  const node = arg as Partial<RolloutsNode> | undefined;
  if (node?.kind === 'rollout' && node.rollout) return node.rollout.id;
  throw new Error('takes a rollout id or a rollout of the Rollouts view');
}

async function isDirectory(folder: string): Promise<boolean> {
  return stat(folder).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export function activateRollouts(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  editor: TrajectoryEditorApi,
): { disposables: vscode.Disposable[]; api: RolloutsApi } {
  const source = new RolloutsSource(vscode.Uri.joinPath(context.globalStorageUri, 'rollouts-cache').fsPath, log);
  const tree = new RolloutsTreeProvider(source);
  const view = vscode.window.createTreeView(ROLLOUTS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  let table: RolloutsTablePanel | undefined;

  const openFolder = async (folder: string): Promise<RolloutIndex | undefined> => {
    try {
      return await source.open(folder);
    } catch (error) {
      log.error(`cannot index ${folder}`, error);
      void vscode.window.showErrorMessage(`SWE Workbench: ${error instanceof InputError ? error.message : `cannot index ${folder}: ${errorText(error)}`}`);
      return undefined;
    }
  };
  const located = (id: string): { root: string; rollout: Rollout } => {
    const rollout = source.rollout(id);
    const root = source.index?.root;
    if (!rollout || !root) throw new Error(`no rollout ${id} in the index`);
    return { root, rollout };
  };
  const open = async (id: string): Promise<OpenedRollout> => {
    const { root, rollout } = located(id);
    return openRollout(root, rollout, editor);
  };
  let catalog: InstanceCatalog | undefined;
  const instances = (): InstanceCatalog | undefined => {
    const file = configuredPath(INSTANCES_SETTING);
    if (catalog?.file !== file) catalog = file ? new InstanceCatalog(file) : undefined;
    return catalog;
  };
  const showReward = async (id: string, recipe?: string): Promise<RewardShown | undefined> => {
    const { root, rollout } = located(id);
    const sources = await rewardSourcesOf(root, rollout, instances());
    return vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.reward.show', recipe ? { ...sources, recipe } : sources);
  };
  const showPatch = async (id: string): Promise<PatchShown | undefined> => {
    const { root, rollout } = located(id);
    return vscode.commands.executeCommand<PatchShown | undefined>('sweWorkbench.patch.show', await patchSourceOf(root, rollout, instances()));
  };
  /** The trajectories of the rollout's instance, each as the stepper opens it, for the compare view. */
  const compareGroup = async (id: string): Promise<unknown> => {
    const { root, rollout } = located(id);
    const group = (source.index?.rollouts ?? []).filter((r) => r.instance === rollout.instance);
    if (group.length < 2) throw new Error(`${rollout.instance} has only this rollout: there is nothing to compare it with`);
    const uris = await Promise.all(
      group.map(async (r) => {
        const { file, record } = await rolloutFile(root, r);
        return record === undefined ? vscode.Uri.file(file) : withRecord(vscode.Uri.file(file), record);
      }),
    );
    return vscode.commands.executeCommand('sweWorkbench.compare.open', uris);
  };
  /** Runs a rollout action for a command or a table row: a failure becomes one message naming the rollout. */
  const reporting =
    <T>(verb: string, action: (id: string) => Promise<T>) =>
    async (arg: unknown): Promise<T | undefined> => {
      let id = '';
      try {
        id = rolloutId(arg);
        return await action(id);
      } catch (error) {
        log.error(`cannot ${verb} ${id}`, error);
        void vscode.window.showErrorMessage(`SWE Workbench: cannot ${verb} ${id || 'the rollout'}: ${errorText(error)}`);
        return undefined;
      }
    };
  const actions = {
    open: (r: Rollout) => open(r.id),
    showReward: async (r: Rollout, recipe?: string) => (await reporting('show the reward of', (id) => showReward(id, recipe))(r.id)) !== undefined,
    showPatch: async (r: Rollout) => (await reporting('show the patch of', showPatch)(r.id)) !== undefined,
    recipes: recipeCatalog,
    goldPatches: async () => {
      const file = configuredPath(INSTANCES_SETTING);
      return file ? goldPatches(file) : undefined;
    },
    exportTarget: (file: string) => path.resolve(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? source.folder ?? '.', file),
    compareGroup: async (r: Rollout) => (await reporting('compare the group of', compareGroup)(r.id)) !== undefined,
  };
  const adopt = (panel: vscode.WebviewPanel, problem: string | null = null): RolloutsTablePanel => {
    const created = new RolloutsTablePanel(panel, source, context.extensionUri, log, actions, problem);
    panel.onDidDispose(() => {
      if (table === created) table = undefined;
    });
    table = created;
    return created;
  };
  const showTable = (): RolloutsTablePanel => {
    if (table) {
      table.panel.reveal();
      return table;
    }
    return adopt(vscode.window.createWebviewPanel(ROLLOUTS_TABLE_VIEW, 'Rollouts', vscode.ViewColumn.Active, { retainContextWhenHidden: false }));
  };
  /** A table restored after a reload comes back on its folder, if that folder is still there. */
  const restoreTable = async (panel: vscode.WebviewPanel, state: unknown): Promise<void> => {
    const folder = RolloutsUiStateSchema.safeParse(state).data?.folder;
    if (folder === undefined || folder === source.folder) {
      adopt(panel);
      return;
    }
    if (!(await isDirectory(folder))) {
      log.warn(`the rollouts table showed ${folder}, which is gone`);
      adopt(panel, `The rollouts folder this table showed is gone: ${folder}. Open another with “SWE Workbench: Open Rollouts Folder…”.`);
      return;
    }
    adopt(panel);
    await openFolder(folder);
  };

  const describe = (index: RolloutIndex) => {
    view.message = `${index.rollouts.length} rollouts in ${index.root}${index.errors.length ? ` · ${index.errors.length} unreadable` : ''}`;
  };
  const initial = configuredPath(FOLDER_SETTING);
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
    vscode.commands.registerCommand('sweWorkbench.rollouts.open', reporting('open', open)),
    vscode.commands.registerCommand('sweWorkbench.rollouts.showReward', reporting('show the reward of', showReward)),
    vscode.commands.registerCommand('sweWorkbench.rollouts.showPatch', reporting('show the patch of', showPatch)),
    vscode.window.registerWebviewPanelSerializer(ROLLOUTS_TABLE_VIEW, { deserializeWebviewPanel: restoreTable }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const folder = configuredPath(FOLDER_SETTING);
      if (e.affectsConfiguration(`${SECTION}.${FOLDER_SETTING}`) && folder && folder !== source.folder) void openFolder(folder);
    }),
  ];
  const api: RolloutsApi = {
    tree,
    openFolder,
    open,
    requestTable: (message) => showTable().messenger.receive(message),
    restoreTable,
    rolloutAt: async (file, record) => {
      const index = source.index;
      return index ? rolloutAt(index.root, index.rollouts, file, record) : undefined;
    },
  };
  return { disposables, api };
}

async function pickFolder(): Promise<string | undefined> {
  const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Index rollouts' });
  return picked?.[0]?.fsPath;
}
