import * as vscode from 'vscode';
import { activeFileUri } from '../activeFile';
import { parseUnifiedDiff } from '../../core/diff/unifiedDiff';
import type { PatchContent } from '../../protocol/patch';
import { ReadonlyDocuments } from './readonlyDocuments';
import { PATCH_VIEW, PatchPanel } from './patchPanel';
import { PatchSourceSchema, loadPatchContent, type PatchSource } from './patchSources';
import { command, parseArgument, registerCommands, type Glue } from '../commands';

/** What `sweWorkbench.patch.show` returns: the panel and what it shows, for callers and tests. */
export interface PatchShown {
  panel: PatchPanel;
  content: PatchContent;
}

export function activatePatch(glue: Glue): vscode.Disposable[] {
  const { context, log } = glue;
  const documents = new ReadonlyDocuments('sweworkbench-patch');
  const panels = new Set<PatchPanel>();
  const show = async (source: PatchSource): Promise<PatchShown> => {
    const content = loadPatchContent(source);
    const webviewPanel = vscode.window.createWebviewPanel(PATCH_VIEW, 'Patch', vscode.ViewColumn.Active, { retainContextWhenHidden: false });
    const repo = source.repo ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const panel = new PatchPanel(webviewPanel, content, documents, repo, context.extensionUri, log);
    panels.add(panel);
    webviewPanel.onDidDispose(() => panels.delete(panel));
    // The panel says what failed too; the command's message names the file and place.
    const loaded = await content;
    webviewPanel.title = loaded.title;
    return { panel, content: loaded };
  };
  return [
    documents,
    { dispose: () => [...panels].forEach((p) => p.panel.dispose()) },
    ...registerCommands(glue, [
      command({ id: 'sweWorkbench.patch.show', title: 'open the patch', args: sourceOf, run: show }),
      command({
        id: 'sweWorkbench.patch.openDiff',
        title: 'open the patch',
        args: sourceOf,
        run: async (source) => {
          const shown = await show(source);
          const first = shown.content.sections.findIndex((s) => s.problem === null);
          if (first < 0) return false;
          const file = parseUnifiedDiff(shown.content.sections[first]!.diff)[0];
          return file ? shown.panel.openDiff(first, file.newPath ?? file.oldPath ?? '') : false;
        },
      }),
    ]),
  ];
}

/** The command's argument: none (pick one), a URI from the explorer, or a named-field source. */
async function sourceOf(arg?: unknown): Promise<PatchSource | undefined> {
  if (arg === undefined) {
    const active = activeFileUri();
    if (active?.scheme === 'file' && /\.(diff|patch)$/.test(active.fsPath)) return { file: active.fsPath };
    const picked = await vscode.window.showOpenDialog({
      title: 'Open a patch (.diff, .patch) or a bug folder',
      canSelectFolders: true,
      canSelectFiles: true,
      openLabel: 'Show Patch',
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
    });
    return picked?.[0] ? fromUri(picked[0]) : undefined;
  }
  if (arg instanceof vscode.Uri) return fromUri(arg);
  return parseArgument(PatchSourceSchema, arg, 'sweWorkbench.patch.show expects {diff}, {file}, {trajectory, step}, {trajectory, instance} or {bug}');
}

/** A folder is a bug artifact, a file a diff. */
async function fromUri(uri: vscode.Uri): Promise<PatchSource> {
  const stat = await vscode.workspace.fs.stat(uri);
  return stat.type & vscode.FileType.Directory ? { bug: uri.fsPath } : { file: uri.fsPath };
}
