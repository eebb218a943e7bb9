import '@vscode-elements/elements/dist/vscode-button/index.js';
import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { PatchView } from './patchView';
import { PATCH_CSS } from './patchStyles';
import { errorText } from '../errorText';

const sheet = new CSSStyleSheet();
sheet.replaceSync(PATCH_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (root) {
  new PatchView(root, connectToVsCode()).start().catch((error: unknown) => {
    renderFatal(root, 'The patch view failed', errorText(error));
  });
}
