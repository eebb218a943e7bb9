import { describeZodError, safeParse } from '../../extension/protocol/ipc';
import {
  FIRST_STEP_MARK,
  branchValues,
  MAX_STEP_RANGE,
  stepperBranchValues,
  STEPPER_BOOT_ELEMENT,
  StepperBootSchema,
  StepperUiStateSchema,
  stepperAppended,
  stepperReveal,
  stepperBoot,
  stepperIndexed,
  stepperSelected,
  stepsAct,
  stepsDetails,
  stepsDetokenize,
  stepsOpenRaw,
  stepsOpenSubagent,
  trajectoryOpenBranch,
  stepsSearch,
  stepsSummaries,
  trajectoryShowFinalPatch,
  type StepDetail,
  type StepperBoot,
  type StepperIndexed,
  type StepperAppended,
  type StepSummary,
  type StepperUiState,
  type TrajectoryHeader,
} from '../../extension/protocol/stepper';
import { codicon, el, renderFatal } from '../dom';
import { formatCost, formatCount, formatSeconds, formatTokens } from '../format';
import type { Host } from '../host';
import { keyMove, moveSelection, visibleSteps, type Move } from './navigation';
import { STEP_BUTTONS, buttonForKey, renderStepDetail, stepTitle, type StepButton } from './stepDetailView';
import { TimelineView } from './timelineView';
import { errorText } from '../errorText';

const INTERACTIVE = 'input, textarea, vscode-textfield, vscode-single-select, vscode-checkbox, vscode-button';

