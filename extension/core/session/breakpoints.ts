/**
 * Where a running session stops by itself. Some breakpoints look at the action before it runs
 * (so the person can still edit it), others at what running it produced.
 */
import type { Step } from '../trajectory/model';
import type { NextAction } from './actionSources';

export type Breakpoint =
  | { kind: 'step'; index: number }
  | { kind: 'tool'; tool: string }
  | { kind: 'edit-file'; path: string }
  | { kind: 'format-error' }
  | { kind: 'exit-code' }
  | { kind: 'lint-rejected' }
  | { kind: 'divergence' };

/** The tools that change a file, and the argument naming it when it is not the open file. */
const EDIT_TOOLS: Record<string, string | undefined> = { edit: undefined, insert: undefined, str_replace_editor: 'path', create: 'filename' };

/** SWE-agent's linted edit rejects an edit that adds flake8 errors with this sentence. */
const LINT_REJECTED = 'Your proposed edit has introduced new syntax error(s)';

export function describeBreakpoint(b: Breakpoint): string {
  switch (b.kind) {
    case 'step':
      return `step ${b.index + 1}`;
    case 'tool':
      return `tool ${b.tool}`;
    case 'edit-file':
      return `edit to ${b.path}`;
    case 'format-error':
      return 'format error';
    case 'exit-code':
      return 'non-zero exit code';
    case 'lint-rejected':
      return 'lint-rejected edit';
    case 'divergence':
      return 'divergence';
  }
}

/** The file an action edits, or undefined when it edits none. */
export function editedFile(next: NextAction, openFile: string | null | undefined): string | undefined {
  const tool = next.action.tool;
  if (tool === null || !(tool in EDIT_TOOLS)) return undefined;
  if (tool === 'str_replace_editor' && next.action.args.command === 'view') return undefined;
  const key = EDIT_TOOLS[tool];
  const named = key === undefined ? undefined : next.action.args[key];
  return typeof named === 'string' ? named : (openFile ?? undefined);
}

function samePath(a: string, b: string): boolean {
  return a === b || a.endsWith(`/${b.replace(/^\.?\//, '')}`) || b.endsWith(`/${a.replace(/^\.?\//, '')}`);
}

/** The breakpoint that stops the session before `next` (step `index`) runs, if any. */
export function breakBefore(breakpoints: readonly Breakpoint[], index: number, next: NextAction, openFile: string | null | undefined): Breakpoint | undefined {
  return breakpoints.find((b) => {
    switch (b.kind) {
      case 'step':
        return b.index === index;
      case 'tool':
        return next.action.tool === b.tool;
      case 'edit-file': {
        const file = editedFile(next, openFile);
        return file !== undefined && samePath(file, b.path);
      }
      case 'format-error':
        return next.formatError !== undefined;
      default:
        return false;
    }
  });
}

/** The breakpoint that stops the session after `step` ran, if any. */
export function breakAfter(breakpoints: readonly Breakpoint[], step: Step, diverged: boolean): Breakpoint | undefined {
  return breakpoints.find((b) => {
    switch (b.kind) {
      case 'exit-code':
        return step.exitCode !== undefined && step.exitCode !== 0;
      case 'lint-rejected':
        return step.flags?.includes('lint-rejected') ?? false;
      case 'divergence':
        return diverged;
      default:
        return false;
    }
  });
}

/** Marks the scaffold reports in an observation. */
export function observationFlags(observation: string, exitCode: number): string[] {
  return exitCode !== 0 && observation.includes(LINT_REJECTED) ? ['lint-rejected'] : [];
}
