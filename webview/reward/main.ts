import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { REWARD_CSS } from './rewardStyles';
import { RewardView } from './rewardView';
import { errorText } from '../errorText';

const sheet = new CSSStyleSheet();
sheet.replaceSync(REWARD_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (root) {
  new RewardView(root, connectToVsCode()).start().catch((error: unknown) => {
    renderFatal(root, 'The reward view failed', errorText(error));
  });
}
