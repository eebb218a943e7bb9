import type { StepSummary } from '../../extension/protocol/stepper';
import { codicon, el } from '../dom';
import { toolIcon } from './toolIcons';

/** The list of steps; rows are built once and only shown, hidden or selected afterwards. */
export class TimelineView {
  readonly element: HTMLElement;
  private rows: HTMLElement[] = [];

  constructor(onSelect: (index: number) => void) {
    this.element = el('nav', { className: 'timeline', attrs: { role: 'listbox', 'aria-label': 'Steps', tabindex: '0', id: 'timeline' } });
    this.element.addEventListener('click', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('.step-row');
      if (row?.dataset.index) onSelect(Number(row.dataset.index));
    });
  }

  append(summaries: readonly StepSummary[]): void {
    const rows = summaries.map((s) => {
      const marks: Node[] = [];
      if (s.error) marks.push(codicon('error', 'error'));
      if (s.diverged) marks.push(codicon('git-compare', 'diverged from the recording'));
      const row = el('div', { className: `step-row${s.error ? ' has-error' : ''}${s.diverged ? ' diverged' : ''}`, attrs: { role: 'option', 'aria-selected': 'false', 'data-index': String(s.index), title: s.label } }, [
        codicon(toolIcon(s.tool), s.tool ?? 'unparsed'),
        el('span', { className: 'step-number', text: String(s.index + 1) }),
        el('span', { className: 'step-label', text: s.label }),
        ...marks,
      ]);
      return row;
    });
    this.rows.push(...rows);
    this.element.append(...rows);
  }

  showOnly(visible: ReadonlySet<number>): void {
    for (const row of this.rows) row.hidden = !visible.has(Number(row.dataset.index));
  }

  select(index: number): void {
    for (const row of this.element.querySelectorAll('[aria-selected="true"]')) row.setAttribute('aria-selected', 'false');
    const row = this.rows[index];
    if (!row) return;
    row.setAttribute('aria-selected', 'true');
    // At the next frame, whose layout runs anyway: scrolling now would force a layout of its own
    // before the step's detail is even in the page (measured: about 20 ms of a first open).
    requestAnimationFrame(() => row.scrollIntoView({ block: 'nearest' }));
  }
}
