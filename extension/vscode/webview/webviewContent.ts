import * as vscode from 'vscode';
import { renderErrorHtml, renderWebviewHtml, type WebviewPage } from './webviewHtml';
import { errorText } from '../../core/errors';

/** Where a view's script and styles live inside the extension. */
function mediaUri(extensionUri: vscode.Uri, ...segments: string[]): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'media', ...segments);
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [mediaUri(extensionUri)] };
}

function styleUris(webview: vscode.Webview, extensionUri: vscode.Uri): string[] {
  return [mediaUri(extensionUri, 'dist', 'codicons', 'codicon.css'), mediaUri(extensionUri, 'webview.css')].map((u) => webview.asWebviewUri(u).toString());
}

/** Sets a view's HTML, with data it reads at boot if given; if that fails, the panel shows the reason instead of staying blank. */
export function showView(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  view: string,
  title: string,
  log: vscode.LogOutputChannel,
  embedded?: WebviewPage['embedded'],
): void {
  try {
    webview.html = renderWebviewHtml({
      cspSource: webview.cspSource,
      title,
      view,
      styleUris: styleUris(webview, extensionUri),
      scriptUri: webview.asWebviewUri(mediaUri(extensionUri, 'dist', `${view}.js`)).toString(),
      ...(embedded ? { embedded } : {}),
    });
  } catch (error) {
    log.error(`could not render the ${view} view`, error);
    showError(webview, extensionUri, title, errorText(error));
  }
}

function showError(webview: vscode.Webview, extensionUri: vscode.Uri, title: string, message: string): void {
  webview.html = renderErrorHtml({ cspSource: webview.cspSource, title, message, styleUris: styleUris(webview, extensionUri) });
}
