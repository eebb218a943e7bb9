import * as vscode from 'vscode';
import { InputError } from '../../core/errors';

/** The file and line a bad bug file was reported at (`where` reads "line N"), to open it there. */
export function inputErrorLocation(error: unknown): vscode.Location | undefined {
  if (!(error instanceof InputError) || !error.file) return undefined;
  const line = /^line (\d+)$/.exec(error.where ?? '')?.[1];
  return new vscode.Location(vscode.Uri.file(error.file), new vscode.Position(line ? Number(line) - 1 : 0, 0));
}

/** Shows the error; when it names a file, one click opens the file at its line. */
export async function showBugFileError(message: string, error: unknown): Promise<void> {
  const location = inputErrorLocation(error);
  const open = location && `Open ${location.uri.path.split('/').at(-1)}`;
  const choice = await vscode.window.showErrorMessage(message, ...(open ? [open] : []));
  if (location && choice === open) await vscode.window.showTextDocument(location.uri, { selection: location.range });
}
