/**
 * How a step is named in one line: the CLI's `inspect` table and the stepper's timeline read
 * this rule (when a step counts as an error is `stepErrors.ts`).
 */
import type { Step } from './model';

/** Characters of a step's one-line label, the ellipsis included. */
export const STEP_LABEL_WIDTH = 80;

/** `text` on one line, cut to `width` characters with an ellipsis. */
export function oneLine(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= width ? flat : flat.slice(0, width - 1) + '…';
}

/** A system or user turn an importer kept as a step that runs nothing (ATIF's, after the first agent step). */
export function messageRole(step: Partial<Pick<Step, 'flags'>>): 'system' | 'user' | undefined {
  if (step.flags?.includes('atif-system')) return 'system';
  if (step.flags?.includes('atif-user')) return 'user';
  return undefined;
}

/**
 * The action in one line: a command as written (its first line); a structured call (tool-call
 * JSON, an XML function call) as its command, or its arguments as `key=value`.
 */
export function stepLabel(step: Pick<Step, 'action'> & Partial<Pick<Step, 'flags' | 'thought'>>, width = STEP_LABEL_WIDTH): string {
  const role = messageRole(step);
  if (role) return oneLine(`${role} message: ${step.thought ?? ''}`, width);
  const text = actionText(step.action);
  const firstLine = text.split('\n').find((line) => line.trim() !== '') ?? '';
  return oneLine(firstLine || step.action.tool || '(no action)', width);
}

/** The action in full: a command as written; a structured call (tool-call JSON, an XML function call) as its command, or its arguments as `key=value`. */
export function actionText(action: Pick<Step['action'], 'raw' | 'args' | 'tool'>): string {
  const { raw, args, tool } = action;
  // A call kept as its arguments' JSON (ATIF's) reads as structured too; with none, it is its tool.
  const asArguments = tool !== null && raw === JSON.stringify(args);
  if (asArguments && Object.keys(args).length === 0) return tool;
  const structured = (/^\s*(\{"name"|<function=)/.test(raw) || asArguments) && Object.keys(args).length > 0;
  if (structured) {
    // A shell call's command line as written (R2E-Gym's execute_bash names it `cmd`), without a `cmd=` before it.
    const command = args.command ?? args.cmd;
    if (typeof command === 'string' && Object.keys(args).length === 1) return command;
    return Object.entries(args)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
  }
  return raw.trim() || tool || '(no action)';
}

/** How many model calls a step stands for, in words (ATIF v1.7's `llm_call_count`): none is a step no model made. */
export function llmCallsText(n: number): string {
  return n === 0 ? 'no LLM call (deterministic)' : n === 1 ? '1 LLM call' : `${n} LLM calls (metrics summed)`;
}