function restoredState(raw: unknown): StepperUiState | undefined {
  const parsed = StepperUiStateSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

/** The payload the host embedded in the page, checked like any message from it; undefined when it embedded none. */
export function readBoot(page: Document): StepperBoot | undefined {
  const text = page.getElementById(STEPPER_BOOT_ELEMENT)?.textContent;
  if (!text) return undefined;
  const parsed = safeParse(StepperBootSchema, JSON.parse(text));
  if (!parsed.success) throw new Error(describeZodError('boot', parsed.error));
  return parsed.data;
}

/** What the page says of a key or a step number that moves off the first step while the file is indexed. */
const STILL_INDEXING = 'Still indexing the file: step 1 is shown; the other steps open once it is read.';

/** The trajectory stepper: a timeline of steps and the selected step's details. */
export class Stepper {
  private header!: TrajectoryHeader;
  /** The page booted on the first step of a file still being indexed: the header is a stand-in. */
  private indexing = false;
  /** The step asked for while indexing (the saved one, or revealed), shown once the file is indexed. */
  private pending: number | undefined;
  /** The host's word that the file is indexed, listened for before the boot is asked so that none is missed. */
  private readonly indexed: Promise<StepperIndexed>;
  private readonly titleFacts = el('span', { className: 'facts', attrs: { id: 'run-summary' } });
  private runHeaderElement: HTMLElement | undefined;
  private summaries: StepSummary[] = [];
  private readonly details = new Map<number, Promise<StepDetail>>();
  private state: StepperUiState;
  private readonly restored: StepperUiState | undefined;
  private matches: ReadonlySet<number> | null = null;
  private visible: number[] = [];
  private readonly timeline = new TimelineView(
    (index) => void this.select(index),
    () => this.clearFilters(),
  );
  private readonly detail = el('div', { className: 'detail', attrs: { id: 'detail', 'aria-live': 'polite' } });
  private readonly position = el('span', { className: 'position', attrs: { id: 'step-position' } });
  private readonly status = el('span', { className: 'status', attrs: { id: 'filter-status' } });
  /** What a step button or Final Patch could not do, said where the person looks. */
  private readonly notice = el('p', { className: 'notice', attrs: { id: 'notice', role: 'alert', hidden: '' } });
  private readonly search = el('vscode-textfield', { attrs: { id: 'search', placeholder: 'Search steps (/)', 'aria-label': 'Search steps' } });
  private readonly toolFilter = el('vscode-single-select', { attrs: { id: 'tool-filter', 'aria-label': 'Filter by tool' } });
  private readonly errorsOnly = el('vscode-checkbox', { attrs: { id: 'errors-only', label: 'Errors only' } });
  private readonly goTo = el('vscode-textfield', { attrs: { id: 'go-to', placeholder: 'Go to (g)', 'aria-label': 'Go to step', size: '8' } });

  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {
    this.restored = restoredState(host.getState());
    this.state = this.restored ?? { selected: 0, tool: null, errorsOnly: false, query: '' };
    this.indexed = new Promise((resolve) => host.onNotification(stepperIndexed, resolve));
  }

  /**
   * Shows the first step from the embedded payload, or from one request when the page has none:
   * the step the host revealed, else the one this view showed before it was hidden, else the
   * host's choice. A restored search and the summaries past the first range are requested after
   * the step is on screen.
   */
  async start(embedded: StepperBoot | undefined): Promise<void> {
    const boot = embedded ?? (await this.host.request(stepperBoot, {}));
    if (!boot.ok) {
      renderFatal(this.root, 'Cannot open this trajectory', boot.error.message);
      return;
    }
    this.header = boot.header;
    this.indexing = boot.indexing === true;
    this.host.onNotification(stepperReveal, ({ index }) => void this.select(index));
    this.host.onNotification(stepperAppended, (grown) => void this.append(grown));
    if (boot.detail) this.details.set(boot.detail.index, Promise.resolve(boot.detail));
    this.layout();
    this.addSummaries(boot.summaries);
    this.applyFilter(false);
    const chosen = boot.reveal || !this.restored ? (boot.detail?.index ?? 0) : this.restored.selected;
    if (this.indexing && chosen !== 0) this.pending = chosen;
    await this.select(this.indexing ? 0 : Math.min(chosen, Math.max(0, this.header.stepCount - 1)));
    this.root.setAttribute('aria-busy', 'false');
    requestAnimationFrame(() => performance.mark(FIRST_STEP_MARK));
    if (this.indexing && !(await this.finishIndexing())) return;
    if (this.state.query) await this.runSearch(this.state.query);
    for (let start = this.summaries.length; start < this.header.stepCount; start += MAX_STEP_RANGE) {
      const { summaries } = await this.host.request(stepsSummaries, { start, end: Math.min(start + MAX_STEP_RANGE, this.header.stepCount) });
      this.addSummaries(summaries);
    }
    this.applyFilter(false);
    this.host.onNotification(stepperBranchValues, ({ strip }) => this.timeline.showValues(strip));
    await this.host.request(branchValues, {}).then(
      ({ strip }) => this.timeline.showValues(strip),
      (err: unknown) => this.say(`Branch values: ${errorText(err)}`),
    );
  }

  /** Takes the final header and first step once the host has indexed the file; false when it could not. */
  private async finishIndexing(): Promise<boolean> {
    const indexed = await this.indexed;
    if (!indexed.ok) {
      renderFatal(this.root, 'Cannot open this trajectory', indexed.error.message);
      return false;
    }
    this.indexing = false;
    this.header = indexed.header;
    if (indexed.detail) this.details.set(indexed.detail.index, Promise.resolve(indexed.detail));
    this.showHeader();
    this.say('');
    const chosen = this.pending ?? this.state.selected;
    this.pending = undefined;
    await this.select(Math.min(chosen, Math.max(0, this.header.stepCount - 1)));
    return true;
  }

  /** Adds the summaries that follow those the timeline has (a range asked for and a grown file's may overlap). */
  private addSummaries(summaries: readonly StepSummary[]): void {
    const next = summaries.filter((s) => s.index >= this.summaries.length);
    this.summaries.push(...next);
    this.timeline.append(next);
  }

  /**
   * The file grew while it is shown (a running session): its new steps join the timeline, the
   * person's step, filters and scroll stay, and a page on the last step moves to the new last.
   */
  private async append({ header, summaries }: StepperAppended): Promise<void> {
    if (this.indexing) return;
    const atEnd = this.state.selected >= this.summaries.length - 1;
    this.header = header;
    this.showHeader();
    const first = summaries[0]?.index ?? this.summaries.length;
    if (first > this.summaries.length) {
      // Steps between those the page has and those sent (a long file's ranges still coming in).
      this.addSummaries(
        (await this.host.request(stepsSummaries, { start: this.summaries.length, end: Math.min(first, this.summaries.length + MAX_STEP_RANGE) })).summaries,
      );
    }
    this.addSummaries(summaries);
    this.applyFilter(false);
    const last = this.header.stepCount - 1;
    if (atEnd && last > this.state.selected) {
      await this.select(last);
      return;
    }
    this.position.textContent = `Step ${this.state.selected + 1} / ${this.stepTotal}`;
    const title = this.detail.querySelector('#step-title');
    if (title) title.textContent = stepTitle(this.state.selected, this.stepTotal);
  }

  private layout(): void {
    this.errorsOnly.checked = this.state.errorsOnly;
    this.search.value = this.state.query;
    const toolbar = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [el('strong', { text: this.header.fileName, attrs: { id: 'file-name' } }), this.titleFacts]),
      el('div', { className: 'controls' }, [this.search, this.toolFilter, this.errorsOnly, this.goTo, this.position, this.status]),
    ]);
    // The run's header is made by showHeader, here and again once an indexed file's header is final.
    this.runHeaderElement = el('section');
    this.root.replaceChildren(toolbar, this.runHeaderElement, this.notice, el('div', { className: 'panes' }, [this.timeline.element, this.detail]));
    this.showHeader();
    this.wireControls();
  }

  /** The step total shown: an ellipsis while the file is indexed. */
  private get stepTotal(): string {
    return this.indexing ? '…' : String(this.header.stepCount);
  }

  /** Fills the title's facts, the tool filter and the run's header from `header` (again once the file is indexed). */
  private showHeader(): void {
    const h = this.header;
    // Shown again as a running session's file grows: a problem statement the person opened stays open.
    const open = this.runHeaderElement?.querySelector('details')?.open === true;
    const facts = [h.format, this.indexing ? 'indexing…' : `${h.stepCount} steps`, h.instanceId, h.model];
    this.titleFacts.textContent = facts.filter((f): f is string => typeof f === 'string' && f.length > 0).join(' · ');
    this.toolFilter.replaceChildren(
      el('vscode-option', { text: 'All tools', attrs: { value: '' } }),
      ...h.tools.map((t) => el('vscode-option', { text: t, attrs: { value: t } })),
    );
    this.toolFilter.value = this.state.tool ?? '';
    if (this.indexing) this.toolFilter.setAttribute('disabled', '');
    else this.toolFilter.removeAttribute('disabled');
    const runHeader = this.runHeader();
    const details = runHeader.querySelector('details');
    if (details) details.open = open;
    this.runHeaderElement?.replaceWith(runHeader);
    this.runHeaderElement = runHeader;
  }

  /** How the run went, what it cost, and the task: the first thing asked of a failed run. */
  private runHeader(): HTMLElement {
    const h = this.header;
    const loading = this.indexing;
    const fact = (id: string, label: string, known: string, title = '') => {
      // While the file is indexed the run's facts (written after its steps) are not read yet.
      const value = loading ? 'loading' : known;
      const why = loading ? `${label}: read once the file is indexed` : value === 'unknown' ? `${label}: not recorded in this file` : title;
      return el('span', { className: `run-fact${value === 'unknown' || loading ? ' unknown' : ''}`, attrs: { id: `run-${id}`, title: why } }, [
        el('span', { className: 'run-fact-label', text: `${label} ` }),
        el('strong', { text: value }),
      ]);
    };
    const finalPatch = el(
      'vscode-button',
      {
        attrs: { id: 'final-patch', secondary: '', title: h.hasSubmission ? "Open the run's submitted patch in the patch view" : 'The run submitted no patch' },
      },
      [codicon('diff'), ' Final Patch'],
    );
    if (!h.hasSubmission || loading) finalPatch.setAttribute('disabled', '');
    if (loading) finalPatch.setAttribute('title', 'The submitted patch is read once the file is indexed');
    finalPatch.addEventListener('click', () => void this.showFinalPatch());
    const facts = el('div', { className: 'run-facts' }, [
      fact('outcome', 'Outcome', h.outcome),
      fact('cost', 'Cost', formatCost(h.cost)),
      fact('tokens', 'Tokens', formatTokens(h.tokensIn, h.tokensOut)),
      fact('calls', 'Calls', formatCount(h.calls)),
      fact('duration', 'Duration', formatSeconds(h.duration), "From the first to the last step's timestamp, else the sum of the steps' execution times"),
      ...(h.scaffold ? [fact('scaffold', 'Scaffold', h.scaffold.label, h.scaffold.detail)] : []),
      finalPatch,
    ]);
    const problem = loading
      ? el('p', { className: 'problem-statement unknown', text: 'Problem statement: loading', attrs: { id: 'problem-statement' } })
      : h.problemStatement?.trim()
        ? el('details', { className: 'problem-statement', attrs: { id: 'problem-statement' } }, [
            el('summary', { text: `Problem statement: ${h.problemStatement.trim().split('\n', 1)[0]}` }),
            el('pre', { className: 'problem-text', text: h.problemStatement }),
          ])
        : h.instructions?.trim()
          ? el('details', { className: 'problem-statement', attrs: { id: 'problem-statement' } }, [
              el('summary', { text: `Task, as the agent was told: ${h.instructions.trim().split('\n', 1)[0]}` }),
              el('pre', { className: 'problem-text', text: h.instructions }),
            ])
          : el('p', { className: 'problem-statement unknown', text: 'Problem statement: not recorded in this file', attrs: { id: 'problem-statement' } });
    // A newer format version read anyway, and a run joined from several files, are said once, above the task.
    const notes = [
      ...(h.warnings ?? []).map((w) => el('p', { className: 'run-warning', text: `⚠ ${w}`, attrs: { role: 'status' } })),
      ...(h.segments
        ? [el('p', { className: 'run-segments', text: `One run over ${h.segments.length} files: ${h.segments.join(', ')}`, attrs: { id: 'run-segments' } })]
        : []),
      ...(h.forks?.length ? [this.forksView(h.forks)] : []),
    ];
    return el('section', { className: 'run-header', attrs: { id: 'run-header', 'aria-label': 'Run' } }, [facts, ...notes, problem]);
  }

  private async showFinalPatch(): Promise<void> {
    try {
      await this.host.request(trajectoryShowFinalPatch, {});
      this.say('');
    } catch (error) {
      this.say(`Final Patch: ${errorText(error)}`);
    }
  }

  private say(message: string): void {
    this.notice.textContent = message;
    this.notice.hidden = message === '';
  }

  private clearFilters(): void {
    this.state = { ...this.state, tool: null, errorsOnly: false, query: '' };
    this.matches = null;
    this.toolFilter.value = '';
    this.errorsOnly.checked = false;
    this.search.value = '';
    this.timeline.highlight('');
    this.applyFilter(true);
    void this.select(this.state.selected);
    this.timeline.element.focus();
  }

  private wireControls(): void {
    this.search.addEventListener('change', () => void this.runSearch(this.search.value).then(() => this.applyFilter(true)));
    this.toolFilter.addEventListener('change', () => {
      this.state = { ...this.state, tool: this.toolFilter.value || null };
      this.applyFilter(true);
    });
    this.errorsOnly.addEventListener('change', () => {
      this.state = { ...this.state, errorsOnly: this.errorsOnly.checked };
      this.applyFilter(true);
    });
    this.goTo.addEventListener('change', () => {
      const n = Number(this.goTo.value);
      if (this.indexing && n !== 1) this.say(STILL_INDEXING);
      else if (Number.isInteger(n) && n >= 1 && n <= this.header.stepCount) void this.select(n - 1);
      this.goTo.value = '';
      this.timeline.element.focus();
    });
    document.addEventListener('keydown', (event) => this.onKey(event));
  }

  private onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as Element | null;
    if (target?.closest(INTERACTIVE)) {
      if (event.key === 'Escape') {
        // Esc in the search clears it (a second Esc, or Esc elsewhere, just leaves the field).
        if (target.closest('#search') && (this.search.value || this.state.query)) this.clearSearch();
        this.timeline.element.focus();
      }
      return;
    }
    if (event.key === 'Escape' && this.state.query) {
      this.clearSearch();
      return;
    }
    const move = keyMove(event.key);
    if (move) {
      event.preventDefault();
      void this.move(move);
    } else if (event.key === '/' || event.key === 'g') {
      event.preventDefault();
      (event.key === '/' ? this.search : this.goTo).focus();
    } else if (event.key === 'e') {
      this.errorsOnly.checked = !this.errorsOnly.checked;
      this.state = { ...this.state, errorsOnly: this.errorsOnly.checked };
      this.applyFilter(true);
    } else {
      const button = buttonForKey(event.key);
      const shown = button && this.detail.querySelector(`#${STEP_BUTTONS[button].id}`);
      if (button && shown) {
        event.preventDefault();
        void this.press(button, this.state.selected);
      }
    }
  }

  private async runSearch(query: string): Promise<void> {
    this.state = { ...this.state, query };
    this.matches = query ? new Set((await this.host.request(stepsSearch, { query, caseSensitive: false })).indices) : null;
    this.timeline.highlight(query);
    await this.select(this.state.selected);
  }

  private clearSearch(): void {
    this.search.value = '';
    void this.runSearch('').then(() => this.applyFilter(true));
  }

  /** Why no step is shown, naming each filter that is on. */
  private emptyReason(): string {
    const n = this.header.stepCount;
    const on: string[] = [];
    if (this.state.errorsOnly) on.push('errors only');
    if (this.state.tool !== null) on.push(`tool "${this.state.tool}"`);
    if (this.state.query) on.push(`search "${this.state.query}"`);
    if (on.length === 1 && this.state.errorsOnly)
      return `Errors only: none of the ${n} steps failed. Nothing in them shows a non-zero exit code, an error flag, a format error, or, in a command's output, a traceback, "command not found" or a failing test run.`;
    if (on.length === 1 && this.state.query) return `No step's thought, action or observation contains "${this.state.query}" (${n} steps searched).`;
    return `No step matches ${on.join(' and ')} (${n} steps).`;
  }

  /** Shows the steps that pass the filters; optionally moves the selection into them. */
  private applyFilter(reselect: boolean): void {
    this.visible = visibleSteps(this.summaries, { tool: this.state.tool, errorsOnly: this.state.errorsOnly, matches: this.matches });
    this.timeline.showOnly(new Set(this.visible), this.emptyReason());
    const filtered = this.visible.length !== this.summaries.length;
    this.status.textContent = filtered ? `${this.visible.length} of ${this.header.stepCount} steps shown` : '';
    this.saveState();
    if (reselect && this.visible.length > 0 && !this.visible.includes(this.state.selected)) void this.select(this.visible[0] ?? 0);
  }

  private async move(move: Move): Promise<void> {
    if (this.indexing) {
      this.say(STILL_INDEXING);
      return;
    }
    await this.select(moveSelection(this.visible, this.state.selected, move));
  }

  private async select(index: number): Promise<void> {
    if (this.indexing && index !== 0) {
      // Revealed by the host while indexing: shown once the file is read.
      this.pending = index;
      this.say(STILL_INDEXING);
      return;
    }
    if (index < 0 || index >= this.header.stepCount) return;
    if (index !== this.state.selected) this.say('');
    this.state = { ...this.state, selected: index };
    this.saveState();
    void this.host.request(stepperSelected, { index }).catch(() => undefined);
    this.timeline.select(index);
    this.position.textContent = `Step ${index + 1} / ${this.stepTotal}`;
    const detail = await this.detailFor(index).catch((error: unknown) => error as Error);
    if (this.state.selected !== index) return;
    this.detail.replaceChildren(
      detail instanceof Error
        ? el('p', { className: 'load-error', text: `Step ${index + 1} could not be loaded: ${detail.message}`, attrs: { role: 'alert' } })
        : renderStepDetail(
            detail,
            this.stepTotal,
            (button, i) => void this.press(button, i),
            this.state.query,
            () => this.wholeDetail(index),
            (position) => this.host.request(stepsDetokenize, { index, position }).then(({ text }) => text),
            (name) => void this.openSubagent(name),
          ),
    );
    // The neighbours are fetched now, so that j or k shows its step without waiting for the host.
    for (const move of ['next', 'previous'] as const) void this.detailFor(moveSelection(this.visible, index, move)).catch(() => undefined);
  }

  /** Step `index` read whole (a boot may carry its observation cut); kept for the next time it is shown. */
  private wholeDetail(index: number): Promise<StepDetail> {
    this.details.delete(index);
    return this.detailFor(index);
  }

  private detailFor(index: number): Promise<StepDetail> {
    let detail = this.details.get(index);
    if (!detail) {
      detail = this.host.request(stepsDetails, { start: index, end: index + 1 }).then(({ steps }) => {
        const step = steps[0];
        if (!step) throw new Error(`the host sent no step ${index + 1}`);
        return step;
      });
      this.details.set(index, detail);
    }
    return detail;
  }

  /** Runs a step button's command in the host; a failure is said in the status line. */
  private async press(button: StepButton, index: number): Promise<void> {
    try {
      if (button === 'openRaw') await this.host.request(stepsOpenRaw, { index });
      else await this.host.request(stepsAct, { action: button, index });
      this.say('');
    } catch (error) {
      this.say(`${STEP_BUTTONS[button].label}: ${errorText(error)}`);
    }
  }

  /** The other branches of a conversation kept as a tree, each a button that opens it in a stepper of its own. */
  private forksView(forks: NonNullable<TrajectoryHeader['forks']>): HTMLElement {
    const buttons = forks.map((f) => {
      const shared = f.sharedSteps === 0 ? 'none shared' : `steps 1-${f.sharedSteps} shared`;
      const button = el(
        'vscode-button',
        {
          className: 'open-branch',
          attrs: { secondary: '', title: `${f.inUse ? 'The branch the conversation has in use: ' : ''}${f.steps} steps, ${shared}` },
        },
        [codicon('git-branch'), ` Open branch ${f.id}`],
      );
      button.addEventListener('click', () => void this.openBranch(f.id));
      return el('span', { className: 'run-fork' }, [button, el('span', { text: ` ${f.inUse ? 'in use, ' : ''}${f.steps} steps, ${shared}` })]);
    });
    const label = `${forks.length} other branch${forks.length === 1 ? '' : 'es'}:`;
    return el('div', { className: 'run-forks', attrs: { id: 'run-forks', role: 'toolbar', 'aria-label': 'Other branches' } }, [
      el('span', { text: label }),
      ...buttons,
    ]);
  }

  private async openBranch(id: string): Promise<void> {
    try {
      await this.host.request(trajectoryOpenBranch, { id });
      this.say('');
    } catch (error) {
      this.say(`Open branch ${id}: ${errorText(error)}`);
    }
  }

  /** Opens a trajectory the step delegated to in a stepper of its own; a failure is said in the status line. */
  private async openSubagent(name: string): Promise<void> {
    try {
      await this.host.request(stepsOpenSubagent, { name });
      this.say('');
    } catch (error) {
      this.say(`Open subagent ${name}: ${errorText(error)}`);
    }
  }

  private saveState(): void {
    this.host.setState(this.state);
  }
}
