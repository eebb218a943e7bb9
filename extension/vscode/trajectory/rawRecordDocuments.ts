import * as vscode from 'vscode';

const RAW_RECORD_SCHEME = 'swe-workbench-raw';

/**
 * Read-only documents holding a step's original JSON. Read-only on purpose: an untitled
 * document would ask to be saved on close, and the record is the file's, not the user's.
 */
export class RawRecordDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private nextId = 1;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.query) ?? `// This record is no longer held; open the step's raw JSON again.\n`;
  }

  /** Shows `record` beside the stepper, titled after its file and step. */
  async show(fileName: string, stepNumber: number, record: unknown): Promise<void> {
    const key = String(this.nextId++);
    this.contents.set(key, JSON.stringify(record, null, 2) + '\n');
    const uri = vscode.Uri.from({ scheme: RAW_RECORD_SCHEME, path: `/${fileName} step ${stepNumber}.json`, query: key });
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(document, 'json');
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }

  forget(uri: vscode.Uri): void {
    if (uri.scheme === RAW_RECORD_SCHEME) this.contents.delete(uri.query);
  }
}

export function activateRawRecordDocuments(): { documents: RawRecordDocuments; disposables: vscode.Disposable[] } {
  const documents = new RawRecordDocuments();
  return {
    documents,
    disposables: [
      vscode.workspace.registerTextDocumentContentProvider(RAW_RECORD_SCHEME, documents),
      vscode.workspace.onDidCloseTextDocument((d) => documents.forget(d.uri)),
    ],
  };
}
