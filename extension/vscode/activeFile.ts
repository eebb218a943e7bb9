import * as vscode from 'vscode';

/**
 * The file of the active editor. The active tab answers when the text editor has not reached
 * the extension host yet, as happens right after a window reload.
 */
export function activeFileUri(): vscode.Uri | undefined {
  const editor = vscode.window.activeTextEditor?.document.uri;
  if (editor) return editor;
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return tab instanceof vscode.TabInputText ? tab.uri : undefined;
}
