import * as vscode from 'vscode';
import type { SessionController } from './sessionController';
import { errorText } from '../../core/errors';
import { endedHint, isOnlyHint, withoutHint } from '../../core/session/nextActionHint';

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
  /** A save that ran an action, until the editor reports it done. */
  private saving: Promise<void> | undefined;

  /** How a save that ran nothing is told (tests listen here). */
  report: (message: string) => void = (m) => void vscode.window.showWarningMessage(m);

  constructor(private readonly controller: SessionController) {}

  /**
   * Loads the next action's text; call before opening the document, and only while an open one
   * is not dirty. The file changes (a later modification time and a change event), and the editor
   * reloads a document that is not dirty by itself: it shows the hint without being edited and
   * saved here, so nothing the person begins typing can be saved, and run, by a save of ours.
   * The same text again is no change: a document that is not dirty already shows it, and a second
   * reload racing the person's first keys would make their save fail ("File Modified Since").
   */
  async refresh(): Promise<string> {
    const text = await this.controller.nextActionDocument();
    const encoded = new TextEncoder().encode(text);
    if (Buffer.from(encoded).equals(this.text)) return text;
    this.text = encoded;
    this.touch();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri: NEXT_ACTION_URI }]);
    return text;
  }

  /**
   * The session ended (`how`: "finished (submitted)", "stopped"): the document stops naming a
   * step to run. Its text after the first line stays, so nothing typed is lost; an open document
   * that is not dirty reloads by itself.
   */
  ended(session: string, how: string): void {
    const typed = withoutHint(new TextDecoder().decode(this.text));
    this.text = new TextEncoder().encode(`${endedHint(session, how)}\n${typed}`);
    this.touch();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri: NEXT_ACTION_URI }]);
  }

  /**
   * A later modification time than any before, even within one millisecond or when the clock
   * lags a time given earlier: the editor refuses a save ("File Modified Since") or skips a
   * reload when a file's time goes back or repeats with another text.
   */
  private touch(): void {
    this.mtime = Math.max(Date.now(), this.mtime + 1);
  }

  /** The action saved earlier that did not run (hint dropped), once: the editor types it in again. */
  takeKept(): string | undefined {
    const kept = this.kept === undefined ? undefined : withoutHint(this.kept);
    this.kept = undefined;
    return kept;
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
    this.touch();
    if (isOnlyHint(text)) return;
    if (!this.controller.acceptsActions) {
      this.kept = text;
      this.report('SWE Workbench: no session is running, so the action was not run. It is kept in "next action.sh": start a fork by hand and save it again.');
      return;
    }
    try {
      const saved = new Promise<void>((resolve) => {
        const listener = vscode.workspace.onDidSaveTextDocument((d) => {
          if (d.uri.toString() !== NEXT_ACTION_URI.toString()) return;
          listener.dispose();
          if (this.saving === saved) this.saving = undefined;
          resolve();
        });
      });
      this.saving = saved;
      await this.controller.editNext(text);
      this.kept = undefined;
    } catch (error) {
      this.kept = text;
      this.report(`SWE Workbench: the action was not run (it is kept in the document): ${errorText(error)}`);
    }
  }

  /** Resolves once the save that handed over the last action has finished in the editor. */
  settled(): Promise<void> {
    return this.saving ?? Promise.resolve();
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
