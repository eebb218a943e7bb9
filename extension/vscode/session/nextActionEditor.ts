import * as vscode from 'vscode';
import { Disposable } from '../dispose';
import { NEXT_ACTION_URI, type NextActionFileSystem } from './nextActionFileSystem';
import type { SessionController } from './sessionController';

/**
 * Resolves once `document` shows `text` (the editor reloads a changed file that is not dirty by
 * itself), or once the person has typed in it, or it was closed.
 */
function reloaded(document: vscode.TextDocument, text: string): Promise<void> {
  const done = () => document.isClosed || document.isDirty || document.getText() === text;
  if (done()) return Promise.resolve();
  return new Promise((resolve) => {
    const listeners = [vscode.workspace.onDidChangeTextDocument, vscode.workspace.onDidCloseTextDocument].map((event) =>
      event(() => {
        if (!done()) return;
        for (const l of listeners) l.dispose();
        resolve();
      }),
    );
  });
}

/** The editor a person types the session's next action in, shown on the step it asks for. */
export class NextActionEditor extends Disposable {
  private readonly shown = this._register(new vscode.EventEmitter<number>());
  /** The editor is shown and ready for typing, on the step it names (0-based). */
  readonly onDidShow = this.shown.event;

  constructor(
    private readonly files: NextActionFileSystem,
    private readonly controller: SessionController,
  ) {
    super();
  }

  /**
   * Opens the next-action document on the session's next step: a document with unsaved text is
   * shown as it is; an action saved earlier that did not run is typed in again (unsaved), so
   * saving runs it. The command and the session may both open it at once: the second finds the
   * same text, which changes nothing (`NextActionFileSystem.refresh`).
   */
  async open(): Promise<void> {
    // After the save that gave the last action has finished: the file changing under it would leave the editor on stale text.
    await this.files.settled();
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === NEXT_ACTION_URI.toString());
    // Typed and not saved: the person's text stays as it is.
    const text = open?.isDirty ? undefined : await this.files.refresh();
    const document = open ?? (await vscode.workspace.openTextDocument(NEXT_ACTION_URI));
    await vscode.window.showTextDocument(document, { preview: false });
    if (text !== undefined) await reloaded(document, text);
    const kept = text !== undefined ? this.files.takeKept() : undefined;
    if (kept !== undefined) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(document.uri, new vscode.Range(1, 0, document.lineCount, 0), kept);
      await vscode.workspace.applyEdit(edit);
    }
    void vscode.window.setStatusBarMessage('Save the document to run this action as the next step', 5000);
    this.shown.fire(this.controller.current?.index ?? 0);
  }
}
