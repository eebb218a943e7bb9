import {
  MAX_ROW_RANGE,
  MISMATCH_COLUMNS,
  ROLLOUT_COLUMNS,
  RolloutsUiStateSchema,
  ESTIMATOR_NAMES,
  rolloutsChanged,
  rolloutsExport,
  rolloutsExportCancel,
  rolloutsExportProgress,
  rolloutsGroup,
  rolloutsHeader,
  rolloutsRecipes,
  rolloutsLocate,
  rolloutsOpen,
  rolloutsQuery,
  rolloutsRows,
  rolloutsShowPatch,
  rolloutsCompareGroup,
  rolloutsShowReward,
  type GroupDetails,
  type QueryResult,
  type RecipeInfo,
  type RolloutColumn,
  type RolloutQuery,
  type RolloutRow,
  type RolloutsUiState,
} from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';
import type { Host } from '../host';
import {
  COLUMN_TITLES,
  ESTIMATOR_TITLES,
  MISMATCH_HELP,
  NUMERIC_COLUMNS,
  RECIPE_COLUMNS,
  cellText,
  instanceParts,
  nextSort,
  pagesFor,
  recipeCellText,
  signed,
  visibleWindow,
} from './tableModel';
import { errorText } from '../errorText';

/** A performance mark set when the first rows are on screen; bench/ui reads it. @internal */
export const FIRST_ROWS_MARK = 'sweWorkbench.rollouts.firstRows';
const ROW_HEIGHT = 24;
const OVERSCAN = 20;
const PAGE_SIZE = 200;
const STATUS_ICONS = { resolved: 'pass-filled', failed: 'error', infra: 'warning', unknown: 'question' } as const;
/** Failing tests listed in the details pane; the reward breakdown has them all. */
const MAX_TESTS_SHOWN = 8;

type RowAction = 'open' | 'reward' | 'patch' | 'compare';
const ACTIONS: ReadonlyArray<{ action: RowAction; label: string; icon: string; key: string }> = [
  { action: 'open', label: 'Open in Stepper', icon: 'debug-step-into', key: 'Enter' },
  { action: 'reward', label: 'Reward Breakdown', icon: 'graph', key: 'R' },
  { action: 'patch', label: 'Patch', icon: 'diff', key: 'P' },
  { action: 'compare', label: 'Compare Group', icon: 'compare-changes', key: 'C' },
];

function restoredState(raw: unknown): RolloutsUiState {
  const parsed = RolloutsUiStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : { query: { sort: null, filter: '', search: '' }, scrollTop: 0 };
}

function countText(result: QueryResult): string {
  return result.total === result.indexed ? `${result.total} rollouts` : `${result.total} of ${result.indexed} rollouts`;
}

function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/**
 * The rollouts table: a header that sorts, the core's filter and full-text search, group
 * statistics, and a virtualized body that keeps only the rows in view in the DOM and asks the
 * host for them page by page.
 */
