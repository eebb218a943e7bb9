import * as vscode from 'vscode';
import { classifyError } from '../../core/errors';
import type { Step, Trajectory } from '../../core/trajectory/model';
import type { StepSource } from '../../core/trajectory/stepSource';
import { stepChange } from '../../core/trajectory/stepChange';
import type { ProtocolError } from '../../protocol/ipc';
import { ProtocolFailure } from '../../protocol/ipc';
import {
  branchValues,
  STEPPER_BOOT_ELEMENT,
  stepperBranchValues,
  stepperAppended,
  stepperBoot,
  stepperIndexed,
  stepperReveal,
  stepperSelected,
  stepsAct,
  stepsDetails,
  stepsOpenRaw,
  stepsOpenSubagent,
  trajectoryOpenBranch,
  stepsSearch,
  stepsSummaries,
  trajectoryOpen,
  trajectoryShowFinalPatch,
  type StepAction,
  type StepperBoot,
} from '../../protocol/stepper';
import { Disposable } from '../dispose';
import { showView } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { branchFolderOf, readBranchRun } from '../../core/branch/branchRun';
import { branchStrip } from '../../views/branchView';
import type { BranchStrip } from '../../protocol/stepper';
import { bootDetail, outlineBootPayload, previewBootPayload, searchSteps, toStepDetail, toTrajectoryHeader } from '../../views/stepView';
import type { RawRecordDocuments } from './rawRecordDocuments';
import { recordOf, TRAJECTORY_EDITOR_ANY_JSON, trajectoryFileOf, withBranch, withSubagent, type TrajectoryDocument } from './trajectoryDocument';

/** The argument `sweWorkbench.session.replay` and `.fork` take to act on a step of a trajectory without asking. */
interface TrajectoryStep {
  trajectory: vscode.Uri;
  step: number;
}

/**
 * What `sweWorkbench.patch.show` opens for a step's diff: the step of the file when it recorded
 * the diff (and is not a record of a JSONL file, which the patch view would read as its first),
 * else the diff text itself: a final patch, or a change rebuilt from the step's edit.
 */
function showStepChange(document: TrajectoryDocument, trajectory: Trajectory, index: number): Thenable<unknown> {
  const change = stepChange(trajectory, index);
  if (change.kind === 'none') throw new ProtocolFailure('not-found', change.reason);
  const source =
    change.kind === 'recorded' && recordOf(document.uri) === undefined
      ? { trajectory: document.file, step: index }
      : { diff: change.diff, title: `${document.fileName}: ${change.title}${change.kind === 'edit' ? ' (rebuilt from the edit)' : ''}` };
  return vscode.commands.executeCommand('sweWorkbench.patch.show', source);
}

/** Runs a step button's command. Replay and fork ask their own questions and run long: they are started, not awaited. */
async function runStepAction(document: TrajectoryDocument, trajectory: Trajectory, step: Step, action: StepAction): Promise<boolean> {
  const target: TrajectoryStep = { trajectory: trajectoryFileOf(document.uri), step: step.index };
  switch (action) {
    case 'showDiff':
      return (await showStepChange(document, trajectory, step.index)) !== undefined;
    case 'fork':
      void vscode.commands.executeCommand('sweWorkbench.session.fork', target);
      return true;
    case 'replayTo':
      void vscode.commands.executeCommand('sweWorkbench.session.replay', target);
      return true;
  }
}

/**
 * One open stepper: renders its page with the first step embedded and answers its webview's
 * requests from the document's trajectory.
 */
export class StepperSession extends Disposable {
  readonly messenger: WebviewMessenger;
  /** The step on screen, embedded whenever the page is rendered again. */
  private selected = 0;
  /** The page being loaded was asked to show `selected` over its saved step. */
  private revealing = false;
  /** The page has booted and takes reveal notifications; false while it loads or is hidden. */
  private booted = false;
  /**
   * A page has told the step it shows: from then on `selected` is the step on screen, and a page
   * rendered again for a hidden view shows it over the webview's saved state, which the workbench
   * may not have stored yet when the view is hidden right after a move.
   */
  private pageReported = false;
  /**
   * Resolves once the page last rendered runs (it asked for its boot or reported its step): a
   * notification posted before may reach no listener, so `stepper/indexed` waits for it.
   */
  private pageRunning!: Promise<void>;
  private pageRuns!: () => void;

