import path from 'node:path';
import * as vscode from 'vscode';
import { BUG_FILES } from '../../core/bugs/bugArtifact';
import { CHECK_NAMES, type CheckResult } from '../../core/bugs/consistencyChecks';
import { Disposable } from '../dispose';
import { findBugFolders, type BugFolder } from './bugFolders';
import { describeCheck, type CheckResults } from './checkResults';

export type BugsNode = { kind: 'bug'; folder: BugFolder } | { kind: 'file'; dir: string; name: string } | { kind: 'check'; dir: string; result: CheckResult };

const passIcon = new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
const failIcon = new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));

/** The Bugs view: bug folders of the workspace, their five files, and their last check results. */
export class BugsTreeProvider extends Disposable implements vscode.TreeDataProvider<BugsNode> {
  private readonly changed = this._register(new vscode.EventEmitter<BugsNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private folders: Promise<BugFolder[]> | undefined;

  constructor(private readonly results: CheckResults) {
    super();
    this._register(results.onDidChange(() => this.changed.fire(undefined)));
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/{${Object.values(BUG_FILES).join(',')}}`));
    for (const event of [watcher.onDidCreate, watcher.onDidDelete]) this._register(event(() => this.refresh()));
  }

  /** Looks for bug folders again; resolves to what the view will show. */
  refresh(): Promise<BugFolder[]> {
    this.folders = findBugFolders();
    this.changed.fire(undefined);
    return this.folders;
  }

  bugFolders(): Promise<BugFolder[]> {
    return (this.folders ??= findBugFolders());
  }

  async getChildren(node?: BugsNode): Promise<BugsNode[]> {
    if (!node) return (await this.bugFolders()).map((folder) => ({ kind: 'bug', folder }));
    if (node.kind !== 'bug') return [];
    const dir = node.folder.dir;
    const files = Object.values(BUG_FILES)
      .filter((n) => !node.folder.missing.includes(n))
      .map((name): BugsNode => ({ kind: 'file', dir, name }));
    return [...files, ...this.results.get(dir).map((result): BugsNode => ({ kind: 'check', dir, result }))];
  }

  getTreeItem(node: BugsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'bug': {
        const item = new vscode.TreeItem(path.basename(node.folder.dir), vscode.TreeItemCollapsibleState.Collapsed);
        const results = this.results.get(node.folder.dir);
        const failed = results.filter((r) => !r.passed).length;
        const stopped = this.results.stopReason(node.folder.dir);
        item.id = node.folder.dir;
        item.resourceUri = vscode.Uri.file(node.folder.dir);
        item.contextValue = node.folder.missing.length ? 'sweWorkbench.incompleteBug' : 'sweWorkbench.bug';
        item.description = node.folder.missing.length
          ? `missing ${node.folder.missing.join(', ')}`
          : stopped
            ? `checks stopped after ${results.length} of ${CHECK_NAMES.length}: ${stopped}`
            : results.length
              ? `${results.length - failed} of ${results.length} checks pass`
              : vscode.workspace.asRelativePath(path.dirname(node.folder.dir));
        if (stopped) item.tooltip = `The last run of the checks stopped: ${stopped}`;
        item.iconPath = node.folder.missing.length
          ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
          : stopped || failed
            ? failIcon
            : results.length
              ? passIcon
              : new vscode.ThemeIcon('bug');
        return item;
      }
      case 'file': {
        const uri = vscode.Uri.file(path.join(node.dir, node.name));
        const item = new vscode.TreeItem(uri);
        item.id = uri.fsPath;
        item.command = { command: 'vscode.open', title: 'Open', arguments: [uri] };
        return item;
      }
      case 'check': {
        const item = new vscode.TreeItem(node.result.name);
        item.id = `${node.dir}#${node.result.name}`;
        item.description = node.result.detail;
        item.iconPath = node.result.passed ? passIcon : failIcon;
        item.tooltip = new vscode.MarkdownString(describeCheck(node.result, false));
        item.contextValue = 'sweWorkbench.bugCheck';
        item.command = { command: 'sweWorkbench.bugs.showCheck', title: 'Show Evidence', arguments: [{ bug: node.dir, check: node.result.name }] };
        return item;
      }
    }
  }
}
