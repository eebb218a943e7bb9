import type { Host } from '../host';
import { el } from '../dom';
import { patchLoad, patchOpenDiff, type PatchContent, type PatchSection } from '../../extension/protocol/patch';
import { renderPatch, type PatchLayout } from './patchHtml';

interface PatchUiState {
  layout: PatchLayout;
}

const LAYOUT_LABELS: Record<PatchLayout, string> = { 'side-by-side': 'Side by side', 'line-by-line': 'Line by line' };

/** The patch view: each section's file list and its diff2html rendering, in the layout chosen. */
export class PatchView {
  private content: PatchContent | undefined;
  private layout: PatchLayout;
  private readonly body = el('div', { className: 'patch-body', attrs: { id: 'patch-body' } });
  private readonly toggle = el('vscode-button', { attrs: { id: 'layout-toggle', secondary: '' } });

  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {
    const saved = host.getState() as Partial<PatchUiState> | undefined;
    this.layout = saved?.layout === 'line-by-line' ? 'line-by-line' : 'side-by-side';
    this.toggle.addEventListener('click', () => this.setLayout(this.layout === 'side-by-side' ? 'line-by-line' : 'side-by-side'));
  }

  async start(): Promise<void> {
    this.content = await this.host.request(patchLoad, {});
    const header = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [
        el('h1', { text: this.content.title, attrs: { id: 'patch-title' } }),
        el('span', { className: 'facts', text: this.content.origin }),
      ]),
      el('div', { className: 'controls' }, [this.toggle]),
    ]);
    this.root.replaceChildren(header, this.body);
    this.render();
    this.root.setAttribute('aria-busy', 'false');
  }

  private setLayout(layout: PatchLayout): void {
    this.layout = layout;
    this.host.setState({ layout } satisfies PatchUiState);
    this.render();
  }

  private render(): void {
    if (!this.content) return;
    this.toggle.textContent = `Show ${LAYOUT_LABELS[this.layout === 'side-by-side' ? 'line-by-line' : 'side-by-side'].toLowerCase()}`;
    this.body.dataset.layout = this.layout;
    this.body.replaceChildren(...this.content.sections.map((s, i) => this.section(s, i)));
  }

  private section(section: PatchSection, index: number): HTMLElement {
    const heading = el('h2', { text: section.label });
    const wrapper = el('section', { className: 'patch-section', attrs: { 'data-section': String(index) } }, [heading]);
    const rendered = section.problem === null ? renderPatch(section.diff, this.layout) : { kind: 'problem' as const, message: section.problem };
    if (rendered.kind === 'problem') {
      wrapper.append(el('p', { className: 'patch-problem', text: rendered.message, attrs: { role: 'alert' } }));
      return wrapper;
    }
    const files = el(
      'ul',
      { className: 'patch-files', attrs: { 'aria-label': `Files changed in ${section.label}` } },
      rendered.files.map((f) => {
        const open = el('button', { className: 'open-diff', text: f.name, attrs: { title: 'Open in the diff editor' } });
        open.addEventListener('click', () => void this.host.request(patchOpenDiff, { section: index, file: f.name }));
        return el('li', {}, [open, el('span', { className: 'added', text: `+${f.added}` }), el('span', { className: 'deleted', text: `-${f.deleted}` })]);
      }),
    );
    const diff = el('div', { className: 'patch-diff' });
    // diff2html escapes all patch text (test/unit/webview/patchHtml.test.ts); the CSP runs no inline script.
    diff.innerHTML = rendered.html;
    wrapper.append(files, diff);
    return wrapper;
  }
}