  constructor(
    readonly document: TrajectoryDocument,
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    rawRecordDocuments: RawRecordDocuments,
  ) {
    super();
    this.newPage();
    this.messenger = this._register(new WebviewMessenger(panel.webview, log, classifyError));
    const stepAt = async (index: number) => {
      const source = await document.source();
      if (index >= source.stepCount) throw new ProtocolFailure('not-found', `${document.fileName} has no step ${index + 1}`);
      return source.step(index);
    };
    this.messenger.onRequest(trajectoryOpen, async () => toTrajectoryHeader(await document.light(), document.fileName));
    this.messenger.onRequest(stepsSummaries, async (range) => {
      return { summaries: (await document.summaries()).slice(range.start, range.end) };
    });
    this.messenger.onRequest(stepsDetails, async (range) => {
      const trajectory = await document.light();
      const steps = await (await document.source()).steps(range.start, range.end);
      return { steps: steps.map((s) => toStepDetail(s, trajectory)) };
    });
    this.messenger.onRequest(trajectoryShowFinalPatch, async () => {
      const { outcome } = await document.light();
      if (!outcome.submission?.trim())
        throw new ProtocolFailure('not-found', `${document.fileName} records no submitted patch${outcome.exitStatus ? ` (exit: ${outcome.exitStatus})` : ''}.`);
      return {
        done:
          (await vscode.commands.executeCommand('sweWorkbench.patch.show', { diff: outcome.submission, title: `${document.fileName}: final patch` })) !==
          undefined,
      };
    });
    this.messenger.onRequest(stepsSearch, async ({ query, caseSensitive }) => {
      // Observations are read again, a step at a time: the outline does not keep them.
      const source = await document.source();
      const indices: number[] = [];
      for (let i = 0; i < source.stepCount; i++) indices.push(...searchSteps([await source.step(i)], query, caseSensitive));
      return { indices };
    });
    this.messenger.onRequest(stepsOpenRaw, async ({ index }) => {
      const records = await (await document.source()).rawRecords(await stepAt(index));
      if (records.length === 0) throw new ProtocolFailure('not-found', `step ${index + 1} of ${document.fileName} records no source`);
      await rawRecordDocuments.show(document.fileName, index + 1, records.length === 1 ? records[0] : records);
      return { opened: true };
    });
    this.messenger.onRequest(trajectoryOpenBranch, async ({ id }) => {
      await vscode.commands.executeCommand('vscode.openWith', withBranch(trajectoryFileOf(document.uri), id), TRAJECTORY_EDITOR_ANY_JSON);
      return { opened: true };
    });
    this.messenger.onRequest(stepsOpenSubagent, async ({ name }) => {
      await vscode.commands.executeCommand('vscode.openWith', withSubagent(document.uri, name), TRAJECTORY_EDITOR_ANY_JSON);
      return { opened: true };
    });
    this.messenger.onRequest(branchValues, async () => ({ strip: await this.branchStrip() }));
    this.messenger.onRequest(stepperBoot, () => {
      this.pageRuns();
      return this.boot(this.selected, this.revealing);
    });
    this.messenger.onRequest(stepsAct, async ({ action, index }) => ({
      done: await runStepAction(document, await document.light(), await stepAt(index), action),
    }));
    this.messenger.onRequest(stepperSelected, ({ index }) => {
      this.pageRuns();
      this.selected = index;
      this.booted = true;
      this.pageReported = true;
      return {};
    });
    // A hidden page is discarded; the next one is rendered now, on the step it will show: the one
    // the page last reported (a page that never reported leaves the choice to its saved state).
    this._register(
      panel.onDidChangeViewState(() => {
        if (panel.visible) return;
        this.booted = false;
        void this.render(this.selected, this.pageReported);
      }),
    );
  }

  /** The value strip of the branch run beside the recording (core/branch: `branchFolderOf`); null when there is none. */
  private async branchStrip(): Promise<BranchStrip | null> {
    if (this.document.uri.scheme !== 'file') return null;
    const folder = branchFolderOf(this.document.file);
    const run = await readBranchRun(folder);
    return run ? branchStrip(run.summary, vscode.workspace.asRelativePath(folder)) : null;
  }

  /** The branch run beside the recording changed: the page shows its values again. */
  async branchesChanged(): Promise<void> {
    if (this.booted) this.messenger.notify(stepperBranchValues, { strip: await this.branchStrip() });
  }

