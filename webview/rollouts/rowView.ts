import type { RolloutColumn, RolloutQuery, RolloutRow } from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';
import { COLUMN_TITLES, MISMATCH_HELP, NUMERIC_COLUMNS, RECIPE_COLUMNS, cellText, instanceParts, recipeCellText } from './tableModel';

/** Every row is this tall: the body is virtualized by it. */
export const ROW_HEIGHT = 24;
export const STATUS_ICONS = { resolved: 'pass-filled', failed: 'error', infra: 'warning', unknown: 'question' } as const;

/** The header: a sorting button per column (its sort shown), then the recipe's columns when a recipe scores the rows. */
export function headCells(
  columns: readonly RolloutColumn[],
  sort: RolloutQuery['sort'],
  withRecipe: boolean,
  onSort: (column: RolloutColumn) => void,
): HTMLElement[] {
  return [
    ...columns.map((column) => {
      const sorted = sort?.column === column ? (sort.descending ? 'descending' : 'ascending') : 'none';
      const help = (MISMATCH_HELP as Partial<Record<RolloutColumn, string>>)[column];
      const button = el(
        'button',
        {
          className: NUMERIC_COLUMNS.has(column) ? 'numeric' : '',
          attrs: {
            'data-column': column,
            'aria-sort': sorted,
            role: 'columnheader',
            title: `Sort by ${COLUMN_TITLES[column].toLowerCase()}${help ? `: ${help}` : ''}`,
          },
        },
        [el('span', { text: COLUMN_TITLES[column] })],
      );
      if (sorted !== 'none') button.append(codicon(sorted === 'ascending' ? 'arrow-up' : 'arrow-down', sorted));
      button.addEventListener('click', () => onSort(column));
      return button;
    }),
    ...(withRecipe
      ? RECIPE_COLUMNS.map((c) =>
          el('span', {
            className: `recipe-head${c.numeric ? ' numeric' : ''}`,
            text: c.title,
            attrs: { role: 'columnheader', 'data-column': c.column, title: c.help },
          }),
        )
      : []),
  ];
}

/** Row `i` placed at its height: its cells, or `…` while its page is on the way. */
export function rowNode(
  i: number,
  row: RolloutRow | undefined,
  options: { selected: boolean; columns: readonly RolloutColumn[]; withRecipe: boolean },
): HTMLElement {
  const node = el('div', {
    className: `rollout-row rollouts-grid${row ? ` status-${row.status}` : ' loading'}`,
    attrs: { role: 'row', 'data-index': String(i), 'aria-rowindex': String(i + 1), 'aria-selected': String(options.selected) },
  });
  node.style.transform = `translateY(${i * ROW_HEIGHT}px)`;
  if (!row) {
    node.append(el('span', { text: '…' }));
    return node;
  }
  node.setAttribute('data-id', row.id);
  node.title = `${row.id}\n${row.failure}: ${row.evidence}`;
  for (const column of options.columns) {
    const cell = el('span', {
      className: NUMERIC_COLUMNS.has(column) ? 'numeric' : '',
      text: cellText(row, column),
      attrs: { role: 'gridcell', 'data-column': column },
    });
    if (column === 'instance') {
      const { head, tail } = instanceParts(row.instance);
      cell.replaceChildren(
        codicon(STATUS_ICONS[row.status], row.status),
        el('span', { className: 'instance-head', text: head }),
        el('span', { className: 'instance-tail', text: tail }),
      );
      cell.title = row.instance;
    }
    // The verdict of a patch graded the other way elsewhere in its group is in doubt: flagged where it is read.
    if (column === 'resolved' && row.gradingConflict !== undefined) {
      const flag = codicon('warning');
      flag.classList.add('grading-conflict');
      cell.append(flag);
      cell.title = row.gradingConflict;
      cell.dataset.conflict = '';
    }
    node.append(cell);
  }
  if (options.withRecipe) {
    for (const c of RECIPE_COLUMNS)
      node.append(
        el('span', {
          className: `recipe-cell${c.numeric ? ' numeric' : ''}${row.score?.outcome === 'masked' ? ' masked' : ''}`,
          text: recipeCellText(row, c.column),
          attrs: { role: 'gridcell', 'data-column': c.column },
        }),
      );
    if (row.score) node.title += `\n${row.score.why}`;
  }
  return node;
}