export class RolloutsTable {
  private state: RolloutsUiState;
  private result: QueryResult | undefined;
  /** Rows of the current query and index version, by row index. */
  private rows = new Map<number, RolloutRow>();
  private readonly pending = new Set<number>();
  private generation = 0;
  private selected = -1;
  private firstRowsShown = false;
  private readonly filter = el('vscode-textfield', {
    attrs: { id: 'filter', placeholder: 'Filter, e.g. failure=max-steps and steps>50', 'aria-label': 'Filter expression' },
  });
  private readonly search = el('vscode-textfield', {
    attrs: { id: 'search', placeholder: 'Search thoughts, actions, observations', 'aria-label': 'Full-text search' },
  });
  private readonly recipe = el('vscode-single-select', { attrs: { id: 'recipe', 'aria-label': 'Reward recipe' } });
  private readonly estimator = el('vscode-single-select', { attrs: { id: 'estimator', 'aria-label': 'Advantage estimator' } });
  private recipes: RecipeInfo[] = [];
  private readonly recipeProblem = el('span', { attrs: { id: 'recipe-problem', role: 'alert' } });
  private readonly count = el('span', { attrs: { id: 'row-count', role: 'status' } });
  private readonly exportOpen = el(
    'button',
    {
      className: 'row-action',
      attrs: { type: 'button', id: 'export-open', title: 'Export the rows shown as supervised fine-tuning data (JSONL chat messages)' },
    },
    [codicon('export'), ' Export SFT…'],
  );
  private readonly exportKeep = el('vscode-textfield', {
    attrs: { id: 'export-keep', placeholder: 'mixed,resolved,max-turns=30,max-tokens=32000,no-git-history', 'aria-label': 'Ready-made filters' },
  });
  private readonly exportFile = el('vscode-textfield', {
    attrs: { id: 'export-file', value: 'sft.jsonl', 'aria-label': 'Export file (relative to the workspace folder)' },
  });
  private readonly exportStart = el('button', { className: 'row-action', attrs: { type: 'button', id: 'export-start' } }, [codicon('save'), ' Export']);
  private readonly exportCancel = el('button', { className: 'row-action', attrs: { type: 'button', id: 'export-cancel', hidden: '' } }, [
    codicon('close'),
    ' Cancel',
  ]);
  private readonly exportProgress = el('progress', { attrs: { id: 'export-progress', max: '1', value: '0', hidden: '' } });
  private readonly exportStatus = el('span', { attrs: { id: 'export-status', role: 'status' } });
  private readonly exportBar = el('div', { attrs: { id: 'export-bar', hidden: '', 'aria-label': 'Export' } }, [
    el('label', { className: 'picker', text: 'Keep ' }, [this.exportKeep]),
    el('label', { className: 'picker', text: 'File ' }, [this.exportFile]),
    this.exportStart,
    this.exportCancel,
    this.exportProgress,
    this.exportStatus,
  ]);
  private readonly unreadable = el('span', {
    attrs: { id: 'index-errors', title: 'Each one is listed, with its file and line, under “unreadable inputs” in the Rollouts view' },
  });
  private readonly filterError = el('pre', { attrs: { id: 'filter-error', role: 'alert' } });
  private readonly stats = el('div', { attrs: { id: 'stats', 'aria-label': 'Group statistics' } });
  private readonly head = el('div', { className: 'table-head rollouts-grid', attrs: { role: 'row' } });
  /** Holds the head; it scrolls sideways with the rows. */
  private readonly headScroll = el('div', { attrs: { id: 'table-head-scroll' } }, [this.head]);
  private readonly spacer = el('div', { attrs: { id: 'spacer', role: 'rowgroup' } });
  private readonly viewport = el('div', { attrs: { id: 'viewport', tabindex: '0', role: 'grid', 'aria-label': 'Rollouts' } }, [this.spacer]);
  private readonly empty = el('p', { attrs: { id: 'empty' } });
  private readonly details = el('section', { attrs: { id: 'details', 'aria-label': 'Selected rollout', 'aria-live': 'polite' } });
  private readonly actionStatus = el('span', { attrs: { id: 'action-status', role: 'status' } });
  /** A selection restored from the state, kept until the index holds its rollout. */
  private restoring: string | undefined;
  private scrollRestored = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {
    this.state = restoredState(host.getState());
    this.restoring = this.state.selected;
  }

