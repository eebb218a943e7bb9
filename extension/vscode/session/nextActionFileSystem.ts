import * as vscode from 'vscode';
import type { SessionController } from './sessionController';
import { errorText } from '../../core/errors';
import { isOnlyHint, withoutHint } from '../../core/session/nextActionHint';

export const NEXT_ACTION_SCHEME = 'swe-next-action';
export const NEXT_ACTION_URI = vscode.Uri.from({ scheme: NEXT_ACTION_SCHEME, path: '/next action.sh' });

/**
 * The session's next action as a document: opening it shows the syntax hint and the action's
 * text, saving it runs the action (or gives it, when the session waits for the person). A file
 * system rather than `onWillSaveTextDocument` on an untitled document, so no "Save As" dialog
 * asks for a file name. A save never fails: when the action cannot run (no session, the tools
 * cannot read it, the session is running) the text is kept here and in the document, and a
 * message says why, so nothing typed is lost and no FileSystemError is shown.
 */
export class NextActionFileSystem implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  private text: Uint8Array = new Uint8Array();
  private mtime = Date.now();
  /** Text saved that did not run (no session, unreadable...): shown again rather than replaced. */
  private kept: string | undefined;

  /** How a save that ran nothing is told (tests listen here). */
  report: (message: string) => void = (m) => void vscode.window.showWarningMessage(m);

  constructor(private readonly controller: SessionController) {}

  /** Loads the next action's text (a kept, unrun action wins); call before opening the document. */
  async refresh(): Promise<string> {
    const shown = await this.controller.nextActionDocument();
    const text = this.kept !== undefined ? `${shown.split('\n')[0]}\n${withoutHint(this.kept)}` : shown;
    this.set(new TextEncoder().encode(text));
    return text;
  }

  watch(): vscode.Disposable {
    return { dispose: () => undefined };
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    this.check(uri);
    return { type: vscode.FileType.File, ctime: this.mtime, mtime: this.mtime, size: this.text.byteLength };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    this.check(uri);
    return this.text;
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    this.check(uri);
    const text = new TextDecoder().decode(content);
    this.text = content;
    this.mtime = Date.now();
    if (isOnlyHint(text)) return;
    if (!this.controller.acceptsActions) {
      this.kept = text;
      this.report('SWE Workbench: no session is running, so the action was not run. It is kept in "next action.sh": start a fork by hand and save it again.');
      return;
    }
    try {
      await this.controller.editNext(text);
      this.kept = undefined;
    } catch (error) {
      this.kept = text;
      this.report(`SWE Workbench: the action was not run (it is kept in the document): ${errorText(error)}`);
    }
  }

  private set(content: Uint8Array): void {
    this.text = content;
    this.mtime = Date.now();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri: NEXT_ACTION_URI }]);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  private check(uri: vscode.Uri): void {
    if (uri.path !== NEXT_ACTION_URI.path) throw vscode.FileSystemError.FileNotFound(uri);
  }
}
