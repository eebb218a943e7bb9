import * as vscode from 'vscode';
import type { Step } from '../../core/trajectory/model';

/**
 * The agent's edit tool rejects an edit that adds flake8 errors and lists them as `- F821
 * undefined name 'x'` without line numbers (SWE-agent's wording); the edit itself names the
 * lines it tried to replace, so each error is placed on those lines of the edited file.
 */
export function lintProblems(step: Step, editedFile: string | undefined): { file: string; diagnostics: vscode.Diagnostic[] } | undefined {
  if (!step.flags?.includes('lint-rejected') || editedFile === undefined) return undefined;
  const start = lineArgument(step.action.args.start_line) ?? 1;
  const end = lineArgument(step.action.args.end_line) ?? start;
  const range = new vscode.Range(start - 1, 0, Math.max(start, end) - 1, Number.MAX_SAFE_INTEGER);
  const diagnostics = [...step.observation.matchAll(/^- ([A-Z]\d{3}) (.+)$/gm)].map(([, code, message]) => {
    const diagnostic = new vscode.Diagnostic(range, `${message} (edit of step ${step.index + 1} rejected)`, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'flake8';
    diagnostic.code = code;
    return diagnostic;
  });
  return diagnostics.length > 0 ? { file: editedFile, diagnostics } : undefined;
}

function lineArgument(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;
}
