import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { Stepper, readBoot } from './stepper';

const root = document.getElementById('app');
if (root) {
  Promise.resolve()
    .then(() => new Stepper(root, connectToVsCode()).start(readBoot(document)))
    .catch((error: unknown) => {
      renderFatal(root, 'The trajectory view failed', error instanceof Error ? (error.stack ?? error.message) : String(error));
    });
}
