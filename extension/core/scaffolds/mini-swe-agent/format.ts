/** mini-swe-agent's run (`trajectory_format`, `info`, `messages`) and its legacy bare message list. */
import { isMessageList, isObject } from '../../trajectory/fingerprints';
import { miniSweAgentIndexedSteps } from './indexedSteps';
import type { TrajectoryFormatDefinition } from '../../trajectory/formatRegistry';
import { importMiniSweAgent } from './importer';
import { toMiniSweAgentTraj } from './exporter';

const FENCED_COMMAND = /```(?:bash|mswea_bash_command)[ \t]*\n/;

/** A bare message list is mini-swe-agent's legacy form when the assistant writes fenced commands and never calls tools. */
function isLegacyMessageList(list: unknown[]): boolean {
  if (!isMessageList(list)) return false;
  const messages = list as Array<Record<string, unknown>>;
  const callsTools = messages.some((m) => m.role === 'tool' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0));
  return !callsTools && messages.some((m) => m.role === 'assistant' && typeof m.content === 'string' && FENCED_COMMAND.test(m.content));
}

export const miniSweAgentFormat: TrajectoryFormatDefinition = {
  name: 'mini-swe-agent',
  fingerprints: [
    { rank: 20, matches: (o) => isObject(o) && typeof o.trajectory_format === 'string' && o.trajectory_format.startsWith('mini-swe-agent') },
    {
      rank: 110,
      matches: (o) =>
        Array.isArray(o)
          ? isLegacyMessageList(o)
          : isObject(o) && Array.isArray(o.messages) && isObject(o.info) && ('mini_version' in o.info || 'config' in o.info),
    },
  ],
  // `info.submission`
  recordsSubmission: true,
  exitStatuses: { budget: /limitsexceeded/, commandTimeout: /executiontimeouterror/, format: /formaterror/, finished: /^submitted$/ },
  import: importMiniSweAgent,
  indexed: miniSweAgentIndexedSteps,
  exporter: { extension: '.traj.json', write: toMiniSweAgentTraj },
};
