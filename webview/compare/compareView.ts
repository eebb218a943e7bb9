import { compareLoad, compareOpenStep, type CompareContent, type CompareRun } from '../../extension/protocol/compare';
import { codicon, el } from '../dom';
import { formatCost, formatCount, formatSeconds, formatTokens, UNKNOWN } from '../format';
import type { Host } from '../host';
import { renderPatch } from '../patch/patchHtml';
import { kindIcon } from '../stepper/toolIcons';
import { errorText } from '../errorText';
import { divergenceSummary } from './divergenceSummary';

/** One fact per run, for the outcomes table: its label and how each run reads. */
const OUTCOME_ROWS: ReadonlyArray<[string, string, (r: CompareRun) => string]> = [
  ['outcome', 'Outcome', (r) => r.outcome],
  ['graded', 'Graded by', (r) => r.gradedBy ?? UNKNOWN],
  ['steps', 'Steps', (r) => String(r.stepCount)],
  ['cost', 'Cost', (r) => formatCost(r.cost)],
  ['tokens', 'Tokens', (r) => formatTokens(r.tokensIn, r.tokensOut)],
  ['calls', 'Calls', (r) => formatCount(r.calls)],
  ['duration', 'Duration', (r) => formatSeconds(r.duration)],
  ['model', 'Model', (r) => r.model ?? UNKNOWN],
  ['format', 'Format', (r) => r.format],
];

/** Two or more runs of one task side by side: outcomes, steps aligned by action, final patches. */
export class CompareView {
  private readonly status = el('span', { className: 'status', attrs: { id: 'compare-status', role: 'status' } });

  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {}