  async start(): Promise<void> {
    this.layout();
    const [header, catalog] = await Promise.all([this.host.request(rolloutsHeader, {}), this.host.request(rolloutsRecipes, {})]);
    this.showUnreadable(header.indexErrors);
    this.showRecipes(catalog.recipes, catalog.problem);
    this.host.onNotification(rolloutsChanged, ({ folder }) => {
      if (folder !== null) this.state = { ...this.state, folder };
      void this.host.request(rolloutsHeader, {}).then(
        (h) => this.showUnreadable(h.indexErrors),
        () => undefined,
      );
      void this.runQuery(false);
    });
    if (header.folder !== null && header.problem === null) this.state = { ...this.state, folder: header.folder };
    if (header.problem !== null) this.showEmpty(header.problem);
    else if (header.folder === null) this.showEmpty('No rollouts folder is open: run “SWE Workbench: Open Rollouts Folder…”.');
    await this.runQuery(false);
    this.render();
    this.root.setAttribute('aria-busy', 'false');
  }

  private layout(): void {
    this.filter.value = this.state.typed?.filter ?? this.state.query.filter;
    this.search.value = this.state.typed?.search ?? this.state.query.search;
    this.filterError.hidden = true;
    this.renderHead();
    this.root.replaceChildren(
      el('header', { className: 'rollouts-toolbar' }, [
        this.filter,
        this.search,
        el('label', { className: 'picker', text: 'Recipe ' }, [this.recipe]),
        el('label', { className: 'picker', text: 'Advantage ' }, [this.estimator]),
        this.exportOpen,
        this.count,
        this.unreadable,
        this.recipeProblem,
        this.filterError,
        this.exportBar,
      ]),
      this.stats,
      this.headScroll,
      this.viewport,
      this.empty,
      this.details,
    );
    this.details.hidden = true;
    this.details.addEventListener('click', (e) => {
      const action = (e.target as Element | null)?.closest<HTMLElement>('[data-action]')?.dataset.action;
      if (action && this.selected >= 0) void this.act(action as RowAction, this.selected);
    });
    this.filter.addEventListener('change', () => this.setQuery({ ...this.state.query, filter: this.filter.value }));
    this.search.addEventListener('change', () => this.setQuery({ ...this.state.query, search: this.search.value }));
    // Each key is kept in the state as typed, not only at Enter: the page VS Code makes again (a reload, a panel shown again) restores them all.
    for (const box of [this.filter, this.search])
      box.addEventListener('input', () => {
        this.state = { ...this.state, typed: { filter: this.filter.value, search: this.search.value } };
        this.saveState();
      });
    this.exportOpen.addEventListener('click', () => {
      this.exportBar.hidden = !this.exportBar.hidden;
    });
    this.exportStart.addEventListener('click', () => void this.runExport());
    this.exportCancel.addEventListener('click', () => void this.host.request(rolloutsExportCancel, {}));
    this.host.onNotification(rolloutsExportProgress, ({ done, total, written }) => {
      this.exportProgress.max = Math.max(1, total);
      this.exportProgress.value = done;
      this.exportStatus.textContent = `${done} of ${total} read, ${written} written…`;
    });
    this.recipe.addEventListener('change', () => this.setQuery({ ...this.state.query, recipe: this.recipeChoice() }));
    this.estimator.addEventListener('change', () => this.setQuery({ ...this.state.query, recipe: this.recipeChoice() }));
    this.viewport.addEventListener('scroll', () => this.onScroll(), { passive: true });
    this.viewport.addEventListener('keydown', (e) => this.onKey(e));
    this.spacer.addEventListener('click', (e) => this.rowEvent(e, false));
    this.spacer.addEventListener('dblclick', (e) => this.rowEvent(e, true));
    new ResizeObserver(() => this.render()).observe(this.viewport);
  }

