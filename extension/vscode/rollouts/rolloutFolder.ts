import * as vscode from 'vscode';
import { CancelledError } from '../../core/errors';
import type { Rollout } from '../../core/rollouts/record';
import type { RolloutIndex } from '../../core/rollouts/rolloutIndex';
import { WorkerRolloutIndexer } from '../../core/rollouts/workerIndexer';
import { watchRollouts, type RolloutWatch } from '../../core/rollouts/rolloutWatch';
import { joinTokenReport, readTokenReport } from '../../core/rollouts/tokenMismatch';
import { Disposable } from '../dispose';

/**
 * The folder of rollouts the tree and the table show: indexed with progress and cancellation,
 * cached in the extension's storage, and re-indexed while a run keeps writing to it. The index
 * runs in a worker thread: reading 100,000 rollouts must not stall the extension host.
 */
export class RolloutsSource extends Disposable {
  private indexer: WorkerRolloutIndexer | undefined;
  private watch: RolloutWatch | undefined;
  private byId = new Map<string, Rollout>();
  private indexValue: RolloutIndex | undefined;
  private versionValue = 0;
  private opening: { folder: string; index: Promise<RolloutIndex | undefined> } | undefined;
  private requests = 0;
  private updates = 0;
  private readonly changed = this._register(new vscode.EventEmitter<RolloutIndex>());
  /** Fires after every index: a folder opened or the run changed on disk. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly cacheDir: string,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register({
      dispose: () => {
        this.watch?.close();
        void this.indexer?.close();
      },
    });
  }

  get index(): RolloutIndex | undefined {
    return this.indexValue;
  }

  get version(): number {
    return this.versionValue;
  }

  rollout(id: string): Rollout | undefined {
    return this.byId.get(id);
  }

  /**
   * Indexes `folder` under a cancellable progress notification; resolves undefined when
   * cancelled or when another folder was asked for meanwhile: the last folder asked for is
   * shown (a window restoring its table asks for the table's folder after the setting's).
   */
  open(folder: string): Promise<RolloutIndex | undefined> {
    if (this.opening?.folder === folder) return this.opening.index;
    const index = this.indexFolder(folder, ++this.requests);
    const opening = { folder, index };
    this.opening = opening;
    const done = () => {
      if (this.opening === opening) this.opening = undefined;
    };
    index.then(done, done);
    return index;
  }

  private async indexFolder(folder: string, request: number): Promise<RolloutIndex | undefined> {
    const indexer = new WorkerRolloutIndexer(folder, { cacheDir: this.cacheDir });
    const index = await this.indexWithProgress(folder, indexer).catch(async (error: unknown) => {
      await indexer.close();
      throw error;
    });
    if (!index || request !== this.requests) {
      void indexer.close();
      return undefined;
    }
    this.watch?.close();
    void this.indexer?.close();
    this.indexer = indexer;
    await this.update(index);
    this.watch = watchRollouts(indexer, {
      onUpdate: (next) => void this.update(next),
      onError: (error) => this.log.warn(`re-indexing ${folder} failed`, error),
    });
    return index;
  }

  /** Shows `index`, with the run's re-score (`tokens DIR --save`) joined when there is one. */
  private async update(indexed: RolloutIndex): Promise<void> {
    const order = ++this.updates;
    const report = await readTokenReport(indexed.root).catch((error: unknown) => {
      // The rollouts still show; their mismatch columns are unknown and the log says why.
      this.log.warn(`the re-score of ${indexed.root} could not be read`, error);
      return undefined;
    });
    // A later index may have been read meanwhile: the newest wins.
    if (order !== this.updates) return;
    const index = report ? { ...indexed, rollouts: joinTokenReport(indexed.rollouts, report) } : indexed;
    this.indexValue = index;
    this.byId = new Map(index.rollouts.map((r) => [r.id, r]));
    this.versionValue++;
    this.log.info(
      `indexed ${index.rollouts.length} rollouts in ${index.root} (${index.stats.filesRead} read, ${index.stats.filesCached} cached, ${index.errors.length} unreadable)`,
    );
    this.changed.fire(index);
  }

  private async indexWithProgress(folder: string, indexer: WorkerRolloutIndexer): Promise<RolloutIndex | undefined> {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Indexing rollouts in ${folder}`, cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const cancel = token.onCancellationRequested(() => controller.abort('cancelled'));
        let reported = 0;
        try {
          return await indexer.refresh(controller.signal, ({ done, total, file }) => {
            const percent = (100 * done) / total;
            progress.report({ increment: percent - reported, message: `${done}/${total} ${file}` });
            reported = percent;
          });
        } catch (error) {
          if (error instanceof CancelledError) return undefined;
          throw error;
        } finally {
          cancel.dispose();
        }
      },
    );
  }

  /** The folder being shown, for a caller that must not start a second index of it. */
  get folder(): string | undefined {
    return this.indexer?.root;
  }
}
