import { renderFatal } from './dom';
import { fatalText } from './errorText';
import { connectToVsCode, type Host } from './host';

/**
 * Starts a view in the page's #app with its style sheet. A failure to start replaces the view
 * with what failed (never a blank panel); every webview's main.ts starts this way.
 */
export function startView(failed: string, css: string | undefined, start: (root: HTMLElement, host: Host) => Promise<unknown>): void {
  if (css !== undefined) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  const root = document.getElementById('app');
  if (!root) return;
  Promise.resolve()
    .then(() => start(root, connectToVsCode()))
    .catch((error: unknown) => renderFatal(root, failed, fatalText(error)));
}
