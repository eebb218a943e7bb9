import * as vscode from 'vscode';
import { CancelledError, InputError } from '../../core/errors';
import type { Rollout } from '../../core/rollouts/record';
import { searchRollouts } from '../../core/rollouts/rolloutSearch';
import type { ProtocolError } from '../../protocol/ipc';
import { ProtocolFailure } from '../../protocol/ipc';
import { rolloutsChanged, rolloutsHeader, rolloutsLocate, rolloutsOpen, rolloutsQuery, rolloutsRows, rolloutsShowPatch, rolloutsCompareGroup, rolloutsShowReward, type RolloutQuery } from '../../protocol/rollouts';
import { Disposable } from '../dispose';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { groupStatistics, queryRollouts, toRolloutRow } from './rolloutTable';
import type { RolloutsSource } from './rolloutsSource';

export const ROLLOUTS_TABLE_VIEW = 'sweWorkbench.rolloutsTable';

function classify(error: unknown): ProtocolError {
  if (error instanceof InputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof CancelledError) return { code: 'cancelled', message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

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
  open(rollout: Rollout): Promise<{ index: number }>;
  showReward(rollout: Rollout): Promise<boolean>;
  showPatch(rollout: Rollout): Promise<boolean>;
  /** Compares the rollouts of the rollout's instance (its GRPO group). */
  compareGroup(rollout: Rollout): Promise<boolean>;
}

/** The rollouts table: one panel that answers its webview's range requests from the source's index. */
export class RolloutsTablePanel extends Disposable {
  readonly messenger: WebviewMessenger;
  private readonly matches = new LastResult<Rollout[]>();
  private readonly searches = new LastResult<ReadonlySet<string>>();

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly source: RolloutsSource,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
    actions: RolloutActions,
    /** Why the table cannot show what it showed before a reload; null when it can. */
    private problem: string | null = null,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri);
    this.messenger = this._register(new WebviewMessenger(panel.webview, log, classify));
    this.messenger.onRequest(rolloutsHeader, () => ({ folder: source.index?.root ?? null, indexErrors: source.index?.errors.length ?? 0, problem: this.problem }));
    this.messenger.onRequest(rolloutsQuery, async (query, signal) => {
      const rows = await this.rowsOf(query, signal);
      return { total: rows.length, indexed: source.index?.rollouts.length ?? 0, statistics: groupStatistics(rows), version: source.version };
    });
    this.messenger.onRequest(rolloutsRows, async ({ query, start, end }, signal) => ({ rows: (await this.rowsOf(query, signal)).slice(start, end).map(toRolloutRow), version: source.version }));
    this.messenger.onRequest(rolloutsOpen, async ({ id }) => ({ step: (await actions.open(this.rollout(id))).index }));
    this.messenger.onRequest(rolloutsShowReward, async ({ id }) => ({ shown: await actions.showReward(this.rollout(id)) }));
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

  private rowsOf(query: RolloutQuery, signal: AbortSignal): Promise<Rollout[]> {
    const index = this.source.index;
    if (!index) return Promise.resolve([]);
    const version = this.source.version;
    return this.matches.get(JSON.stringify(query), version, async () => {
      const search = query.search.trim();
      const found = search === '' ? undefined : await this.searches.get(search, version, async () => new Set((await searchRollouts(index.root, index.rollouts, search, { signal, maxHitsPerRollout: 1 })).map((h) => h.rollout)));
      return queryRollouts(index.rollouts, query, found);
    });
  }
}
