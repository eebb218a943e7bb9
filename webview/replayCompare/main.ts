import { renderFatal } from '../dom';
import { connectToVsCode } from '../host';
import { REPLAY_COMPARE_CSS } from './replayCompareStyles';
import { ReplayCompareView } from './replayCompareView';

const sheet = new CSSStyleSheet();
sheet.replaceSync(REPLAY_COMPARE_CSS);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

const root = document.getElementById('app');
if (root) {
  new ReplayCompareView(root, connectToVsCode()).start().catch((error: unknown) => {
    renderFatal(root, 'The recorded ↔ replayed view failed', error instanceof Error ? error.message : String(error));
  });
}
