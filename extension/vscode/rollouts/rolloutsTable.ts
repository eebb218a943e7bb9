import { stat } from 'node:fs/promises';
import * as vscode from 'vscode';
import { RolloutsUiStateSchema } from '../../protocol/rollouts';
import type { Glue } from '../commands';
import type { RolloutsSource } from './rolloutFolder';
import { ROLLOUTS_TABLE_VIEW, RolloutsTablePanel, type RolloutActions } from './rolloutsTablePanel';

/** The one rollouts table: revealed when it is open, created when not, restored after a reload on the folder it showed. */
export class RolloutsTable implements vscode.Disposable {
  private table: RolloutsTablePanel | undefined;

  constructor(
    private readonly glue: Glue,
    private readonly source: RolloutsSource,
    private readonly actions: RolloutActions,
    /** Indexes a folder, saying itself why it could not. */
    private readonly openFolder: (folder: string) => Promise<unknown>,
  ) {}

  show(): RolloutsTablePanel {
    if (this.table) {
      this.table.panel.reveal();
      return this.table;
    }
    return this.adopt(vscode.window.createWebviewPanel(ROLLOUTS_TABLE_VIEW, 'Rollouts', vscode.ViewColumn.Active, { retainContextWhenHidden: false }));
  }

  /** A table restored after a reload comes back on its folder, if that folder is still there. */
  async restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const folder = RolloutsUiStateSchema.safeParse(state).data?.folder;
    if (folder === undefined || folder === this.source.folder) {
      this.adopt(panel);
      return;
    }
    if (!(await isDirectory(folder))) {
      this.glue.log.warn(`the rollouts table showed ${folder}, which is gone`);
      this.adopt(panel, `The rollouts folder this table showed is gone: ${folder}. Open another with “SWE Workbench: Open Rollouts Folder…”.`);
      return;
    }
    this.adopt(panel);
    await this.openFolder(folder);
  }

  dispose(): void {
    this.table?.panel.dispose();
  }

  private adopt(panel: vscode.WebviewPanel, problem: string | null = null): RolloutsTablePanel {
    const created = new RolloutsTablePanel(panel, this.source, this.glue.context.extensionUri, this.glue.log, this.actions, problem);
    panel.onDidDispose(() => {
      if (this.table === created) this.table = undefined;
    });
    this.table = created;
    return created;
  }
}

async function isDirectory(folder: string): Promise<boolean> {
  return stat(folder).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
