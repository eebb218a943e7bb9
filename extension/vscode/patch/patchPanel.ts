import path from 'node:path';
import * as vscode from 'vscode';
import { parseUnifiedDiff } from '../../core/diff/unifiedDiff';
import { ProtocolFailure } from '../../protocol/ipc';
import { patchLoad, patchOpenDiff, type PatchContent } from '../../protocol/patch';
import { Disposable } from '../dispose';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';
import { classifyError } from '../../core/errors';
import type { ReadonlyDocuments } from './readonlyDocuments';
import { applyHunks, sidesFromHunks } from '../../views/patchSides';

export const PATCH_VIEW = 'sweWorkbench.patch';

/** One patch view: its content is loaded once and handed to the webview when it asks. */
export class PatchPanel extends Disposable {
  readonly messenger: WebviewMessenger;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly content: Promise<PatchContent>,
    private readonly documents: ReadonlyDocuments,
    private readonly repo: string | undefined,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri);
    this.messenger = this._register(new WebviewMessenger(panel.webview, log, classifyError));
    this.messenger.onRequest(patchLoad, () => content);
    this.messenger.onRequest(patchOpenDiff, async ({ section, file }) => ({ opened: await this.openDiff(section, file) }));
    this._register(panel.onDidDispose(() => this.dispose()));
    showView(panel.webview, extensionUri, 'patch', panel.title, log);
  }

  /**
   * Opens one file of a section in VS Code's diff editor: the repository's file against the
   * patch applied to it when the repository is known and the patch applies, else both sides
   * as far as the hunks show them.
   */
  async openDiff(sectionIndex: number, file: string): Promise<boolean> {
    const section = (await this.content).sections[sectionIndex];
    if (!section || section.problem !== null) throw new ProtocolFailure('not-found', `no readable section ${sectionIndex}`);
    const patch = parseUnifiedDiff(section.diff).find((p) => p.newPath === file || p.oldPath === file);
    if (!patch) throw new ProtocolFailure('not-found', `${section.label} does not change ${file}`);
    const repoFile = this.repo && patch.oldPath ? vscode.Uri.file(path.join(this.repo, patch.oldPath)) : undefined;
    const repoText = repoFile
      ? await vscode.workspace.fs.readFile(repoFile).then(
          (b) => new TextDecoder().decode(b),
          () => undefined,
        )
      : undefined;
    const applied = repoText === undefined ? undefined : applyHunks(repoText, patch);
    const title = `${file} (${section.label})`;
    if (repoFile && applied !== undefined) {
      await vscode.commands.executeCommand('vscode.diff', repoFile, this.documents.add('patched', file, applied), title);
      return true;
    }
    const sides = sidesFromHunks(patch);
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.documents.add('before', patch.oldPath ?? file, sides.before),
      this.documents.add('after', file, sides.after),
      `${title}, lines the patch shows`,
    );
    return true;
  }
}
