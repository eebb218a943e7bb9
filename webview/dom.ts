/** Builds an element whose text is set as text: trajectory data never reaches innerHTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { className?: string; text?: string; attrs?: Record<string, string> } = {},
  children: ReadonlyArray<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function codicon(name: string, label?: string): HTMLSpanElement {
  const icon = el('span', { className: `codicon codicon-${name}` });
  if (label) {
    icon.setAttribute('role', 'img');
    icon.setAttribute('aria-label', label);
    icon.title = label;
  } else icon.setAttribute('aria-hidden', 'true');
  return icon;
}

/** Replaces the whole view with an error that says what failed; never a blank panel. */
export function renderFatal(root: HTMLElement, title: string, message: string): void {
  root.setAttribute('aria-busy', 'false');
  root.replaceChildren(
    el('section', { className: 'load-error', attrs: { role: 'alert' } }, [el('h1', { text: title }), el('pre', { className: 'error-message', text: message })]),
  );
}
