/** The codicon for what an action does (core/trajectory/actionKind), e.g. an editor's `view` reads, so it gets the file icon. */
const KIND_ICONS: Readonly<Record<string, string>> = {
  run: 'terminal',
  view: 'go-to-file',
  edit: 'edit',
  create: 'new-file',
  search: 'search',
  submit: 'pass',
  think: 'comment',
  browse: 'globe',
  lsp: 'symbol-method',
  other: 'tools',
  unparsed: 'question',
};

export function kindIcon(kind: string): string {
  return KIND_ICONS[kind] ?? 'tools';
}
