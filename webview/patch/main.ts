import '@vscode-elements/elements/dist/vscode-button/index.js';
import { PatchView } from './patchView';
import { PATCH_CSS } from './patchStyles';
import { startView } from '../startView';

startView('The patch view failed', PATCH_CSS, (root, host) => new PatchView(root, host).start());
