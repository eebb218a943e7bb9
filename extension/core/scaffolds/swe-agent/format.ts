/** SWE-agent's `.traj`: a run's `trajectory` (or 0.x `attempts`) and its `history` of chat messages. */
import { isMessageList, isObject } from '../../trajectory/fingerprints';
import { sweAgentIndexedSteps } from './indexedSteps';
import type { TrajectoryFormatDefinition } from '../../trajectory/formatRegistry';
import { importSweAgent } from './trajImporter';
import { toSweAgentTraj } from './trajExporter';

export const sweAgentFormat: TrajectoryFormatDefinition = {
  name: 'swe-agent',
  messagesKey: 'history',
  fingerprints: [
    { rank: 50, matches: (o) => isObject(o) && (Array.isArray(o.trajectory) || Array.isArray(o.attempts)) },
    { rank: 60, matches: (o) => isObject(o) && Array.isArray(o.history) && isMessageList(o.history) },
  ],
  // `info.submission, null when nothing`
  recordsSubmission: true,
  exitStatuses: {
    infra: /exit_environment_error|exit_api|^exit_error/,
    context: /exit_context/,
    budget: /exit_cost|total_execution_time/,
    commandTimeout: /exit_command_timeout/,
    format: /exit_format/,
    finished: /^submitted$/,
  },
  import: importSweAgent,
  indexed: sweAgentIndexedSteps,
  exporter: { extension: '.traj', write: toSweAgentTraj },
};
