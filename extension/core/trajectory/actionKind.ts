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

/** The words of mini-swe-agent's command that ends a run and submits (1.x and 0.x). */
export const MINI_SUBMIT_MARKERS = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;

const EDITOR_COMMANDS: Readonly<Record<string, ActionKind>> = {
  view: 'view',
  create: 'create',
  str_replace: 'edit',
  insert: 'edit',
  undo_edit: 'edit',
  edit: 'edit',
};

export function actionKind(action: Pick<Action, 'tool' | 'args'>): ActionKind {
  const tool = action.tool;
  if (tool === null) return 'unparsed';
  const kind = contributed.get(tool) ?? BY_TOOL.find(([pattern]) => pattern.test(tool))?.[1] ?? 'other';
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
