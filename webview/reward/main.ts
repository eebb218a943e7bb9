import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { REWARD_CSS } from './rewardStyles';
import { RewardView } from './rewardView';
import { startView } from '../startView';

startView('The reward view failed', REWARD_CSS, (root, host) => new RewardView(root, host).start());
