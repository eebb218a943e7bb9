import * as vscode from 'vscode';
import type { CheckEvidence, CheckResult } from '../../core/bugs/consistencyChecks';

/** The latest check results of each bug folder, shared by the Bugs tree and the Testing view. */
export class CheckResults implements vscode.Disposable {
  private readonly results = new Map<string, CheckResult[]>();
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;

  get(dir: string): readonly CheckResult[] {
    return this.results.get(dir) ?? [];
  }

  start(dir: string): void {
    this.results.set(dir, []);
    this.changed.fire(dir);
  }

  add(dir: string, result: CheckResult): void {
    this.results.set(dir, [...this.get(dir), result]);
    this.changed.fire(dir);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

const MAX_LISTED = 20;

function listed(title: string, items: readonly string[] | undefined): string[] {
  if (!items?.length) return [];
  const shown = items.slice(0, MAX_LISTED).map((i) => `- \`${i}\``);
  return [`**${title}** (${items.length})`, ...shown, ...(items.length > MAX_LISTED ? [`- … ${items.length - MAX_LISTED} more`] : []), ''];
}

/** A check's verdict and evidence as Markdown: the tooltip in short, the details document in full. */
export function describeCheck(result: CheckResult, full: boolean): string {
  const e: CheckEvidence = result.evidence;
  const lines = [`### ${result.name}: ${result.passed ? 'passed' : 'failed'} (${(result.durationMs / 1000).toFixed(1)} s)`, '', result.detail, ''];
  lines.push(...listed('Files', e.files), ...listed('Failing', e.failing), ...listed('Passing', e.passing));
  for (const f of e.perFile ?? []) lines.push(`- \`${f.file}\`: ${f.error ? `error: ${f.error}` : `${f.turnedPassing.length} test(s) turn back to passing`}`);
  if (full && e.statuses) lines.push('', '**Parsed test map**', '', '```json', JSON.stringify(e.statuses, null, 2), '```');
  if (full && e.outputTail) lines.push('', '**Output (end)**', '', '```', e.outputTail, '```');
  return lines.join('\n');
}