  /** The recipe picker's options; a recipe restored from the state stays picked if it is still offered. */
  private showRecipes(recipes: RecipeInfo[], problem: string | null): void {
    this.recipes = recipes;
    const chosen = this.state.query.recipe;
    const option = (value: string, text: string, selected: boolean, title?: string) =>
      el('vscode-option', { text, attrs: { value, ...(selected ? { selected: '' } : {}), ...(title ? { title } : {}) } });
    this.recipe.replaceChildren(
      option('', 'None', !chosen),
      ...recipes.map((r) => option(r.name, `${r.name} v${r.version}`, chosen?.name === r.name, `${r.description} (${r.source})`)),
    );
    this.estimator.replaceChildren(...ESTIMATOR_NAMES.map((e) => option(e, ESTIMATOR_TITLES[e], (chosen?.estimator ?? 'grpo') === e)));
    if (chosen && !recipes.some((r) => r.name === chosen.name)) this.state = { ...this.state, query: { ...this.state.query, recipe: null } };
    this.estimator.toggleAttribute('disabled', !this.state.query.recipe);
    this.recipeProblem.hidden = problem === null;
    this.recipeProblem.replaceChildren(codicon('warning'), ` ${problem ?? ''}`);
  }

  /** Exports the rows of the current query; the host streams them to a temporary file, renamed when whole. */
  private async runExport(): Promise<void> {
    this.exportStart.disabled = true;
    this.exportCancel.hidden = false;
    this.exportProgress.hidden = false;
    this.exportProgress.value = 0;
    this.exportStatus.textContent = 'Starting…';
    try {
      const r = await this.host.request(rolloutsExport, { query: this.state.query, keep: this.exportKeep.value, file: this.exportFile.value });
      if (r.cancelled) this.exportStatus.textContent = `Export cancelled: ${r.file} was not written.`;
      else {
        const skipped = Object.entries(r.skipped)
          .map(([reason, n]) => `${reason} ×${n}`)
          .join('; ');
        this.exportStatus.textContent = `Wrote ${r.written} of ${r.selected} rollouts to ${r.file}${skipped ? `; left out: ${skipped}` : ''}${r.gitHistory ? `; ${r.gitHistory} read git history (flagged)` : ''}.`;
      }
    } catch (error) {
      this.exportStatus.textContent = `Export failed: ${errorText(error)}`;
    } finally {
      this.exportStart.disabled = false;
      this.exportCancel.hidden = true;
      this.exportProgress.hidden = true;
    }
  }

  private recipeChoice(): RolloutQuery['recipe'] {
    const name = this.recipe.value;
    if (!name) return null;
    const previous = this.state.query.recipe;
    // A newly picked recipe starts on its own estimator; the estimator picker changes it after.
    const estimator =
      previous && previous.name === name
        ? (this.estimator.value as (typeof ESTIMATOR_NAMES)[number])
        : (this.recipes.find((r) => r.name === name)?.estimator ?? 'grpo');
    this.estimator.value = estimator;
    return { name, estimator };
  }

  /** The columns shown: a re-scored run's mismatch columns after the others. */
  private get columns(): readonly RolloutColumn[] {
    return this.result?.rescored ? [...ROLLOUT_COLUMNS, ...MISMATCH_COLUMNS] : ROLLOUT_COLUMNS;
  }

