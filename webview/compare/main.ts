import '@vscode-elements/elements/dist/vscode-button/index.js';
import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { COMPARE_CSS } from './compareStyles';
import { CompareView } from './compareView';

const sheet = new CSSStyleSheet();
sheet.replaceSync(COMPARE_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (root) {
  new CompareView(root, connectToVsCode()).start().catch((error: unknown) => {
    renderFatal(root, 'The compare view failed', error instanceof Error ? error.message : String(error));
  });
}
