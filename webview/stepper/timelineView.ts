import type { BranchStrip, StepSummary } from '../../extension/protocol/stepper';
import { codicon, el } from '../dom';
import { highlighted } from '../format';
import { kindIcon } from './toolIcons';

/** The list of steps; rows are built once and only shown, hidden, selected or highlighted afterwards. */
export class TimelineView {
  readonly element: HTMLElement;
  private rows: HTMLElement[] = [];
  private summaries: StepSummary[] = [];
  private query = '';
  /** Says what filtered every step out, in place of the rows. */
  private readonly emptyText = el('p', { attrs: { id: 'timeline-empty-reason' } });
  private readonly clear = el('vscode-button', { text: 'Clear filters', attrs: { id: 'clear-filters', secondary: '' } });
  private readonly empty = el('div', { className: 'timeline-empty', attrs: { id: 'timeline-empty', role: 'status', hidden: '' } }, [
    this.emptyText,
    this.clear,
  ]);

  /** The branch run's values (none: no run beside the recording): a line above the rows, a cell on each branched step's row. */
  private strip: BranchStrip | null = null;
  private readonly stripLine = el('div', { className: 'branch-strip', attrs: { id: 'branch-strip', role: 'status', hidden: '' } });

  constructor(onSelect: (index: number) => void, onClear: () => void) {
    this.clear.addEventListener('click', onClear);
    this.element = el('nav', { className: 'timeline', attrs: { role: 'listbox', 'aria-label': 'Steps', tabindex: '0', id: 'timeline' } }, [
      this.stripLine,
      this.empty,
    ]);
    this.element.addEventListener('click', (event) => {
      const row = (event.target as Element).closest<HTMLElement>('.step-row');
      if (row?.dataset.index) onSelect(Number(row.dataset.index));
    });
  }

  append(summaries: readonly StepSummary[]): void {
    const rows = summaries.map((s) => {
      const marks: Node[] = [];
      if (s.error) marks.push(codicon('error', `failed: ${s.errors.join('; ')}`));
      if (s.diverged) marks.push(codicon('git-compare', 'diverged from the recording'));
      // The hover holds the whole action, not the cut label, and why the step failed.
      const title = [`${s.index + 1}. ${s.fullLabel}`, ...s.errors.map((e) => `failed: ${e}`)].join('\n');
      return el(
        'div',
        {
          className: `step-row${s.error ? ' has-error' : ''}${s.diverged ? ' diverged' : ''}`,
          attrs: { role: 'option', 'aria-selected': 'false', 'data-index': String(s.index), 'data-kind': s.kind, title },
        },
        [
          codicon(kindIcon(s.kind), s.kind),
          el('span', { className: 'step-number', text: String(s.index + 1) }),
          el('span', { className: 'step-label' }, highlighted(s.label, this.query)),
          ...marks,
        ],
      );
    });
    this.summaries.push(...summaries);
    for (const row of rows) this.valueCell(row);
    this.rows.push(...rows);
    this.element.append(...rows);
  }

  /** Shows a branch run's values: V, its interval, n and the masked count on each branched step's row, the critical step marked. */
  showValues(strip: BranchStrip | null): void {
    this.strip = strip;
    for (const row of this.rows) this.valueCell(row);
    this.stripLine.hidden = strip === null;
    if (!strip) {
      this.stripLine.replaceChildren();
      return;
    }
    const start = strip.cells.find((c) => c.afterStep === 0);
    this.stripLine.replaceChildren(
      el('span', { text: `Branch values (${strip.folder})`, attrs: { title: strip.folder } }),
      ...(start ? [el('span', { className: 'branch-value', text: `start: ${cellText(start)}`, attrs: { title: start.title, 'data-after-step': '0' } })] : []),
      el('span', { className: 'branch-critical-text', text: strip.critical }),
    );
  }

  /** The row's value cell, made again from the strip (removed when the step was not branched). */
  private valueCell(row: HTMLElement): void {
    row.querySelector('.branch-value')?.remove();
    row.classList.remove('critical-step');
    const afterStep = Number(row.dataset.index) + 1;
    const cell = this.strip?.cells.find((c) => c.afterStep === afterStep);
    if (!cell) return;
    if (cell.critical) row.classList.add('critical-step');
    row.append(
      el(
        'span',
        { className: `branch-value${cell.value === 'unknown' ? ' unknown' : ''}`, attrs: { title: cell.title, 'data-after-step': String(afterStep) } },
        [...(cell.critical ? [codicon('arrow-down', 'critical step: V falls most across this step')] : []), el('span', { text: cellText(cell) })],
      ),
    );
  }

  /** Marks `query` in every label ('' clears the marks). */
  highlight(query: string): void {
    if (query === this.query) return;
    this.query = query;
    this.rows.forEach((row, i) => row.querySelector('.step-label')?.replaceChildren(...highlighted(this.summaries[i]!.label, query)));
  }

  /** Shows the rows in `visible`; with none, `emptyReason` says why in their place. */
  showOnly(visible: ReadonlySet<number>, emptyReason = ''): void {
    for (const row of this.rows) row.hidden = !visible.has(Number(row.dataset.index));
    this.empty.hidden = visible.size > 0 || this.rows.length === 0;
    this.emptyText.textContent = visible.size > 0 ? '' : emptyReason;
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

function cellText(cell: BranchStrip['cells'][number]): string {
  return `V ${cell.value} ${cell.interval} n ${cell.n}${cell.masked > 0 ? ` · ${cell.masked} masked` : ''}`;
}