  async start(): Promise<void> {
    const content = await this.host.request(compareLoad, {});
    const header = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [
        el('h1', { text: content.title, attrs: { id: 'compare-title' } }),
        el('span', { className: 'facts', text: divergenceSummary(content), attrs: { id: 'compare-summary' } }),
      ]),
      el('div', { className: 'controls' }, [this.status]),
    ]);
    const body = el('div', { className: 'compare-body', attrs: { id: 'compare-body' } }, [
      ...(content.warning ? [el('p', { className: 'compare-warning', text: content.warning, attrs: { role: 'note', id: 'compare-warning' } })] : []),
      this.section('Outcomes', 'outcomes', this.outcomes(content)),
      this.section(content.branchPoint ? 'Steps from the branch point, aligned by action' : 'Steps, aligned by action', 'steps', this.steps(content)),
      this.section('Final patches', 'patches', this.patches(content)),
    ]);
    this.root.replaceChildren(header, body);
    // From a branch point the view opens on it: the first step after it at the top of the steps.
    if (content.branchPoint) this.root.querySelector('#branch-point')?.scrollIntoView({ block: 'start' });
    this.root.setAttribute('aria-busy', 'false');
  }

  private section(title: string, id: string, body: HTMLElement): HTMLElement {
    return el('section', { attrs: { id: `compare-${id}`, 'aria-label': title } }, [el('h2', { text: title }), body]);
  }

  private head(content: CompareContent, corner: string): HTMLElement {
    return el('thead', {}, [
      el('tr', {}, [
        el('th', { className: 'row-head', text: corner }),
        ...content.runs.map((r) =>
          el('th', { attrs: { title: r.path, scope: 'col' } }, [
            el('span', { className: 'run-name', text: r.label }),
            el('span', { className: 'run-detail', text: r.detail }),
          ]),
        ),
      ]),
    ]);
  }

  private outcomes(content: CompareContent): HTMLElement {
    const rows = OUTCOME_ROWS.map(([id, label, read]) =>
      el('tr', { attrs: { 'data-fact': id } }, [
        el('th', { className: 'row-head', text: label, attrs: { scope: 'row' } }),
        ...content.runs.map((r) => {
          const text = read(r);
          return el('td', { className: text === UNKNOWN ? 'unknown' : '', text, attrs: { title: text } });
        }),
      ]),
    );
    return el('table', { className: 'compare outcomes' }, [this.head(content, ''), el('tbody', {}, rows)]);
  }

  private steps(content: CompareContent): HTMLElement {
    const rows: HTMLElement[] = [];
    const columns = String(content.runs.length + 1);
    const point = content.branchPoint;
    const sharedRows: HTMLElement[] = [];
    if (point && point.sharedRows > 0) {
      const toggle = el('button', {
        className: 'shared-toggle',
        text: `Steps 1–${point.afterStep}, shared up to the branch point: show`,
        attrs: { type: 'button', id: 'shared-prefix-toggle', 'aria-expanded': 'false', 'aria-controls': 'compare-steps' },
      });
      toggle.addEventListener('click', () => {
        const open = toggle.getAttribute('aria-expanded') !== 'true';
        toggle.setAttribute('aria-expanded', String(open));
        toggle.textContent = `Steps 1–${point.afterStep}, shared up to the branch point: ${open ? 'hide' : 'show'}`;
        for (const r of sharedRows) r.hidden = !open;
      });
      rows.push(
        el('tr', { className: 'shared-prefix', attrs: { id: 'shared-prefix' } }, [el('td', { attrs: { colspan: columns } }, [codicon('fold'), ' ', toggle])]),
      );
    }
    content.rows.forEach((row, i) => {
      if (point && i === point.sharedRows) {
        rows.push(
          el('tr', { className: 'branch-point-mark', attrs: { id: 'branch-point' } }, [
            el('td', { attrs: { colspan: columns } }, [
              codicon('git-branch'),
              point.afterStep === 0 ? ' The branch point: the task start' : ` The branch point: after step ${point.afterStep}`,
            ]),
          ]),
        );
      }
      if (i === content.firstDivergence) {
        rows.push(
          el('tr', { className: 'divergence-mark', attrs: { id: 'first-divergence' } }, [
            el('td', { attrs: { colspan: columns } }, [codicon('git-compare'), ' The runs part here']),
          ]),
        );
      }
      const cells = row.cells.map((cell, r) => {
        if (!cell) return el('td', { className: 'gap', text: 'no step', attrs: { title: `${content.runs[r]!.label} takes no step here` } });
        const button = el(
          'button',
          {
            className: 'step-cell',
            attrs: { type: 'button', title: `${content.runs[r]!.label}, step ${cell.index + 1}: ${cell.fullLabel}\n(click to open it in the stepper)` },
          },
          [
            codicon(kindIcon(cell.kind), cell.kind),
            el('span', { className: 'step-number', text: String(cell.index + 1) }),
            el('span', { className: 'step-label', text: cell.label }),
            ...(cell.error ? [codicon('error', 'failed')] : []),
            ...(cell.diverged ? [codicon('git-compare', 'diverged from the recording')] : []),
          ],
        );
        button.addEventListener('click', () => void this.openStep(r, cell.index));
        return el('td', {}, [button]);
      });
      const className = `${row.same ? 'same' : 'differs'}${i === content.firstDivergence ? ' first-divergence' : ''}${row.shared ? ' shared' : ''}`;
      const tr = el('tr', { className, attrs: { 'data-row': String(i) } }, [
        el('th', {
          className: 'row-head',
          text: row.same ? String(i + 1) : `${i + 1} ≠`,
          attrs: { scope: 'row', title: row.same ? 'every run takes this action' : 'the runs differ here' },
        }),
        ...cells,
      ]);
      if (row.shared) {
        tr.hidden = true;
        sharedRows.push(tr);
      }
      rows.push(tr);
    });
    return el('table', { className: 'compare aligned-steps' }, [this.head(content, 'Row'), el('tbody', {}, rows)]);
  }

  private patches(content: CompareContent): HTMLElement {
    const columns = content.runs.map((run) => {
      const column = el('div', { className: 'patch-column' }, [el('h3', { text: run.label, attrs: { title: `${run.detail}\n${run.path}` } })]);
      if (run.patch === '') {
        column.append(el('p', { className: 'patch-problem', text: 'This run submitted no patch.' }));
        return column;
      }
      const rendered = renderPatch(run.patch, 'line-by-line');
      if (rendered.kind === 'problem') {
        column.append(el('p', { className: 'patch-problem', text: rendered.message }));
        return column;
      }
      const diff = el('div', { className: 'patch-diff' });
      // diff2html escapes all patch text (test/unit/webview/patchHtml.test.ts); the CSP runs no inline script.
      diff.innerHTML = rendered.html;
      column.append(diff);
      return column;
    });
    const grid = el('div', { className: 'patches' }, columns);
    grid.style.gridTemplateColumns = `repeat(${content.runs.length}, minmax(0, 1fr))`;
    return grid;
  }

  private async openStep(run: number, index: number): Promise<void> {
    try {
      await this.host.request(compareOpenStep, { run, index });
      this.status.textContent = '';
    } catch (error) {
      this.status.textContent = `Cannot open the step: ${errorText(error)}`;
    }
  }
}
