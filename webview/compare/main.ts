import '@vscode-elements/elements/dist/vscode-button/index.js';
import { COMPARE_CSS } from './compareStyles';
import { CompareView } from './compareView';
import { startView } from '../startView';

startView('The compare view failed', COMPARE_CSS, (root, host) => new CompareView(root, host).start());
