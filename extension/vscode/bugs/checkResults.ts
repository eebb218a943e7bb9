import * as vscode from 'vscode';
import { z } from 'zod';
import { CHECK_NAMES, type CheckEvidence, type CheckResult } from '../../core/bugs/consistencyChecks';
import { TEST_STATUSES } from '../../core/reward/testStatus';

const STATE_KEY = 'sweWorkbench.bugs.checkResults';

const StoredCheckSchema = z.object({
  name: z.enum(CHECK_NAMES),
  passed: z.boolean(),
  detail: z.string(),
  durationMs: z.number(),
  evidence: z.object({
    files: z.array(z.string()).optional(),
    statuses: z.record(z.string(), z.enum(TEST_STATUSES)).optional(),
    failing: z.array(z.string()).optional(),
    passing: z.array(z.string()).optional(),
    perFile: z.array(z.object({ file: z.string(), turnedPassing: z.array(z.string()), durationMs: z.number(), error: z.string().optional() })).optional(),
    outputTail: z.string().optional(),
  }),
});
const StoredRunsSchema = z.record(z.string(), z.object({ results: z.array(StoredCheckSchema), stopped: z.string().optional() }));
type StoredRuns = z.infer<typeof StoredRunsSchema>;

/**
 * The latest check results of each bug folder, shared by the Bugs tree and the Testing view.
 * They are kept in the workspace's state: a run takes minutes, and a window reload must not
 * lose what it found. State a newer or older version wrote differently is dropped.
 */
export class CheckResults implements vscode.Disposable {
  private readonly runs: StoredRuns;
  private readonly changed = new vscode.EventEmitter<string>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: vscode.Memento) {
    const stored = StoredRunsSchema.safeParse(state.get(STATE_KEY));
    this.runs = stored.success ? stored.data : {};
  }

  get(dir: string): readonly CheckResult[] {
    return this.runs[dir]?.results ?? [];
  }

  /** Why the last run ended before its seven verdicts (cancelled, or a file it could not read). */
  stopReason(dir: string): string | undefined {
    return this.runs[dir]?.stopped;
  }

  start(dir: string): void {
    this.update(dir, { results: [] });
  }

  stop(dir: string, reason: string): void {
    this.update(dir, { results: [...this.get(dir)], stopped: reason });
  }

  add(dir: string, result: CheckResult): void {
    this.update(dir, { results: [...this.get(dir), result] });
  }

  private update(dir: string, run: StoredRuns[string]): void {
    this.runs[dir] = run;
    void this.state.update(STATE_KEY, this.runs);
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
