import * as vscode from 'vscode';
import { z } from 'zod';
import type { Rollout } from '../../core/rollouts/record';
import type { RolloutIndex } from '../../core/rollouts/rolloutIndex';
import { command, execute, parseArgument, registerCommands, type CommandSpec, type Glue } from '../commands';
import { SECTION, configuredPath, recipeCatalog } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { rolloutAt } from './rolloutEvidence';
import { RolloutsSource } from './rolloutFolder';
import { RolloutLinks } from './rolloutLinks';
import { RolloutsTable } from './rolloutsTable';
import { ROLLOUTS_TABLE_VIEW, type RolloutActions } from './rolloutsTablePanel';
import { RolloutsTreeProvider } from './rolloutsTree';

const ROLLOUTS_VIEW = 'sweWorkbench.rollouts';
const FOLDER_SETTING = 'rollouts.folder';

/** The Rollouts view's parts, and what the compare view asks of it. */
export interface RolloutsApi {
  readonly tree: vscode.TreeDataProvider<unknown>;
  /** The table: its panel, shown or restored from the state its webview saved. */
  readonly table: RolloutsTable;
  /** The indexed folder's rollout a trajectory file (a JSONL file's 0-based record) is, if any: the compare view grades with it. */
  rolloutAt(file: string, record: number | undefined): Promise<Rollout | undefined>;
}

/** The Rollouts view, its table and its commands; every rollout action, from a command or a table row, fails one way. */
class RolloutsFeature {
  readonly source: RolloutsSource;
  private readonly tree: RolloutsTreeProvider;
  private readonly links: RolloutLinks;
  private readonly table: RolloutsTable;
  private readonly openFolder = command({
    id: 'sweWorkbench.rollouts.openFolder',
    title: (folder: string) => `index ${folder}`,
    args: folderArg,
    run: (folder) => this.source.open(folder),
  });
  private readonly open = onRollout('sweWorkbench.rollouts.open', 'open', ({ id }) => this.links.open(id));
  private readonly showReward = onRollout('sweWorkbench.rollouts.showReward', 'show the reward of', ({ id, recipe }) => this.links.showReward(id, recipe));
  private readonly showPatch = onRollout('sweWorkbench.rollouts.showPatch', 'show the patch of', ({ id }) => this.links.showPatch(id));
  /** The table's alone (no palette command): its failure is said as a command's. */
  private readonly compareGroup = onRollout('sweWorkbench.rollouts.compareGroup', 'compare the group of', ({ id }) => this.links.compareGroup(id));

  constructor(
    private readonly glue: Glue,
    editor: TrajectoryEditorApi,
  ) {
    this.source = new RolloutsSource(vscode.Uri.joinPath(glue.context.globalStorageUri, 'rollouts-cache').fsPath, glue.log);
    this.tree = new RolloutsTreeProvider(this.source);
    this.links = new RolloutLinks(this.source, editor);
    const shown = (spec: CommandSpec) => async (r: Rollout, recipe?: string) => (await execute(glue.log, spec, [r.id, recipe])) !== undefined;
    const actions: RolloutActions = {
      open: (r) => this.links.open(r.id),
      showReward: shown(this.showReward),
      showPatch: shown(this.showPatch),
      compareGroup: shown(this.compareGroup),
      recipes: recipeCatalog,
      goldPatches: () => this.links.goldPatches(),
      exportTarget: (file) => this.links.exportTarget(file),
    };
    this.table = new RolloutsTable(glue, this.source, actions, (folder) => this.indexFolder(folder));
  }

  /** Indexes `folder` as the Open Rollouts Folder command does, failure included. */
  indexFolder(folder: string): Promise<RolloutIndex | undefined> {
    return execute(this.glue.log, this.openFolder, [folder]) as Promise<RolloutIndex | undefined>;
  }

  commands(): CommandSpec[] {
    const showTable = command({ id: 'sweWorkbench.rollouts.showTable', title: 'show the rollouts table', run: () => void this.table.show() });
    return [this.openFolder, showTable, this.open, this.showReward, this.showPatch];
  }

  disposables(): vscode.Disposable[] {
    const view = vscode.window.createTreeView(ROLLOUTS_VIEW, { treeDataProvider: this.tree, showCollapseAll: true });
    const describe = (index: RolloutIndex) =>
      (view.message = `${index.rollouts.length} rollouts in ${index.root}${index.errors.length ? ` · ${index.errors.length} unreadable` : ''}`);
    return [
      this.source,
      this.tree,
      view,
      this.table,
      this.source.onDidChange(describe),
      vscode.window.registerWebviewPanelSerializer(ROLLOUTS_TABLE_VIEW, { deserializeWebviewPanel: (panel, state) => this.table.restore(panel, state) }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        const folder = configuredPath(FOLDER_SETTING);
        if (e.affectsConfiguration(`${SECTION}.${FOLDER_SETTING}`) && folder && folder !== this.source.folder) void this.indexFolder(folder);
      }),
    ];
  }

  api(): RolloutsApi {
    return {
      tree: this.tree,
      table: this.table,
      rolloutAt: async (file, record) => {
        const index = this.source.index;
        return index ? rolloutAt(index.root, index.rollouts, file, record) : undefined;
      },
    };
  }
}

/** The Rollouts view indexes the folder the settings name, at start and whenever they name another. */
export function activateRollouts(glue: Glue, editor: TrajectoryEditorApi): { disposables: vscode.Disposable[]; api: RolloutsApi } {
  const rollouts = new RolloutsFeature(glue, editor);
  const disposables = [...rollouts.disposables(), ...registerCommands(glue, rollouts.commands())];
  const initial = configuredPath(FOLDER_SETTING);
  if (initial) void rollouts.indexFolder(initial);
  return { disposables, api: rollouts.api() };
}

/** A rollout command's argument: an id (command links, the table, tests) or the Rollouts view's node; the table adds its recipe. */
const RolloutArg = z.union([
  z.string().min(1),
  z.object({ kind: z.literal('rollout'), rollout: z.object({ id: z.string().min(1) }) }).transform((node) => node.rollout.id),
]);
type RolloutTarget = { id: string; recipe?: string };

function onRollout(id: string, verb: string, run: (target: RolloutTarget) => unknown): CommandSpec {
  return command({
    id,
    title: (target: RolloutTarget) => `${verb} ${target.id}`,
    args: (arg, recipe) => ({ id: parseArgument(RolloutArg, arg, id), ...(typeof recipe === 'string' ? { recipe } : {}) }),
    run,
  });
}

/** The folder to index: a path, an explorer URI, or one the person picks. */
async function folderArg(target?: unknown): Promise<string | undefined> {
  if (typeof target === 'string') return target;
  if (target instanceof vscode.Uri) return target.fsPath;
  const picked = await vscode.window.showOpenDialog({ canSelectFiles: false, canSelectFolders: true, canSelectMany: false, openLabel: 'Index rollouts' });
  return picked?.[0]?.fsPath;
}
