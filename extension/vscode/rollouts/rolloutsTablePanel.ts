import * as vscode from 'vscode';
import { CancelledError, InputError, classifyError } from '../../core/errors';
import type { Recipe } from '../../core/reward/recipes';
import { scoreRun, type ScoredRollout, type ScoredRun } from '../../core/rollouts/recipeRun';
import { goldPatches, patchExtras } from '../../core/rollouts/recipeEvidence';
import type { Rollout } from '../../core/rollouts/record';
import { groupRollouts } from '../../core/rollouts/rolloutGroups';
import { runStatistics } from '../../core/rollouts/rolloutQuery';
import { findRollouts, matchRollouts } from '../../core/rollouts/rolloutSearch';
import { ProtocolFailure } from '../../protocol/ipc';
import {
  ExportRequestSchema,
  rolloutsChanged,
  rolloutsExport,
  rolloutsExportCancel,
  rolloutsExportProgress,
  rolloutsGroup,
  rolloutsHeader,
  rolloutsLocate,
  rolloutsOpen,
  rolloutsQuery,
  rolloutsRecipes,
  rolloutsRows,
  rolloutsShowPatch,
  rolloutsCompareGroup,
  rolloutsShowReward,
  type ExportResult,
  type RecipeChoice,
  type RolloutQuery,
} from '../../protocol/rollouts';
import type * as z from 'zod/mini';
import { exportSft, parsePresets } from '../../core/rollouts/curation';
import { Disposable } from '../dispose';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { gradingConflictIndex, gradingConflictsShown, groupDetails, querySpec, recipeInfo, recipeSummary, toRolloutRow } from '../../views/rolloutTable';
import type { RolloutsSource } from './rolloutFolder';

export const ROLLOUTS_TABLE_VIEW = 'sweWorkbench.rolloutsTable';

/** Remembers the last answer per key and index version: scrolling asks the same query many times. */
class LastResult<T> {
  private last: { key: string; version: number; value: Promise<T> } | undefined;

  get(key: string, version: number, compute: () => Promise<T>): Promise<T> {
    if (this.last?.key !== key || this.last.version !== version) {
      const value = compute();
      this.last = { key, version, value };
      value.catch(() => {
        if (this.last?.value === value) this.last = undefined;
      });
    }
    return this.last.value;
  }
}

/** What a row's actions do on the host: the same as the Rollouts view's commands. */
export interface RolloutActions {
  /** Where an export named in the view goes: a relative name is under the first workspace folder. */
  exportTarget(file: string): string;
  /** The gold patches of sweWorkbench.rollouts.instances, for SWE-RL; undefined when it is not set. */
  goldPatches(): Promise<Map<string, string> | undefined>;
  /** The recipes on offer: the built-in ones and the user's file's. */
  recipes(): Promise<{ recipes: Recipe[]; file: string | null; problem: string | null }>;
  open(rollout: Rollout): Promise<{ index: number }>;
  /** The rollout's reward breakdown, scored with `recipe` when the table has one. */
  showReward(rollout: Rollout, recipe?: string): Promise<boolean>;
  showPatch(rollout: Rollout): Promise<boolean>;
  /** Compares the rollouts of the rollout's instance (its GRPO group). */
  compareGroup(rollout: Rollout): Promise<boolean>;
}

