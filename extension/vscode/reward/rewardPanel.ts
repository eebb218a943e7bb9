import * as vscode from 'vscode';
import { rewardLoad, rewardOpenOutput, rewardSetRecipe, type RewardBreakdown, type RewardSources } from '../../protocol/reward';
import { Disposable } from '../dispose';
import { classifyError } from '../../core/errors';
import { showView, webviewOptions } from '../webview/webviewContent';
import { WebviewMessenger } from '../webview/webviewMessenger';

export const REWARD_VIEW = 'sweWorkbench.reward';

/** One reward breakdown: the webview asks for it once it is ready, and for the output at a test's line. */
export class RewardPanel extends Disposable {
  readonly messenger: WebviewMessenger;

  constructor(
    readonly panel: vscode.WebviewPanel,
    breakdown: Promise<RewardBreakdown>,
    sources: RewardSources,
    /** Grades the same files again under another recipe. */
    regrade: (sources: RewardSources) => Promise<RewardBreakdown>,
    extensionUri: vscode.Uri,
    log: vscode.LogOutputChannel,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri);
    this.messenger = this._register(new WebviewMessenger(panel.webview, log, classifyError));
    this.messenger.onRequest(rewardLoad, () => breakdown);
    this.messenger.onRequest(rewardSetRecipe, async ({ recipe }) => {
      const { recipe: _previous, ...files } = sources;
      return regrade(recipe === null ? files : { ...files, recipe });
    });
    this.messenger.onRequest(rewardOpenOutput, async ({ line }) => {
      if (!sources.testOutput) return { opened: false };
      await openAtLine(vscode.Uri.file(sources.testOutput), line);
      return { opened: true };
    });
    this._register(panel.onDidDispose(() => this.dispose()));
    showView(panel.webview, extensionUri, 'reward', panel.title, log);
  }
}

async function openAtLine(uri: vscode.Uri, line: number): Promise<vscode.TextEditor> {
  const position = new vscode.Position(line - 1, 0);
  return vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position), viewColumn: vscode.ViewColumn.Beside, preview: true });
}
