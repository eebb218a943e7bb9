import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { RolloutsTable } from './rolloutsTable';
import { TABLE_CSS } from './tableStyles';

const sheet = new CSSStyleSheet();
sheet.replaceSync(TABLE_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (root) {
  new RolloutsTable(root, connectToVsCode()).start().catch((error: unknown) => {
    renderFatal(root, 'The rollouts table failed', error instanceof Error ? (error.stack ?? error.message) : String(error));
  });
}
