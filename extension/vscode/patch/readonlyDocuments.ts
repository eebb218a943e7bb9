import * as vscode from 'vscode';

/**
 * Read-only documents under one URI scheme: a content provider's documents cannot be edited or
 * saved, which is what a side reconstructed from a patch, or a check's evidence, must be.
 */
export class ReadonlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 1;
  private readonly registration: vscode.Disposable;

  constructor(private readonly scheme: string) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  /** A new URI whose path ends in `name`, so the editor picks the language from its extension. */
  add(side: string, name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: this.scheme, path: `/${this.next++}/${side}/${name}` });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
