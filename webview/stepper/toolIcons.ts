/** The codicon shown for a tool in the timeline; SWE-agent, OpenHands and mini-swe-agent names. */
const TOOL_ICONS: ReadonlyArray<[RegExp, string]> = [
  [/^(bash|run|execute_bash|cmd_run|shell|run_ipython|ipython)$/, 'terminal'],
  [/^(open|goto|scroll_up|scroll_down|read|view|file_viewer)$/, 'go-to-file'],
  [/^(create|write|new_file)$/, 'new-file'],
  [/^(edit|str_replace_editor|str_replace|insert|edit_file|replace|linting_edit)$/, 'edit'],
  [/^(search_dir|search_file|find_file|grep|rg|search)$/, 'search'],
  [/^(submit|finish)$/, 'pass'],
  [/^(think|message)$/, 'comment'],
  [/^(browse|browser)$/, 'globe'],
  [/^(definition|references|hover|lsp)/, 'symbol-method'],
];

export function toolIcon(tool: string | null): string {
  if (tool === null) return 'question';
  return TOOL_ICONS.find(([pattern]) => pattern.test(tool))?.[1] ?? 'tools';
}
