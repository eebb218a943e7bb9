import type { Action } from './model';

/**
 * What an action does, whatever the scaffold called its tool: SWE-agent's `str_replace_editor
 * view` reads a file although its tool is the editor, OpenHands' `run` runs a command. The
 * stepper's icons, the output-error rule and the compare view's alignment read this one answer.
 */
const ACTION_KINDS = ['run', 'view', 'edit', 'create', 'search', 'submit', 'think', 'browse', 'lsp', 'other', 'unparsed'] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

const BY_TOOL: ReadonlyArray<[RegExp, ActionKind]> = [
  [/^(bash|run|execute_bash|cmd_run|shell|run_ipython|ipython|python|execute_ipython_cell)$/, 'run'],
  [/^(open|goto|scroll_up|scroll_down|read|view|file_viewer|read_file|cat)$/, 'view'],
  [/^(create|write|new_file|write_file)$/, 'create'],
  [/^(edit|str_replace|insert|edit_file|replace|linting_edit|apply_patch)$/, 'edit'],
  [/^(search_dir|search_file|find_file|grep|rg|search|find)$/, 'search'],
  [/^(submit|finish)$/, 'submit'],
  [/^(think|message)$/, 'think'],
  [/^(browse|browser)$/, 'browse'],
  [/^(definition|references|hover|lsp)/, 'lsp'],
];

/** The words of mini-swe-agent's command that ends a run and submits (1.x and 0.x). */
export const MINI_SUBMIT_MARKERS = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;

/** The editor tools that take a `command` argument (SWE-agent edit_anthropic, OpenHands, R2E-Gym). */
const EDITOR_TOOLS = /^(str_replace_editor|file_editor|edit_file_tool|str_replace_based_edit_tool)$/;
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
  if (EDITOR_TOOLS.test(tool)) {
    const command = action.args.command;
    return (typeof command === 'string' ? EDITOR_COMMANDS[command] : undefined) ?? 'edit';
  }
  return BY_TOOL.find(([pattern]) => pattern.test(tool))?.[1] ?? 'other';
}

/** Whether the action ran a program, so that its output may show the program failing. */
export function runsCommand(action: Pick<Action, 'tool' | 'args'>): boolean {
  return actionKind(action) === 'run';
}
