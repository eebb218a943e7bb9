import * as path from 'node:path';
import type * as vscode from 'vscode';
import { CancelledError, InputError } from '../../core/errors';
import type { Step, Trajectory } from '../../core/trajectory/model';
import { openSteps, type StepSource } from '../../core/trajectory/stepSource';
import type { StepSummary } from '../../protocol/stepper';
import { toStepSummary } from '../../views/stepView';

const RECORD_PARAM = 'record';
const SUBAGENT_PARAM = 'subagent';
const BRANCH_PARAM = 'branch';
/** The stepper's custom editor for any JSON file (the one `vscode.openWith` names). */
export const TRAJECTORY_EDITOR_ANY_JSON = 'sweWorkbench.trajectoryAnyJson';

/** The URI that opens, in a stepper of its own, the trajectory `name` a step of `uri` delegated to (ATIF's subagents). */
export function withSubagent(uri: vscode.Uri, name: string): vscode.Uri {
  return uri.with({ query: new URLSearchParams({ [SUBAGENT_PARAM]: name }).toString() });
}

/** The subagent a stepper URI names, or undefined for the file's own trajectory. */
function subagentOf(uri: vscode.Uri): string | undefined {
  return new URLSearchParams(uri.query).get(SUBAGENT_PARAM) ?? undefined;
}

/**
 * The URI that opens, in a stepper of its own, the branch ending at event `id` of a recording kept
 * as a tree (OpenHands V1): `.../base_state.json/branch-ID.json`, the id again in the query. VS Code
 * names an editor, and keeps it in its history (Quick Open's "recently opened"), by its URI's path:
 * with only the query told apart, the branch was listed as the file itself, and picking "the file"
 * there reopened the branch. The path ends in `.json` for the editor's `*.json` selector.
 */
export function withBranch(uri: vscode.Uri, id: string): vscode.Uri {
  return uri.with({
    path: path.posix.join(uri.path, `branch-${id.replace(/[\\/]/g, '_')}.json`),
    query: new URLSearchParams({ [BRANCH_PARAM]: id }).toString(),
  });
}

/** The branch a stepper URI names, or undefined for the one the recording has in use. */
function branchOf(uri: vscode.Uri): string | undefined {
  return new URLSearchParams(uri.query).get(BRANCH_PARAM) ?? undefined;
}

/** The file a stepper URI reads: a branch's URI names one below it (`withBranch`). */
export function trajectoryFileOf(uri: vscode.Uri): vscode.Uri {
  return branchOf(uri) === undefined ? uri : uri.with({ path: path.posix.dirname(uri.path), query: '' });
}

/**
 * The URI that opens record `record` (0-based) of a JSONL file in the stepper. The record rides in
 * the query, which `vscode.openWith` hands to the custom editor intact and which makes each record
 * its own document.
 */
export function withRecord(uri: vscode.Uri, record: number): vscode.Uri {
  return uri.with({ query: `${RECORD_PARAM}=${record}` });
}

/** The JSONL record a stepper URI names, or undefined for the first. */
export function recordOf(uri: vscode.Uri): number | undefined {
  const value = new URLSearchParams(uri.query).get(RECORD_PARAM);
  if (value === null) return undefined;
  if (!/^\d+$/.test(value)) throw new InputError(uri.fsPath, `URI query ${RECORD_PARAM}`, `expected a record number (0 or more), got "${value}"`);
  return Number(value);
}

/**
 * A trajectory file opened in the stepper: its URI and, once asked (when the editor opens it),
 * its steps (`openSteps` decides whether they are parsed whole or read from a byte index), the
 * steps without their observations, and the timeline's summaries, made in one pass over the
 * steps. Each happens once per document.
 */
/** The first step of a file being indexed, and the format that read it. */
interface PreviewStep {
  step: Step;
  format: string;
}

export class TrajectoryDocument implements vscode.CustomDocument {
  private opening: Promise<StepSource> | undefined;
  private lighting: Promise<Trajectory> | undefined;
  private summarizing: Promise<StepSummary[]> | undefined;
  private readonly controller = new AbortController();
  private resolvePreview!: (preview: PreviewStep | undefined) => void;
  private previewing = this.newPreview();

  /** The file the trajectory is read from (`uri` is the stepper's, which may name a part of it). */
  readonly file: string;

  constructor(readonly uri: vscode.Uri) {
    this.file = trajectoryFileOf(uri).fsPath;
  }

  get fileName(): string {
    const subagent = subagentOf(this.uri);
    const branch = branchOf(this.uri);
    if (branch !== undefined) return `${path.basename(this.file)} › branch ${branch}`;
    return subagent === undefined ? path.basename(this.file) : `${path.basename(this.file)} › ${subagent}`;
  }

  private settled = false;

  source(): Promise<StepSource> {
    this.opening ??= Promise.resolve()
      .then(() => {
        const subagent = subagentOf(this.uri);
        const branch = branchOf(this.uri);
        return openSteps(this.file, {
          signal: this.controller.signal,
          record: recordOf(this.uri),
          ...(subagent === undefined ? {} : { subagent }),
          ...(branch === undefined ? {} : { branch }),
          onPreview: (step, format) => this.resolvePreview(step && { step, format: format ?? 'canonical' }),
        });
      })
      .finally(() => this.resolvePreview(undefined));
    return this.opening;
  }

  /**
   * The first step of a file being indexed, read from its own bytes as soon as they are (see
   * `OpenStepsOptions.onPreview`); undefined, as soon as that is known, when the file is read
   * whole or has no such step, or when it failed first.
   */
  preview(): Promise<PreviewStep | undefined> {
    void this.source().catch(() => undefined);
    return this.previewing;
  }

  /** The trajectory with every step but without observations: ready once the file is indexed (or parsed). */
  light(): Promise<Trajectory> {
    this.lighting ??= this.source()
      .then(async (source) => ({ ...source.header, steps: await source.lightSteps() }))
      .finally(() => {
        this.settled = true;
      });
    return this.lighting;
  }

  /** Every step's summary, made in one pass that reads each step once. */
  summaries(): Promise<StepSummary[]> {
    this.summarizing ??= this.source().then(async (source) => {
      const out: StepSummary[] = [];
      for (let i = 0; i < source.stepCount; i++) {
        if (this.controller.signal.aborted) throw new CancelledError('the trajectory was closed');
        out.push(toStepSummary(await source.step(i)));
      }
      return out;
    });
    return this.summarizing;
  }

  /** The file was rewritten (a running session's trajectory grew): everything is read from it again when next asked. */
  reset(): void {
    this.opening = this.lighting = this.summarizing = undefined;
    this.settled = false;
    this.previewing = this.newPreview();
  }

  private newPreview(): Promise<PreviewStep | undefined> {
    return new Promise((resolve) => {
      this.resolvePreview = resolve;
    });
  }

  /** The light trajectory has been made or has failed: the first step can be shown without waiting. */
  get isSettled(): boolean {
    return this.settled;
  }

  dispose(): void {
    this.controller.abort('the trajectory was closed');
  }
}