  /** The page boot payload for step `index`: `reveal` makes it win over the view's saved step. */
  async boot(index: number, reveal: boolean): Promise<StepperBoot> {
    try {
      // A file being indexed shows its first step as soon as it is read; the header follows.
      const preview = index === 0 && !this.document.isSettled ? await this.document.preview() : undefined;
      if (preview && !this.document.isSettled) {
        const source = this.document.source();
        void this.document.light().then(
          async (trajectory) => this.indexed({ trajectory, source: await source }),
          (error: unknown) => this.indexed({ error }),
        );
        return previewBootPayload(preview.step, preview.format, this.document.fileName);
      }
      const trajectory = await this.document.light();
      const source = await this.document.source();
      const shown = Math.min(index, source.stepCount - 1);
      // A file read whole boots with its first range of summaries; an indexed one shows the step first, and the page asks for the timeline.
      const summaries = source.mode === 'whole' ? await this.document.summaries() : [];
      return outlineBootPayload({ trajectory, summaries }, shown >= 0 ? await source.step(shown) : undefined, this.document.fileName, reveal);
    } catch (error) {
      this.log.error(`cannot open ${this.document.file}`, error);
      return { ok: false, error: classifyError(error) };
    }
  }

  /** A page is about to be rendered: it runs once it asks for its boot or reports its step. */
  private newPage(): void {
    this.pageRunning = new Promise((resolve) => {
      this.pageRuns = resolve;
    });
  }

  /** Tells a page booted on a preview that the index is complete (once the page runs): the final header and first step, or why the file cannot be read. */
  private async indexed(read: { trajectory: Trajectory; source: StepSource } | { error: unknown }): Promise<void> {
    await this.pageRunning;
    if (this.isDisposed) return;
    try {
      if ('error' in read) throw read.error;
      const { trajectory: t, source } = read;
      const first = source.stepCount > 0 ? bootDetail(toStepDetail(await source.step(0), t)) : undefined;
      this.messenger.notify(stepperIndexed, { ok: true, header: toTrajectoryHeader(t, this.document.fileName), ...(first ? { detail: first } : {}) });
    } catch (error) {
      this.log.error(`cannot open ${this.document.file}`, error);
      this.messenger.notify(stepperIndexed, { ok: false, error: classifyError(error) });
    }
  }

  /**
   * Renders the page on step `index` (over the view's saved step when `reveal`). A file being
   * indexed is rendered with its first step embedded as soon as that step is read (milliseconds
   * in), so the page shows it without a round trip to the extension host. Any other parse still
   * under way is not waited for (`preview` says so at once): the page asks for its boot payload
   * once, and the parse overlaps the panel's own start instead of delaying it.
   */
  async render(index: number, reveal: boolean): Promise<void> {
    this.selected = index;
    this.revealing = reveal;
    this.newPage();
    const ready = this.document.isSettled || (index === 0 && (await this.document.preview()) !== undefined);
    if (this.isDisposed) return;
    const embedded = ready ? { id: STEPPER_BOOT_ELEMENT, value: await this.boot(index, reveal) } : undefined;
    if (this.isDisposed) return;
    showView(this.panel.webview, this.extensionUri, 'stepper', this.document.fileName, this.log, embedded);
  }

  /**
   * The file was rewritten with `stepCount` steps (a running session's trajectory). A page that
   * runs is sent the new steps, which it appends (keeping the person's step and scroll, or moving
   * to the new last step when it showed the last); a page loading or hidden is rendered again
   * from the file, on the new last step when it showed the last one, else on its step.
   */
  follow(stepCount: number): Promise<void> {
    // One after another: a page rendered for an older file must not land after a newer one.
    this.following = this.following.then(() => this.followNow(stepCount)).catch((error: unknown) => this.log.error('the stepper could not follow', error));
    return this.following;
  }

  private following = Promise.resolve();

  private async followNow(stepCount: number): Promise<void> {
    if (this.isDisposed) return;
    const previous = this.document.isSettled
      ? await this.document.source().then(
          (s) => s.stepCount,
          () => undefined,
        )
      : undefined;
    this.document.reset();
    if (this.booted && this.panel.visible && previous !== undefined) {
      const trajectory = await this.document.light();
      const summaries = await this.document.summaries();
      if (this.isDisposed) return;
      // A file that lost steps is not a session's growing trajectory: shown anew below.
      if (summaries.length >= previous) {
        this.messenger.notify(stepperAppended, { header: toTrajectoryHeader(trajectory, this.document.fileName), summaries: summaries.slice(previous) });
        return;
      }
    }
    const atEnd = previous === undefined || this.selected >= previous - 1;
    this.booted = false;
    await this.render(atEnd ? Math.max(0, stepCount - 1) : this.selected, true);
  }

  /** Selects step `index`: at once in a booted page, else in the page rendered for it. */
  async reveal(index: number): Promise<void> {
    if (this.booted && this.panel.visible) {
      this.selected = index;
      this.messenger.notify(stepperReveal, { index });
    } else {
      this.booted = false;
      await this.render(index, true);
    }
  }
}
