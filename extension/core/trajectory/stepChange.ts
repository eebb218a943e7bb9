import { formatPatch, structuredPatch } from 'diff';
import { actionKind } from './actionKind';
import type { Step, Trajectory } from './model';

/**
 * The diff a step's Show Diff opens, and where it comes from: the workspace diff the recording
 * kept, the run's final patch (a submit step), or the change an edit action made, rebuilt from
 * its own arguments (old and new text, a created file's text). When none of these exists the
 * answer says why, in words a person can act on; it is never silently nothing.
 */
export type StepChange =
  | { kind: 'recorded'; diff: string; title: string }
  | { kind: 'submission'; diff: string; title: string }
  | { kind: 'edit'; diff: string; title: string; note: string }
  | { kind: 'none'; reason: string };

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The path as the repository knows it: without the container's repository root, without a leading `./`. */
export function repoRelative(file: string, repoPath: string | undefined): string {
  const root = repoPath?.replace(/\/+$/, '');
  if (root && (file === root || file.startsWith(`${root}/`))) return file.slice(root.length + 1);
  return file.replace(/^\.\//, '').replace(/^\/+/, '');
}

/** The line where `needle` starts in a `cat -n` snippet (SWE-agent, OpenHands), when the observation shows it. */
function snippetLine(observation: string, needle: string): number | undefined {
  const first = needle.split('\n').find((l) => l.trim() !== '');
  if (first === undefined) return undefined;
  for (const line of observation.split(/\r?\n/)) {
    const m = /^\s*(\d+)\t(.*)$/.exec(line);
    if (m && m[2]!.trimEnd() === first.trimEnd()) return Number(m[1]) - needle.split('\n').findIndex((l) => l.trim() !== '');
  }
  return undefined;
}

/** A unified diff of `before` -> `after` in `file`, its hunks moved to start at line `at` when known. */
function editDiff(file: string, before: string, after: string, at: number | undefined, created: boolean): string {
  const withEnd = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
  const patch = structuredPatch(created ? '/dev/null' : `a/${file}`, `b/${file}`, withEnd(before), withEnd(after), undefined, undefined, { context: 3 });
  const shift = at !== undefined && at > 1 ? at - 1 : 0;
  for (const h of patch.hunks) {
    if (!created) h.oldStart += shift;
    h.newStart += shift;
  }
  const body = formatPatch(patch)
    .split('\n')
    .filter((l) => !l.startsWith('=====') && !l.startsWith('Index:'));
  return `diff --git a/${file} b/${file}\n${created ? 'new file mode 100644\n' : ''}${body.join('\n').replace(/^\n+/, '')}`;
}

function editChange(step: Step, repoPath: string | undefined): StepChange | undefined {
  const a = step.action.args;
  const kind = actionKind(step.action);
  const rawPath =
    text(a.path) ?? text(a.filename) ?? text(a.file_name) ?? text(a.file) ?? (typeof step.state?.openFile === 'string' ? step.state.openFile : undefined);
  if (rawPath === undefined || (kind !== 'edit' && kind !== 'create')) return undefined;
  const file = repoRelative(rawPath, repoPath);
  const title = `step ${step.index + 1}: ${file}`;
  const note = `Rebuilt from the step's ${step.action.tool} arguments: the recording keeps no workspace diff. Line numbers are the ones the observation shows, else counted from 1.`;
  const fileText = text(a.file_text) ?? text(a.content) ?? text(a.text);
  if (kind === 'create' && fileText !== undefined) return { kind: 'edit', diff: editDiff(file, '', fileText, undefined, true), title, note };
  const oldText = text(a.old_str) ?? text(a.search);
  const newText = text(a.new_str) ?? text(a.replace) ?? text(a.replacement_text);
  if (oldText !== undefined && newText !== undefined)
    return { kind: 'edit', diff: editDiff(file, oldText, newText, snippetLine(step.observation, newText), false), title, note };
  const insertLine = typeof a.insert_line === 'number' ? a.insert_line : typeof a.line === 'number' ? a.line : undefined;
  if (insertLine !== undefined && newText !== undefined) {
    const diff = editDiff(file, '', newText, undefined, false).replace(
      /^@@ -1,0 \+1,(\d+) @@/m,
      (_m, n: string) => `@@ -${insertLine},0 +${insertLine + 1},${n} @@`,
    );
    return { kind: 'edit', diff, title, note };
  }
  return undefined;
}

function why(step: Step): string {
  const kind = actionKind(step.action);
  const n = step.index + 1;
  if (kind === 'edit' || kind === 'create')
    return `Step ${n} records no workspace diff, and its ${step.action.tool} arguments do not hold the old text (a line-range edit names lines, not what they held), so its change cannot be rebuilt. Replay to Here shows the workspace after it.`;
  if (kind === 'run')
    return `Step ${n} ran a command and the recording keeps no workspace diff; what a command changes cannot be read from its text. Replay to Here shows the workspace after it.`;
  return `Step ${n} (${kind === 'unparsed' ? 'an unparsed action' : `a ${kind} action`}) changes no file, and the recording keeps no workspace diff.`;
}

export function stepChange(t: Pick<Trajectory, 'steps' | 'outcome' | 'task'>, index: number): StepChange {
  const step = t.steps[index];
  if (!step) return { kind: 'none', reason: `There is no step ${index + 1}: the trajectory has ${t.steps.length}.` };
  if (step.state?.diff) return { kind: 'recorded', diff: step.state.diff, title: `step ${index + 1}` };
  if (actionKind(step.action) === 'submit') {
    const submission = t.outcome.submission;
    if (submission && submission.trim() !== '') return { kind: 'submission', diff: submission, title: 'final patch' };
    return { kind: 'none', reason: `Step ${index + 1} submitted, but the file records no submitted patch.` };
  }
  return editChange(step, t.task.repoPath) ?? { kind: 'none', reason: why(step) };
}
