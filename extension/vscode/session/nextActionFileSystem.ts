import * as vscode from 'vscode';
import type { SessionController } from './sessionController';
import { errorText } from '../../core/errors';

export const NEXT_ACTION_SCHEME = 'swe-next-action';
export const NEXT_ACTION_URI = vscode.Uri.from({ scheme: NEXT_ACTION_SCHEME, path: '/next action.sh' });

/**
 * The session's next action as a document: opening it shows the action's text, saving it
 * replaces the action (or gives it, when the session waits for the person). A file system
 * rather than `onWillSaveTextDocument` on an untitled document, because a save that fails
 * here (an action the tools cannot read) is reported by VS Code and leaves the document
 * dirty, so nothing typed is lost, and no "Save As" dialog asks for a file name.
 */
export class NextActionFileSystem implements vscode.FileSystemProvider {
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;
  private text: Uint8Array = new Uint8Array();
  private mtime = Date.now();

  constructor(private readonly controller: SessionController) {}

  /** Loads the next action's text; call before opening the document. */
  async refresh(): Promise<string> {
    const text = await this.controller.nextActionText();
    this.text = new TextEncoder().encode(text);
    this.mtime = Date.now();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri: NEXT_ACTION_URI }]);
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
    try {
      await this.controller.editNext(text);
    } catch (error) {
      throw vscode.FileSystemError.NoPermissions(errorText(error));
    }
    this.text = content;
    this.mtime = Date.now();
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
