import path from 'node:path';
import * as vscode from 'vscode';
import type { IndexError, Rollout } from '../../core/rollouts/record';
import { gradingConflictLines, groupRollouts, type RolloutGroup } from '../../core/rollouts/rolloutGroups';
import type { RolloutIndex } from '../../core/rollouts/rolloutIndex';
import { Disposable } from '../dispose';
import type { RolloutStatus } from '../../protocol/rollouts';
import { failureLabel } from '../../core/rollouts/failureTaxonomy';
import { rolloutStatus } from '../../views/rolloutTable';
import type { RolloutsSource } from './rolloutFolder';

export type RolloutsNode =
  | { kind: 'group'; group: RolloutGroup; rollouts: Rollout[] }
  | { kind: 'rollout'; rollout: Rollout }
  | { kind: 'errors'; errors: IndexError[]; root: string }
  | { kind: 'error'; error: IndexError; root: string };

const STATUS_ICONS: Record<RolloutStatus, vscode.ThemeIcon> = {
  resolved: new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  infra: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  unknown: new vscode.ThemeIcon('question'),
};

/** A group's icon says what its rollouts did: all solved, none solved, mixed, or none evaluated. */
function groupIcon(g: RolloutGroup): vscode.ThemeIcon {
  if (g.mixed) return new vscode.ThemeIcon('split-horizontal');
  if (g.solveRate === null) return new vscode.ThemeIcon('folder');
  return g.solveRate === 1
    ? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
    : new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('testing.iconFailed'));
}

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function groupDescription(g: RolloutGroup): string {
  const parts = [g.solveRate === null ? `${g.rollouts} not graded` : `${g.resolved}/${g.evaluated} solved`];
  if (g.passAtK.length > 0) parts.push(`pass@1 ${percent(g.passAtK[0]!)}`, `pass@${g.passAtK.length} ${percent(g.passAtK.at(-1)!)}`);
  if (g.mixed) parts.push('mixed');
  if (g.gradingConflicts.length) parts.push('⚠ same patch graded both ways');
  return parts.join(' · ');
}

/** Where an unreadable input went wrong: the record's line, else the parser's `line L, column C`. */
function errorPosition(e: IndexError): vscode.Position | undefined {
  const parsed = /line (\d+)(?:, column (\d+))?/.exec(e.where ?? '');
  const line = e.line ?? (parsed ? Number(parsed[1]) : undefined);
  if (line === undefined) return undefined;
  const column = parsed?.[2] !== undefined && (e.line === undefined || Number(parsed[1]) === e.line) ? Number(parsed[2]) : 1;
  return new vscode.Position(line - 1, Math.max(0, column - 1));
}

function errorText(e: IndexError): string {
  return `${e.file}${e.line !== undefined ? `:${e.line}` : ''}${e.where ? ` (${e.where})` : ''}: ${e.message}`;
}

/** Plain text: failure classes, evidence and test names come from files and are shown as they are. */
function rolloutTooltip(r: Rollout): string {
  return [
    r.failure,
    r.evidence.detail,
    r.evidence.step !== undefined ? `at step ${r.evidence.step + 1}` : undefined,
    ...(r.evidence.tests ?? []).map((t) => `failing: ${t}`),
    '',
    `${r.id} · ${r.format} · ${r.steps} steps${r.exitStatus ? ` · exit ${r.exitStatus}` : ''}`,
  ]
    .filter((line) => line !== undefined)
    .join('\n');
}

/** The Rollouts view: one node per instance (a GRPO group), its rollouts under it. */
export class RolloutsTreeProvider extends Disposable implements vscode.TreeDataProvider<RolloutsNode> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeTreeData = this.changed.event;
  private roots: RolloutsNode[] = [];

  constructor(source: RolloutsSource) {
    super();
    this._register(source.onDidChange((index) => this.rebuild(index)));
    if (source.index) this.rebuild(source.index);
  }

  private rebuild(index: RolloutIndex): void {
    const byInstance = new Map<string, Rollout[]>();
    for (const r of index.rollouts) {
      const group = byInstance.get(r.instance);
      // Pushed, not copied: a copy per rollout is quadratic in a group's size.
      if (group) group.push(r);
      else byInstance.set(r.instance, [r]);
    }
    const groups: RolloutsNode[] = groupRollouts(index.rollouts).map((group) => ({
      kind: 'group',
      group,
      rollouts: (byInstance.get(group.instance) ?? []).sort((a, b) => a.attempt - b.attempt || (a.id < b.id ? -1 : 1)),
    }));
    this.roots = index.errors.length > 0 ? [{ kind: 'errors', errors: index.errors, root: index.root }, ...groups] : groups;
    this.changed.fire();
  }

  getChildren(node?: RolloutsNode): RolloutsNode[] {
    if (!node) return this.roots;
    if (node.kind === 'group') return node.rollouts.map((rollout) => ({ kind: 'rollout', rollout }));
    if (node.kind === 'errors') return node.errors.map((error) => ({ kind: 'error', error, root: node.root }));
    return [];
  }

  getTreeItem(node: RolloutsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group': {
        const item = new vscode.TreeItem(node.group.instance, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `group:${node.group.instance}`;
        item.description = groupDescription(node.group);
        item.iconPath = groupIcon(node.group);
        item.contextValue = node.group.mixed ? 'rolloutGroup.mixed' : 'rolloutGroup';
        item.tooltip = `${node.group.instance}: ${groupDescription(node.group)}\n${Object.entries(node.group.failures)
          .map(([c, n]) => `${c} ×${n}`)
          .join(', ')}${gradingConflictLines(node.group)
          .map((line) => `\n⚠ ${line}`)
          .join('')}`;
        return item;
      }
      case 'rollout': {
        const r = node.rollout;
        const item = new vscode.TreeItem(`#${r.attempt} ${failureLabel(r)}`, vscode.TreeItemCollapsibleState.None);
        item.id = `rollout:${r.id}`;
        item.description = `${r.steps} steps · ${r.format}${r.reward !== undefined ? ` · reward ${r.reward}` : ''}`;
        item.iconPath = STATUS_ICONS[rolloutStatus(r)];
        item.tooltip = rolloutTooltip(r);
        item.contextValue = 'rollout';
        item.command = { command: 'sweWorkbench.rollouts.open', title: 'Open Rollout', arguments: [r.id] };
        return item;
      }
      case 'errors': {
        const item = new vscode.TreeItem(
          `${node.errors.length} unreadable input${node.errors.length === 1 ? '' : 's'}`,
          vscode.TreeItemCollapsibleState.Collapsed,
        );
        item.id = 'errors';
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'));
        item.tooltip = node.errors.slice(0, 30).map(errorText).join('\n');
        return item;
      }
      case 'error': {
        const e = node.error;
        const position = errorPosition(e);
        const item = new vscode.TreeItem(e.file, vscode.TreeItemCollapsibleState.None);
        item.id = `error:${e.file}:${e.line ?? ''}`;
        item.description = `${position ? `line ${position.line + 1}: ` : ''}${e.message}`;
        item.tooltip = errorText(e);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
        const uri = vscode.Uri.file(path.resolve(node.root, e.file));
        const options: vscode.TextDocumentShowOptions = position ? { selection: new vscode.Range(position, position) } : {};
        // As text: the stepper, the default editor of a .traj, cannot show a file it cannot parse.
        item.command = { command: 'vscode.openWith', title: 'Open at the Error', arguments: [uri, 'default', options] };
        return item;
      }
    }
  }
}
