import * as path from 'node:path';
import * as vscode from 'vscode';
import type { BranchContinuation } from '../../core/rollouts/branchIndex';
import { branchFolderOf, readBranchRun, type BranchRunRead } from '../../core/branch/branchRun';
import type { BranchValue } from '../../core/reward/branchValues';
import { errorText } from '../../core/errors';
import { branchPointItem, continuationItem, criticalText } from '../../views/branchView';
import { Disposable } from '../dispose';

/** A node of the Branches view: a recording with a branch run beside it, a branch point, a continuation. */
export type BranchNode =
  | { kind: 'recording'; recording: string; run: BranchRunRead | undefined; error?: string }
  | { kind: 'point'; recording: string; run: BranchRunRead; value: BranchValue }
  | { kind: 'continuation'; recording: string; run: BranchRunRead; afterStep: number; continuation: BranchContinuation };

/** The file a continuation was saved to. */
export function continuationFile(node: Extract<BranchNode, { kind: 'continuation' }>): string {
  return path.join(node.run.folder, node.continuation.file);
}

/**
 * The Branches view: each recording whose branch run (`branchFolderOf`) is known (a stepper opened
 * it, or Branch From Steps ran on it), its branch points with V and its interval, and each
 * continuation with its outcome, reward ("masked: REASON") and steps.
 */
export class BranchTreeProvider extends Disposable implements vscode.TreeDataProvider<BranchNode> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private roots: BranchNode[] = [];
  private readonly recordings = new Set<string>();

  /** Shows `recording`'s branch run (read again from its folder). */
  async add(recording: string): Promise<void> {
    this.recordings.add(recording);
    await this.refresh();
  }

  /** Whether the view lists `recording`. */
  shows(recording: string): boolean {
    return this.recordings.has(recording);
  }

  /** Whether `recording` has a branch run beside it. */
  static async hasRun(recording: string): Promise<boolean> {
    return (await readBranchRun(branchFolderOf(recording)).catch(() => undefined)) !== undefined;
  }

  async refresh(): Promise<void> {
    this.roots = await Promise.all(
      [...this.recordings].sort().map(async (recording): Promise<BranchNode> => {
        try {
          return { kind: 'recording', recording, run: await readBranchRun(branchFolderOf(recording)) };
        } catch (err) {
          return { kind: 'recording', recording, run: undefined, error: errorText(err) };
        }
      }),
    );
    this.changed.fire();
  }

  getChildren(node?: BranchNode): BranchNode[] {
    if (!node) return this.roots;
    if (node.kind === 'recording') {
      const run = node.run;
      return run ? run.summary.values.map((value) => ({ kind: 'point', recording: node.recording, run, value })) : [];
    }
    if (node.kind === 'point') {
      const point = node.run.index.points.find((p) => p.afterStep === node.value.at);
      return (point?.continuations ?? []).map((continuation) => ({
        kind: 'continuation',
        recording: node.recording,
        run: node.run,
        afterStep: node.value.at,
        continuation,
      }));
    }
    return [];
  }

  getTreeItem(node: BranchNode): vscode.TreeItem {
    switch (node.kind) {
      case 'recording': {
        const item = new vscode.TreeItem(path.basename(node.recording), vscode.TreeItemCollapsibleState.Expanded);
        item.id = `recording:${node.recording}`;
        item.resourceUri = vscode.Uri.file(node.recording);
        item.description = node.error ?? (node.run ? criticalText(node.run.summary) : 'no branch run beside it');
        item.tooltip = `${node.recording}\n${branchFolderOf(node.recording)}`;
        item.iconPath = new vscode.ThemeIcon(node.error ? 'warning' : 'git-branch');
        item.contextValue = 'branchRecording';
        item.command = { command: 'sweWorkbench.trajectory.open', title: 'Open Recording', arguments: [vscode.Uri.file(node.recording)] };
        return item;
      }
      case 'point': {
        const shown = branchPointItem(node.value, node.run.summary);
        const item = new vscode.TreeItem(shown.label, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `point:${node.recording}:${node.value.at}`;
        item.description = shown.description;
        item.tooltip = shown.tooltip;
        item.iconPath = new vscode.ThemeIcon(node.run.summary.critical?.to === node.value.at ? 'arrow-down' : 'circle-outline');
        item.contextValue = 'branchPoint';
        return item;
      }
      case 'continuation': {
        const shown = continuationItem(node.continuation);
        const item = new vscode.TreeItem(shown.label, vscode.TreeItemCollapsibleState.None);
        item.id = `continuation:${node.recording}:${node.afterStep}:${node.continuation.sample}`;
        item.description = shown.description;
        item.tooltip = `${continuationFile(node)}\n${shown.description}`;
        const c = node.continuation;
        item.iconPath = new vscode.ThemeIcon(c.mask !== null ? 'circle-slash' : c.reward !== null && c.reward > 0 ? 'pass' : 'error');
        item.contextValue = 'branchContinuation';
        item.command = { command: 'sweWorkbench.branch.openContinuation', title: 'Open Continuation', arguments: [node] };
        return item;
      }
    }
  }
}
