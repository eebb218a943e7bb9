/**
 * How a step is named in one line and when it counts as an error: the CLI's `inspect` table,
 * the stepper's timeline and the rollout a table opens on all read these rules.
 */
import type { Step } from './model';

/** Characters of a step's one-line label, the ellipsis included. */
export const STEP_LABEL_WIDTH = 80;

/** Flags (set by importers and sessions) that make a step an error. */
const ERROR_FLAGS = new Set(['lint-rejected', 'timeout', 'error', 'format-error', 'cancelled']);

/** Output that shows a command failed even when the recording kept no exit code (SWE-agent's `.traj` keeps none). */
const ERROR_OUTPUT: readonly [mark: string, pattern: RegExp][] = [
  ['traceback', /^Traceback \(most recent call last\):$/m],
  ['command-not-found', /^(?:\/bin\/)?(?:ba|z|da)?sh: (?:(?:line )?\d+: )?\S+: (?:command )?not found$/m],
];

/** `text` on one line, cut to `width` characters with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : flat.slice(0, width - 1) + '…';
}

/**
 * The action in one line: a command as written (its first line); a structured call (tool-call
 * JSON, an XML function call) as its command, or its arguments as `key=value`.
 */
export function stepLabel(step: Pick<Step, 'action'>, width = STEP_LABEL_WIDTH): string {
  const { raw, args, tool } = step.action;
  const structured = /^\s*(\{"name"|<function=)/.test(raw) && Object.keys(args).length > 0;
  if (structured) {
    const command = args.command;
    if (typeof command === 'string' && Object.keys(args).length === 1) return oneLine(command, width);
    return oneLine(Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' '), width);
  }
  const firstLine = raw.split('\n').find((line) => line.trim() !== '') ?? '';
  return oneLine(firstLine || tool || '(no action)', width);
}

/** Why a step counts as an error: a format error, an error flag, a non-zero exit code, or failing output. */
export function stepErrors(step: Pick<Step, 'formatError' | 'flags' | 'exitCode' | 'observation'>): string[] {
  const marks = new Set<string>();
  if (step.formatError !== undefined) marks.add('format-error');
  for (const flag of step.flags ?? []) if (ERROR_FLAGS.has(flag)) marks.add(flag);
  if (step.exitCode !== undefined && step.exitCode !== 0) marks.add(`exit ${step.exitCode}`);
  for (const [mark, pattern] of ERROR_OUTPUT) if (pattern.test(step.observation)) marks.add(mark);
  return [...marks];
}

export function stepHasError(step: Pick<Step, 'formatError' | 'flags' | 'exitCode' | 'observation'>): boolean {
  return stepErrors(step).length > 0;
}
