import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { RolloutsTable } from './rolloutsTable';
import { TABLE_CSS } from './tableStyles';
import { startView } from '../startView';

startView('The rollouts table failed', TABLE_CSS, (root, host) => new RolloutsTable(root, host).start());