/** The rollouts table: one panel that answers its webview's range requests from the source's index. */
export class RolloutsTablePanel extends Disposable {
  readonly messenger: WebviewMessenger;
  private readonly matches = new LastResult<Rollout[]>();
  private readonly searches = new LastResult<ReadonlySet<string>>();
  private readonly scored = new LastResult<{ run: ScoredRun; byId: Map<string, ScoredRollout> }>();
  private readonly conflicts = new LastResult<ReturnType<typeof gradingConflictIndex>>();

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly source: RolloutsSource,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    private readonly actions: RolloutActions,
    /** Why the table cannot show what it showed before a reload; null when it can. */
    private problem: string | null = null,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri);
    this.messenger = this._register(new WebviewMessenger(panel.webview, log, classifyError));
    this.messenger.onRequest(rolloutsHeader, () => ({
      folder: source.index?.root ?? null,
      indexErrors: source.index?.errors.length ?? 0,
      problem: this.problem,
    }));
    this.messenger.onRequest(rolloutsRecipes, async () => {
      const catalog = await actions.recipes();
      return { recipes: catalog.recipes.map(recipeInfo), file: catalog.file, problem: catalog.problem };
    });
    this.messenger.onRequest(rolloutsQuery, async (query, signal) => {
      const rows = await this.rowsOf(query, signal);
      const scored = query.recipe ? await this.scoredRun(query.recipe) : undefined;
      const conflicts = gradingConflictsShown(await this.gradingConflicts(), rows);
      return {
        total: rows.length,
        indexed: source.index?.rollouts.length ?? 0,
        statistics: runStatistics(rows).statistics,
        version: source.version,
        rescored: source.index?.rollouts.some((r) => r.mismatch !== undefined) ?? false,
        branched: source.index?.rollouts.some((r) => r.critical !== undefined) ?? false,
        ...(scored ? { recipe: recipeSummary(scored.run, new Set(rows.map((r) => r.id))) } : {}),
        ...(conflicts.length > 0 ? { gradingConflicts: conflicts } : {}),
      };
    });
    this.messenger.onRequest(rolloutsRows, async ({ query, start, end }, signal) => {
      const scored = query.recipe ? await this.scoredRun(query.recipe) : undefined;
      const conflicts = (await this.gradingConflicts()).byRollout;
      return {
        rows: (await this.rowsOf(query, signal)).slice(start, end).map((r) => toRolloutRow(r, scored?.byId.get(r.id), conflicts.get(r.id))),
        version: source.version,
      };
    });
    this.messenger.onRequest(rolloutsExport, (request, signal) => this.export(request, signal));
    this.messenger.onRequest(rolloutsExportCancel, () => {
      const running = this.exporting;
      running?.abort('cancelled');
      return { cancelled: running !== undefined };
    });
    this.messenger.onRequest(rolloutsGroup, async ({ recipe, instance }) => {
      const details = groupDetails((await this.scoredRun(recipe)).run, instance);
      if (!details) throw new ProtocolFailure('not-found', `no instance ${instance} in the index`);
      return details;
    });
    this.messenger.onRequest(rolloutsOpen, async ({ id }) => ({ step: (await actions.open(this.rollout(id))).index }));
    this.messenger.onRequest(rolloutsShowReward, async ({ id, recipe }) => ({ shown: await actions.showReward(this.rollout(id), recipe) }));
    this.messenger.onRequest(rolloutsShowPatch, async ({ id }) => ({ shown: await actions.showPatch(this.rollout(id)) }));
    this.messenger.onRequest(rolloutsCompareGroup, async ({ id }) => ({ shown: await actions.compareGroup(this.rollout(id)) }));
    this.messenger.onRequest(rolloutsLocate, async ({ query, id }, signal) => {
      const index = (await this.rowsOf(query, signal)).findIndex((r) => r.id === id);
      return { index: index < 0 ? null : index };
    });
    this._register(
      source.onDidChange(() => {
        this.problem = null;
        this.messenger.notify(rolloutsChanged, { version: source.version, folder: source.index?.root ?? null });
      }),
    );
    this._register(panel.onDidDispose(() => this.dispose()));
    showView(panel.webview, extensionUri, 'rollouts', 'Rollouts', log);
  }

  private rollout(id: string): Rollout {
    const rollout = this.source.rollout(id);
    if (!rollout) throw new ProtocolFailure('not-found', `no rollout ${id} in the index`);
    return rollout;
  }

  private exporting: AbortController | undefined;

  /** The query's rows as SFT data, with progress notifications; a cancel leaves the target file as it was. */
  private async export({ query, keep, file }: z.infer<typeof ExportRequestSchema>, signal: AbortSignal): Promise<ExportResult> {
    if (this.exporting) throw new ProtocolFailure('invalid-input', 'an export is already running');
    const index = this.source.index;
    if (!index) throw new ProtocolFailure('invalid-input', 'no rollouts folder is open');
    const presets = parsePresets(keep);
    const target = this.actions.exportTarget(file);
    // Taken before the first await: a cancel sent right after the export reaches it.
    const controller = new AbortController();
    this.exporting = controller;
    const stop = () => controller.abort('cancelled');
    signal.addEventListener('abort', stop);
    let total = 0;
    try {
      const rows = await this.rowsOf(query, signal);
      total = rows.length;
      const scored = query.recipe ? (await this.scoredRun(query.recipe)).run : undefined;
      const step = Math.max(1, Math.floor(rows.length / 100));
      const summary = await exportSft(index.root, rows, target, {
        presets,
        all: index.rollouts,
        ...(scored ? { scored } : {}),
        signal: controller.signal,
        onProgress: (p) => {
          if (p.done % step === 0 || p.done === p.total) this.messenger.notify(rolloutsExportProgress, p);
        },
      });
      return { ...summary, gitHistory: summary.gitHistory.length, cancelled: false };
    } catch (error) {
      if (error instanceof CancelledError) return { file: target, selected: total, written: 0, skipped: {}, gitHistory: 0, bytes: 0, cancelled: true };
      throw error;
    } finally {
      signal.removeEventListener('abort', stop);
      this.exporting = undefined;
    }
  }

  /**
   * The whole index scored by the recipe: a GRPO group is every rollout of its instance, so the
   * advantages do not move with the filter. Computed once per recipe, estimator and index version.
   */
  private scoredRun(choice: RecipeChoice): Promise<{ run: ScoredRun; byId: Map<string, ScoredRollout> }> {
    return this.scored.get(`${choice.name}/${choice.estimator}`, this.source.version, async () => {
      const { recipes } = await this.actions.recipes();
      const recipe = recipes.find((r) => r.name === choice.name);
      if (!recipe) throw new ProtocolFailure('invalid-input', `unknown recipe '${choice.name}': one of ${recipes.map((r) => r.name).join(', ')}`);
      const index = this.source.index;
      const golds = recipe.shape === 'swe-rl' && index ? await this.actions.goldPatches() : undefined;
      const extras = golds && index ? await patchExtras(index.root, index.rollouts, golds) : undefined;
      const run = scoreRun(index?.rollouts ?? [], recipe, choice.estimator, extras);
      return { run, byId: new Map(run.rollouts.map((r) => [r.id, r])) };
    });
  }

  /** The whole index's grading conflicts, once per index version. */
  private gradingConflicts(): Promise<ReturnType<typeof gradingConflictIndex>> {
    return this.conflicts.get('', this.source.version, () => Promise.resolve(gradingConflictIndex(groupRollouts(this.source.index?.rollouts ?? []))));
  }

  private rowsOf(query: RolloutQuery, signal: AbortSignal): Promise<Rollout[]> {
    const index = this.source.index;
    if (!index) return Promise.resolve([]);
    const version = this.source.version;
    return this.matches.get(JSON.stringify(query), version, async () => {
      // A new sort of the same filter and search reuses the search's matches, answered from the index's text store.
      const search = (filtered: readonly Rollout[], text: string) =>
        this.searches.get(JSON.stringify([query.filter, text]), version, () =>
          matchRollouts(index.root, filtered, text, { signal, ...(index.text ? { text: index.text } : {}) }),
        );
      return (await findRollouts(index, querySpec(query), { search })).rows;
    });
  }
}