  private renderHead(): void {
    const sort = this.state.query.sort;
    const withRecipe = Boolean(this.state.query.recipe);
    this.root.classList.toggle('with-recipe', withRecipe);
    this.root.classList.toggle('with-mismatch', this.result?.rescored === true);
    this.estimator.toggleAttribute('disabled', !withRecipe);
    this.head.replaceChildren(
      ...this.columns.map((column) => {
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
        button.addEventListener('click', () => this.setQuery({ ...this.state.query, sort: nextSort(this.state.query.sort, column) }));
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
    );
  }

  private setQuery(query: RolloutQuery): void {
    this.state = { ...this.state, query, scrollTop: 0 };
    this.renderHead();
    void this.runQuery(true);
  }

  /** Asks the host for the query's size and statistics; rows follow by range as they scroll in. */
  private async runQuery(resetScroll: boolean): Promise<void> {
    const generation = ++this.generation;
    this.count.textContent = 'Loading…';
    this.viewport.setAttribute('aria-busy', 'true');
    let result: QueryResult;
    try {
      result = await this.host.request(rolloutsQuery, this.state.query);
    } catch (error) {
      if (generation !== this.generation) return;
      this.viewport.setAttribute('aria-busy', 'false');
      this.filterError.textContent = errorText(error);
      this.filterError.hidden = false;
      // The rows of the last valid query stay, and so does their count.
      this.count.textContent = this.result ? countText(this.result) : '';
      return;
    }
    if (generation !== this.generation) return;
    this.viewport.setAttribute('aria-busy', 'false');
    this.filterError.hidden = true;
    const rescoredBefore = this.result?.rescored === true;
    this.result = result;
    // A re-scored run (a re-index may bring its re-score) gains the mismatch columns.
    if ((result.rescored === true) !== rescoredBefore) this.renderHead();
    this.rows = new Map();
    this.pending.clear();
    this.selected = -1;
    this.renderDetails();
    this.count.textContent = countText(result);
    this.renderStats(result);
    this.spacer.style.height = `${result.total * ROW_HEIGHT}px`;
    if (result.total === 0 && result.indexed > 0) this.showEmpty('No rollout matches.');
    else if (result.indexed > 0) this.empty.hidden = true;
    if (!this.scrollRestored && result.total > 0) {
      this.viewport.scrollTop = this.state.scrollTop;
      this.scrollRestored = true;
    } else if (resetScroll) this.viewport.scrollTop = 0;
    this.saveState();
    this.render();
    await this.reselect(generation);
  }

  /** Selects the rollout selected before (a reload, a new query, a re-index) wherever it now is. */
  private async reselect(generation: number): Promise<void> {
    const id = this.restoring ?? this.state.selected;
    if (id === undefined || !this.result?.total) return;
    const { index } = await this.host.request(rolloutsLocate, { query: this.state.query, id });
    if (generation !== this.generation || index === null) return;
    this.select(index);
    if (this.restoring !== undefined) this.scrollIntoView(index);
    this.restoring = undefined;
  }

  private renderStats(result: QueryResult): void {
    const s = result.statistics;
    const fact = (label: string, value: string, more = '', title?: string) =>
      el('span', title ? { attrs: { title } } : {}, [`${label} `, el('strong', { text: value }), ...(more ? [` ${more}`] : [])]);
    // pass@k averages over the groups with at least k graded attempts: where that is fewer than all, it says how many.
    const groups = (n: number) => `${n} group${n === 1 ? '' : 's'}`;
    const passAtK = s.passAtK.map((p) =>
      fact(
        `pass@${p.k}`,
        percent(p.value),
        p.instances < s.instances ? `(${p.instances} of ${groups(s.instances)})` : '',
        `mean pass@${p.k} over the ${groups(p.instances)} with at least ${p.k} graded attempt${p.k === 1 ? '' : 's'}${p.instances < s.instances ? ` (of ${groups(s.instances)})` : ''}`,
      ),
    );
    this.stats.replaceChildren(
      fact('instances', String(s.instances)),
      fact('solve rate', s.solveRate === null ? '—' : `${percent(s.solveRate)} (${s.resolved}/${s.evaluated})`),
      fact('mixed groups', String(s.mixed)),
      ...passAtK,
    );
    const r = result.recipe;
    if (r) {
      const masks = Object.entries(r.maskReasons)
        .map(([reason, n]) => `${reason} ×${n}`)
        .join('; ');
      this.stats.append(
        el('span', { className: 'recipe-facts', attrs: { id: 'recipe-stats', title: `${r.source}. ${r.formula}` } }, [
          `${r.name} v${r.version}: `,
          el('strong', { text: `${r.scored} scored` }),
          `, ${r.masked} masked${masks ? ` (${masks})` : ''}, ${r.unscored} not scored; ${r.withSignal} of ${r.groups} groups give a gradient`,
        ]),
      );
    }
  }

  private showUnreadable(errors: number): void {
    this.unreadable.hidden = errors === 0;
    this.unreadable.replaceChildren(codicon('warning'), ` ${errors} unreadable input${errors === 1 ? '' : 's'}`);
  }

  private showEmpty(text: string): void {
    this.empty.textContent = text;
    this.empty.hidden = false;
  }

  private onScroll(): void {
    this.headScroll.scrollLeft = this.viewport.scrollLeft;
    this.state = { ...this.state, scrollTop: this.viewport.scrollTop };
    this.saveState();
    this.render();
  }

  /** Puts the rows in view into the DOM (and only those), and fetches the pages they lack. */
  private render(): void {
    const total = this.result?.total ?? 0;
    const window = visibleWindow(this.viewport.scrollTop, this.viewport.clientHeight, ROW_HEIGHT, total, OVERSCAN);
    const nodes: HTMLElement[] = [];
    for (let i = window.start; i < window.end; i++) nodes.push(this.rowNode(i));
    this.spacer.replaceChildren(...nodes);
    for (const page of pagesFor(window, PAGE_SIZE))
      if (!this.rows.has(page.start) && !this.pending.has(page.start)) void this.fetch(page.start, Math.min(page.end, total));
  }

  private rowNode(i: number): HTMLElement {
    const row = this.rows.get(i);
    const node = el('div', {
      className: `rollout-row rollouts-grid${row ? ` status-${row.status}` : ' loading'}`,
      attrs: { role: 'row', 'data-index': String(i), 'aria-rowindex': String(i + 1), 'aria-selected': String(i === this.selected) },
    });
    node.style.transform = `translateY(${i * ROW_HEIGHT}px)`;
    if (!row) {
      node.append(el('span', { text: '…' }));
      return node;
    }
    node.setAttribute('data-id', row.id);
    node.title = `${row.id}\n${row.failure}: ${row.evidence}`;
    for (const column of this.columns) {
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
      node.append(cell);
    }
    if (this.state.query.recipe) {
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

  private async fetch(start: number, end: number): Promise<void> {
    if (end <= start) return;
    const generation = this.generation;
    this.pending.add(start);
    try {
      for (let from = start; from < end; from += MAX_ROW_RANGE) {
        const { rows } = await this.host.request(rolloutsRows, { query: this.state.query, start: from, end: Math.min(end, from + MAX_ROW_RANGE) });
        if (generation !== this.generation) return;
        rows.forEach((row, k) => this.rows.set(from + k, row));
      }
    } catch {
      // The index changed under the request; the changed notification runs the query again.
      return;
    } finally {
      this.pending.delete(start);
    }
    this.render();
    if (this.selected >= start && this.selected < end) this.renderDetails();
    if (!this.firstRowsShown) {
      this.firstRowsShown = true;
      performance.mark(FIRST_ROWS_MARK);
    }
  }

  private rowEvent(event: MouseEvent, open: boolean): void {
    const node = (event.target as Element | null)?.closest<HTMLElement>('.rollout-row');
    const index = Number(node?.dataset.index);
    if (!node || !Number.isInteger(index)) return;
    this.select(index);
    if (open) void this.act('open', index);
  }

  private onKey(event: KeyboardEvent): void {
    const total = this.result?.total ?? 0;
    const page = Math.max(1, Math.floor(this.viewport.clientHeight / ROW_HEIGHT) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: page, PageUp: -page, Home: -total, End: total };
    const delta = moves[event.key];
    if (delta !== undefined && total > 0) {
      event.preventDefault();
      this.select(Math.min(total - 1, Math.max(0, this.selected + delta)));
      this.scrollIntoView(this.selected);
    } else if (this.selected >= 0 && !event.ctrlKey && !event.metaKey && !event.altKey) {
      const action = ACTIONS.find((a) => a.key === event.key || a.key === event.key.toUpperCase());
      if (!action) return;
      event.preventDefault();
      void this.act(action.action, this.selected);
    }
  }

  private select(index: number): void {
    this.selected = index;
    for (const node of this.spacer.children) node.setAttribute('aria-selected', String((node as HTMLElement).dataset.index === String(index)));
    const id = this.rows.get(index)?.id;
    if (id !== undefined && id !== this.state.selected) {
      this.state = { ...this.state, selected: id };
      this.saveState();
    }
    this.actionStatus.textContent = '';
    this.renderDetails();
  }

  /** The selected rollout: why it ended as it did, its failing tests, and what can be opened from it. */
  private renderDetails(): void {
    const row = this.rows.get(this.selected);
    this.details.hidden = row === undefined;
    if (!row) return;
    if (this.state.selected !== row.id) {
      this.state = { ...this.state, selected: row.id };
      this.saveState();
    }
    const tests = row.tests ?? [];
    // With a recipe the table hides tokens, cost and duration: the details keep them.
    const usage = this.state.query.recipe
      ? [
          row.tokens === null ? undefined : `${cellText(row, 'tokens')} tokens`,
          row.cost === null ? undefined : cellText(row, 'cost'),
          row.duration === null ? undefined : cellText(row, 'duration'),
        ]
      : [];
    const facts = [
      `${row.format}`,
      `${row.steps} steps`,
      row.exit ? `exit ${row.exit}` : undefined,
      row.evaluation ? `evaluated by ${row.evaluation}` : row.resolved !== null || row.reward !== null ? 'graded in the trajectory file' : 'not graded',
      ...usage,
    ].filter((f) => f !== undefined);
    const buttons = ACTIONS.map((a) =>
      el(
        'button',
        { className: 'row-action', attrs: { type: 'button', 'data-action': a.action, title: `${a.label} (${a.key})`, 'aria-keyshortcuts': a.key } },
        [codicon(a.icon), ` ${a.label}`],
      ),
    );
    this.details.replaceChildren(
      el('div', { className: 'details-title' }, [
        codicon(STATUS_ICONS[row.status], row.status),
        el('strong', { text: ` ${row.instance} #${row.attempt}`, attrs: { id: 'details-rollout' } }),
        el('span', { className: 'details-facts', text: facts.join(' · ') }),
      ]),
      el('p', { attrs: { id: 'details-reason' } }, [el('strong', { text: row.failure }), `: ${row.evidence}`]),
      ...(tests.length > 0
        ? [
            el('ul', { attrs: { id: 'details-tests', 'aria-label': 'Failing tests' } }, [
              ...tests.slice(0, MAX_TESTS_SHOWN).map((t) => el('li', { text: t })),
              ...(tests.length > MAX_TESTS_SHOWN ? [el('li', { text: `… and ${tests.length - MAX_TESTS_SHOWN} more` })] : []),
            ]),
          ]
        : []),
      ...(row.score
        ? [
            el('p', { attrs: { id: 'details-score' } }, [
              el('strong', { text: row.score.advantage === null ? 'no gradient' : `advantage ${signed(row.score.advantage)}` }),
              `: ${row.score.why}`,
            ]),
          ]
        : []),
      this.groupSection,
      el('div', { className: 'details-actions' }, [...buttons, this.actionStatus]),
    );
    void this.loadGroup(row);
  }

  private readonly groupSection = el('section', { attrs: { id: 'details-group', 'aria-label': 'Group advantages' } });
  private groupKey = '';

  /** The selected rollout's GRPO group under the recipe: each rollout's reward, mask and advantage, and why. */
  private async loadGroup(row: RolloutRow): Promise<void> {
    const recipe = this.state.query.recipe;
    if (!recipe) {
      this.groupKey = '';
      this.groupSection.replaceChildren();
      return;
    }
    const key = `${recipe.name}/${recipe.estimator}/${row.instance}/${this.result?.version ?? 0}`;
    if (key === this.groupKey) {
      this.markGroupRow(row.id);
      return;
    }
    this.groupKey = key;
    let details: GroupDetails;
    try {
      details = await this.host.request(rolloutsGroup, { recipe, instance: row.instance });
    } catch (error) {
      if (this.groupKey === key) this.groupSection.replaceChildren(el('p', { className: 'error', text: `Cannot compute the group: ${errorText(error)}` }));
      return;
    }
    if (this.groupKey !== key) return;
    const fmt = (x: number | null) => (x === null ? '—' : String(Math.round(x * 1000) / 1000));
    const facts = [
      `n = ${details.included}`,
      `mean ${fmt(details.mean)}`,
      `std ${fmt(details.std)}`,
      details.masked ? `${details.masked} masked` : undefined,
      details.unscored ? `${details.unscored} not scored` : undefined,
      details.mixed ? 'mixed' : 'not mixed',
      details.signal ? 'gives a gradient' : 'no gradient',
      details.bugReward === null ? undefined : `bug reward ${fmt(details.bugReward)}`,
    ].filter((f) => f !== undefined);
    const head = el(
      'tr',
      {},
      ['Attempt', 'Reward', 'Advantage', 'Why'].map((t) => el('th', { text: t })),
    );
    const rows = details.rollouts.map((r) =>
      el('tr', { attrs: { 'data-id': r.id, 'data-outcome': r.outcome } }, [
        el('td', { text: `#${r.attempt}` }),
        el('td', {
          className: 'numeric',
          text: r.outcome === 'masked' ? 'masked' : fmt(r.value),
          ...(r.outcome === 'masked' ? { attrs: { title: `masked: ${r.mask}` } } : {}),
        }),
        el('td', { className: 'numeric', text: r.advantage === null ? '—' : signed(r.advantage) }),
        el('td', { text: r.why, attrs: { title: r.terms.map((t) => `${t.name} = ${t.value === null ? 'masked' : fmt(t.value)}: ${t.rule}`).join('\n') } }),
      ]),
    );
    this.groupSection.replaceChildren(
      el('h3', { text: `Group ${details.instance}: ${facts.join(' · ')}` }),
      el('p', { className: 'details-facts', text: details.formula }),
      el('table', { attrs: { id: 'group-advantages' } }, [el('thead', {}, [head]), el('tbody', {}, rows)]),
    );
    this.markGroupRow(row.id);
  }

  private markGroupRow(id: string): void {
    for (const tr of this.groupSection.querySelectorAll<HTMLElement>('tbody tr')) tr.setAttribute('aria-current', String(tr.dataset.id === id));
  }

  private scrollIntoView(index: number): void {
    const top = index * ROW_HEIGHT;
    if (top < this.viewport.scrollTop) this.viewport.scrollTop = top;
    else if (top + ROW_HEIGHT > this.viewport.scrollTop + this.viewport.clientHeight) this.viewport.scrollTop = top + ROW_HEIGHT - this.viewport.clientHeight;
    this.render();
  }

  private async act(action: RowAction, index: number): Promise<void> {
    const row = this.rows.get(index);
    if (!row) return;
    this.actionStatus.textContent = '';
    try {
      if (action === 'open') await this.host.request(rolloutsOpen, { id: row.id });
      else if (action === 'compare') await this.host.request(rolloutsCompareGroup, { id: row.id });
      else if (action === 'reward') {
        // The breakdown opens on the recipe the table is scored with.
        const recipe = this.state.query.recipe?.name;
        await this.host.request(rolloutsShowReward, { id: row.id, ...(recipe ? { recipe } : {}) });
      } else await this.host.request(rolloutsShowPatch, { id: row.id });
    } catch (error) {
      this.actionStatus.textContent = `Cannot ${action === 'open' ? 'open' : action === 'compare' ? 'compare the group of' : `show the ${action} of`} ${row.id}: ${errorText(error)}`;
    }
  }

  private saveState(): void {
    this.host.setState(this.state);
  }
}
