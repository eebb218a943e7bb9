import { REPLAY_COMPARE_CSS } from './replayCompareStyles';
import { ReplayCompareView } from './replayCompareView';
import { startView } from '../startView';

startView('The recorded ↔ replayed view failed', REPLAY_COMPARE_CSS, (root, host) => new ReplayCompareView(root, host).start());
