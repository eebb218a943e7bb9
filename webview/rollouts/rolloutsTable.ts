import {
  BRANCH_COLUMNS,
  MISMATCH_COLUMNS,
  ROLLOUT_COLUMNS,
  RolloutsUiStateSchema,
  ESTIMATOR_NAMES,
  rolloutsChanged,
  rolloutsHeader,
  rolloutsRecipes,
  rolloutsLocate,
  rolloutsOpen,
  rolloutsQuery,
  rolloutsShowPatch,
  rolloutsCompareGroup,
  rolloutsShowReward,
  type QueryResult,
  type RecipeInfo,
  type RolloutColumn,
  type RolloutQuery,
  type RolloutsUiState,
} from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';
import type { Host } from '../host';
import { ACTIONS, GroupView, detailsContent, type RowAction } from './detailsView';
import { ExportBar } from './exportBar';
import { RowPages } from './rowPages';
import { ROW_HEIGHT, headCells, rowNode } from './rowView';
import { countText, gradingConflictsContent, statsContent } from './statsView';
import { ESTIMATOR_TITLES, hiddenColumnsText, nextSort, pagesFor, visibleWindow } from './tableModel';
import { errorText } from '../errorText';

const OVERSCAN = 20;
const PAGE_SIZE = 200;

function restoredState(raw: unknown): RolloutsUiState {
  const parsed = RolloutsUiStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : { query: { sort: null, filter: '', search: '' }, scrollTop: 0 };
}

/**
 * The rollouts table: a header that sorts, the core's filter and full-text search, group
 * statistics, and a virtualized body that keeps only the rows in view in the DOM and asks the
 * host for them page by page (`rowPages.ts`). Its parts: the header and rows (`rowView.ts`), the
 * statistics (`statsView.ts`), the selected rollout and its group (`detailsView.ts`), the SFT
 * export (`exportBar.ts`); this class keeps the state and the query and wires them.
 */
export class RolloutsTable {
  private state: RolloutsUiState;
  private result: QueryResult | undefined;
  /** Rows of the current query and index version, by row index. */
  private readonly rows: RowPages;
  private generation = 0;
  private selected = -1;
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
  private readonly unreadable = el('span', {
    attrs: { id: 'index-errors', title: 'Each one is listed, with its file and line, under “unreadable inputs” in the Rollouts view' },
  });
  private readonly filterError = el('pre', { attrs: { id: 'filter-error', role: 'alert' } });
  private readonly stats = el('div', { attrs: { id: 'stats', 'aria-label': 'Group statistics' } });
  private readonly conflicts = el('ul', { attrs: { id: 'grading-conflicts', 'aria-label': 'Identical patches graded both ways' } });
  private readonly hiddenColumns = el('span', { attrs: { id: 'hidden-columns', role: 'note' } }, [codicon('eye-closed'), ` ${hiddenColumnsText()}`]);
  private readonly head = el('div', { className: 'table-head rollouts-grid', attrs: { role: 'row' } });
  /** Holds the head; it scrolls sideways with the rows. */
  private readonly headScroll = el('div', { attrs: { id: 'table-head-scroll' } }, [this.head]);
  private readonly spacer = el('div', { attrs: { id: 'spacer', role: 'rowgroup' } });
  private readonly viewport = el('div', { attrs: { id: 'viewport', tabindex: '0', role: 'grid', 'aria-label': 'Rollouts' } }, [this.spacer]);
  private readonly empty = el('p', { attrs: { id: 'empty' } });
  private readonly details = el('section', { attrs: { id: 'details', 'aria-label': 'Selected rollout', 'aria-live': 'polite' } });
  private readonly actionStatus = el('span', { attrs: { id: 'action-status', role: 'status' } });
  private readonly group: GroupView;
  private readonly exporter: ExportBar;
  /** A selection restored from the state, kept until the index holds its rollout. */
  private restoring: string | undefined;
  private scrollRestored = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {
    this.state = restoredState(host.getState());
    this.restoring = this.state.selected;
    this.rows = new RowPages(host);
    this.group = new GroupView(host);
    this.exporter = new ExportBar(host, () => this.state.query);
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
        this.exporter.open,
        this.count,
        this.hiddenColumns,
        this.unreadable,
        this.recipeProblem,
        this.filterError,
        this.exporter.bar,
      ]),
      this.stats,
      this.conflicts,
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
    this.exporter.wire();
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

  /** The columns shown: a re-scored run's mismatch columns after the others, then a branched run's critical step. */
  private get columns(): readonly RolloutColumn[] {
    return [...ROLLOUT_COLUMNS, ...(this.result?.rescored ? MISMATCH_COLUMNS : []), ...(this.result?.branched ? BRANCH_COLUMNS : [])];
  }

  private renderHead(): void {
    const sort = this.state.query.sort;
    const withRecipe = Boolean(this.state.query.recipe);
    this.root.classList.toggle('with-recipe', withRecipe);
    this.hiddenColumns.hidden = !withRecipe;
    this.root.classList.toggle('with-mismatch', this.result?.rescored === true);
    this.root.classList.toggle('with-critical', this.result?.branched === true);
    this.estimator.toggleAttribute('disabled', !withRecipe);
    this.head.replaceChildren(
      ...headCells(this.columns, sort, withRecipe, (column) => this.setQuery({ ...this.state.query, sort: nextSort(this.state.query.sort, column) })),
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
    const before = { rescored: this.result?.rescored === true, branched: this.result?.branched === true };
    this.result = result;
    // A re-scored run (a re-index may bring its re-score) gains the mismatch columns, a newly branched one the critical step's.
    if ((result.rescored === true) !== before.rescored || (result.branched === true) !== before.branched) this.renderHead();
    this.rows.clear();
    this.selected = -1;
    this.renderDetails();
    this.count.textContent = countText(result);
    this.stats.replaceChildren(...statsContent(result));
    this.conflicts.replaceChildren(...gradingConflictsContent(result));
    this.conflicts.hidden = this.conflicts.childElementCount === 0;
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
    const withRecipe = Boolean(this.state.query.recipe);
    for (let i = window.start; i < window.end; i++)
      nodes.push(rowNode(i, this.rows.get(i), { selected: i === this.selected, columns: this.columns, withRecipe }));
    this.spacer.replaceChildren(...nodes);
    for (const page of pagesFor(window, PAGE_SIZE)) if (this.rows.lacks(page.start)) void this.fetch(page.start, Math.min(page.end, total));
  }

  private async fetch(start: number, end: number): Promise<void> {
    const generation = this.generation;
    await this.rows.fetch(
      this.state.query,
      start,
      end,
      () => generation !== this.generation,
      () => {
        this.render();
        if (this.selected >= start && this.selected < end) this.renderDetails();
      },
    );
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
    this.details.replaceChildren(...detailsContent(row, Boolean(this.state.query.recipe), this.group.element, this.actionStatus));
    void this.group.show(row, this.state.query.recipe, this.result);
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
