import { describeZodError, safeParse } from '../../extension/protocol/ipc';
import {
  MAX_STEP_RANGE,
  STEPPER_BOOT_ELEMENT,
  StepperBootSchema,
  StepperUiStateSchema,
  stepperReveal,
  stepperBoot,
  stepperSelected,
  stepsAct,
  stepsDetails,
  stepsOpenRaw,
  stepsSearch,
  stepsSummaries,
  type StepDetail,
  type StepperBoot,
  type StepSummary,
  type StepperUiState,
  type TrajectoryHeader,
} from '../../extension/protocol/stepper';
import { el, renderFatal } from '../dom';
import type { Host } from '../host';
import { keyMove, moveSelection, visibleSteps, type Move } from './navigation';
import { STEP_BUTTONS, buttonForKey, renderStepDetail, type StepButton } from './stepDetailView';
import { TimelineView } from './timelineView';
import { errorText } from '../errorText';

/**
 * A performance mark set at the first animation frame with the first step in the DOM, as the
 * benchmark's text-editor side is read on animation frames; bench/ui reads it.
 */
export const FIRST_STEP_MARK = 'sweWorkbench.stepper.firstStep';
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

/** The trajectory stepper: a timeline of steps and the selected step's details. */
export class Stepper {
  private header!: TrajectoryHeader;
  private summaries: StepSummary[] = [];
  private readonly details = new Map<number, Promise<StepDetail>>();
  private state: StepperUiState;
  private readonly restored: StepperUiState | undefined;
  private matches: ReadonlySet<number> | null = null;
  private visible: number[] = [];
  private readonly timeline = new TimelineView((index) => void this.select(index));
  private readonly detail = el('div', { className: 'detail', attrs: { id: 'detail', 'aria-live': 'polite' } });
  private readonly position = el('span', { className: 'position', attrs: { id: 'step-position' } });
  private readonly status = el('span', { className: 'status', attrs: { id: 'filter-status' } });
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
    this.host.onNotification(stepperReveal, ({ index }) => void this.select(index));
    if (boot.detail) this.details.set(boot.detail.index, Promise.resolve(boot.detail));
    this.layout();
    this.addSummaries(boot.summaries);
    this.applyFilter(false);
    const chosen = boot.reveal || !this.restored ? (boot.detail?.index ?? 0) : this.restored.selected;
    await this.select(Math.min(chosen, Math.max(0, this.header.stepCount - 1)));
    this.root.setAttribute('aria-busy', 'false');
    requestAnimationFrame(() => performance.mark(FIRST_STEP_MARK));
    if (this.state.query) await this.runSearch(this.state.query);
    for (let start = this.summaries.length; start < this.header.stepCount; start += MAX_STEP_RANGE) {
      const { summaries } = await this.host.request(stepsSummaries, { start, end: Math.min(start + MAX_STEP_RANGE, this.header.stepCount) });
      this.addSummaries(summaries);
    }
    this.applyFilter(false);
  }

  private addSummaries(summaries: readonly StepSummary[]): void {
    this.summaries.push(...summaries);
    this.timeline.append(summaries);
  }

  private layout(): void {
    const h = this.header;
    const facts = [h.format, `${h.stepCount} steps`, h.instanceId, h.model, h.exitStatus && `exit: ${h.exitStatus}`, h.resolved !== undefined && (h.resolved ? 'resolved' : 'not resolved'), h.reward !== undefined && `reward ${h.reward}`].filter((f): f is string => typeof f === 'string' && f.length > 0);
    this.toolFilter.append(el('vscode-option', { text: 'All tools', attrs: { value: '' } }), ...h.tools.map((t) => el('vscode-option', { text: t, attrs: { value: t } })));
    this.toolFilter.value = this.state.tool ?? '';
    this.errorsOnly.checked = this.state.errorsOnly;
    this.search.value = this.state.query;
    const toolbar = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [el('strong', { text: h.fileName, attrs: { id: 'file-name' } }), el('span', { className: 'facts', text: facts.join(' · ') })]),
      el('div', { className: 'controls' }, [this.search, this.toolFilter, this.errorsOnly, this.goTo, this.position, this.status]),
    ]);
    this.root.replaceChildren(toolbar, el('div', { className: 'panes' }, [this.timeline.element, this.detail]));
    this.wireControls();
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
      if (Number.isInteger(n) && n >= 1 && n <= this.header.stepCount) void this.select(n - 1);
      this.goTo.value = '';
      this.timeline.element.focus();
    });
    document.addEventListener('keydown', (event) => this.onKey(event));
  }

  private onKey(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as Element | null;
    if (target?.closest(INTERACTIVE)) {
      if (event.key === 'Escape') this.timeline.element.focus();
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
  }

  /** Shows the steps that pass the filters; optionally moves the selection into them. */
  private applyFilter(reselect: boolean): void {
    this.visible = visibleSteps(this.summaries, { tool: this.state.tool, errorsOnly: this.state.errorsOnly, matches: this.matches });
    this.timeline.showOnly(new Set(this.visible));
    const filtered = this.visible.length !== this.summaries.length;
    this.status.textContent = filtered ? `${this.visible.length} of ${this.header.stepCount} steps shown` : '';
    this.saveState();
    if (reselect && this.visible.length > 0 && !this.visible.includes(this.state.selected)) void this.select(this.visible[0] ?? 0);
  }

  private async move(move: Move): Promise<void> {
    await this.select(moveSelection(this.visible, this.state.selected, move));
  }

  private async select(index: number): Promise<void> {
    if (index < 0 || index >= this.header.stepCount) return;
    this.state = { ...this.state, selected: index };
    this.saveState();
    void this.host.request(stepperSelected, { index }).catch(() => undefined);
    this.timeline.select(index);
    this.position.textContent = `Step ${index + 1} / ${this.header.stepCount}`;
    const detail = await this.detailFor(index).catch((error: unknown) => error as Error);
    if (this.state.selected !== index) return;
    this.detail.replaceChildren(
      detail instanceof Error
        ? el('p', { className: 'load-error', text: `Step ${index + 1} could not be loaded: ${detail.message}`, attrs: { role: 'alert' } })
        : renderStepDetail(detail, this.header.stepCount, (button, i) => void this.press(button, i)),
    );
    // The neighbours are fetched now, so that j or k shows its step without waiting for the host.
    for (const move of ['next', 'previous'] as const) void this.detailFor(moveSelection(this.visible, index, move)).catch(() => undefined);
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
    } catch (error) {
      this.status.textContent = `${STEP_BUTTONS[button].label} failed: ${errorText(error)}`;
    }
  }

  private saveState(): void {
    this.host.setState(this.state);
  }
}
