import type { Action } from './model';

/**
 * What an action does, whatever the scaffold called its tool: SWE-agent's `str_replace_editor
 * view` reads a file although its tool is the editor, OpenHands' `run` runs a command. The
 * stepper's icons, the output-error rule and the compare view's alignment read this one answer.
 * A family names its own tools' kinds (`ScaffoldFamily.toolKinds`, registered when the program
 * installs it); the patterns here are the tool names no one family owns.
 */
const ACTION_KINDS = ['run', 'view', 'edit', 'create', 'search', 'submit', 'think', 'browse', 'lsp', 'other', 'unparsed'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** A tool's kind, or `editor`: a tool whose `command` argument says (`view`, `create`, `str_replace`...). */
export type ToolKind = ActionKind | 'editor';

const BY_TOOL: ReadonlyArray<[RegExp, ToolKind]> = [
  [/^(bash|shell|ipython|python)$/, 'run'],
  [/^(view|file_viewer|read_file|cat)$/, 'view'],
  [/^(write|new_file|write_file)$/, 'create'],
  [/^(str_replace|insert|edit_file|replace|apply_patch)$/, 'edit'],
  [/^(grep|rg|find)$/, 'search'],
  [/^(browser)$/, 'browse'],
  // Submitting, as the frameworks no one family owns name it (SkyRL's `submit_patch`; `finish` as OpenHands and R2E-Gym).
  [/^(submit|finish|submit_patch)$/, 'submit'],
  [/^(definition|references|hover|lsp)/, 'lsp'],
  // Editors of more than one framework (Anthropic's, and one SkyRL's environments name).
  [/^(edit_file_tool|str_replace_based_edit_tool)$/, 'editor'],
];

const contributed = new Map<string, ToolKind>();

/** A family's tools and their kinds; two families naming one tool must agree on its kind. */
export function registerToolKinds(kinds: Readonly<Record<string, ToolKind>>): void {
  for (const [tool, kind] of Object.entries(kinds)) {
    const known = contributed.get(tool);
    if (known !== undefined && known !== kind) throw new Error(`tool '${tool}' is registered as ${known} and as ${kind}`);
    contributed.set(tool, kind);
  }
}

const replyTools = new Map<string, ReadonlySet<string>>();

/** The tools whose call in a file of `format` is the model's reply text, not an action (OpenHands' `message`). */
export function registerReplyTools(format: string, tools: readonly string[]): void {
  replyTools.set(format, new Set([...(replyTools.get(format) ?? []), ...tools]));
}

/** Whether `action`, read from a file of `format`, is the model's reply text rather than a tool call. */
export function isReplyText(format: string, action: Pick<Action, 'tool'>): boolean {
  return action.tool === null || (replyTools.get(format)?.has(action.tool) ?? false);
}

const submitters: Array<(action: Pick<Action, 'tool' | 'args' | 'raw'>) => boolean> = [];

/** A family's own way of submitting besides a tool of kind `submit` (mini-swe-agent's marker, echoed from bash). */
export function registerSubmits(submits: (action: Pick<Action, 'tool' | 'args' | 'raw'>) => boolean): void {
  submitters.push(submits);
}

/**
 * Whether the action hands in the run's work: the one answer of the rollouts' entry step, the compare
 * view's alignment and the stepper. A tool of kind `submit` (by its name, or by the command's first
 * word: `submit` typed as a command), or a family's own way (`registerSubmits`).
 */
export function submits(action: Pick<Action, 'tool' | 'args' | 'raw'>): boolean {
  if (actionKind(action) === 'submit') return true;
  const first = action.raw.trim().split(/\s/, 1)[0] ?? '';
  if (first !== '' && first !== action.tool && kindOfTool(first) === 'submit') return true;
  return submitters.some((s) => s(action));
}

const EDITOR_COMMANDS: Readonly<Record<string, ActionKind>> = {
  view: 'view',
  create: 'create',
  str_replace: 'edit',
  insert: 'edit',
  undo_edit: 'edit',
  edit: 'edit',
};

function kindOfTool(tool: string): ToolKind {
  return contributed.get(tool) ?? BY_TOOL.find(([pattern]) => pattern.test(tool))?.[1] ?? 'other';
}

export function actionKind(action: Pick<Action, 'tool' | 'args'>): ActionKind {
  const tool = action.tool;
  if (tool === null) return 'unparsed';
  const kind = kindOfTool(tool);
  if (kind === 'editor') {
    const command = action.args.command;
    return (typeof command === 'string' ? EDITOR_COMMANDS[command] : undefined) ?? 'edit';
  }
  return kind;
}

/** Whether the action ran a program, so that its output may show the program failing. */
export function runsCommand(action: Pick<Action, 'tool' | 'args'>): boolean {
  return actionKind(action) === 'run';
}
