/** OpenHands' event stream: a list of events, bare or as an output line's `history` (an evaluation's, or openhands-resolver's flat one). */
import { firstObject, has, isObject } from '../../trajectory/fingerprints';
import type { TrajectoryFormatDefinition } from '../../trajectory/formatRegistry';
import { importOpenHands, isResolverLine } from './importer';
import { toOpenHandsOutputLine } from './exporter';

/** OpenHands events carry an id, a source and either an action or an observation. */
function isEventList(list: unknown[]): boolean {
  const first = firstObject(list);
  return !!first && has(first, 'id', 'source') && ('action' in first || 'observation' in first);
}

export const openHandsFormat: TrajectoryFormatDefinition = {
  name: 'openhands',
  fingerprints: [
    { rank: 40, matches: (o) => (Array.isArray(o) ? isEventList(o) : isObject(o) && Array.isArray(o.history) && isEventList(o.history)) },
    // openhands-resolver's output line: its history's events have neither id nor source.
    { rank: 41, matches: isResolverLine },
  ],
  exitStatuses: { stuck: /stuck in a loop/, finished: /^finished$/ },
  import: importOpenHands,
  exporter: { extension: '.jsonl', write: toOpenHandsOutputLine },
};
