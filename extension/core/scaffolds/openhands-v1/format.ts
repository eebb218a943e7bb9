/**
 * OpenHands V1's recordings: a persisted conversation folder (`base_state.json` and
 * `events/event-NNNNN-<id>.json`), an `events.jsonl` (one event a line), a JSON list of events,
 * or the agent server's event search result (`{"items": [...], "next_page_id": ...}`).
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InputError, throwIfAborted } from '../../errors';
import { readJsonDocument } from '../../input/jsonDocument';
import { firstObject, isObject } from '../../trajectory/fingerprints';
import type { TrajectoryFormatDefinition } from '../../trajectory/formatRegistry';
import { checkV1Event, isV1Event } from './events';
import { toOpenHandsV1Events } from './exporter';
import { importOpenHandsV1, isGatheredConversation, type GatheredConversation } from './importer';

const BASE_STATE = 'base_state.json';
const EVENTS_DIR = 'events';
/** The SDK's `EVENT_NAME_RE`: a 5-or-more-digit index and the event's id. */
const EVENT_NAME = /^event-(\d{5,})-([0-9a-fA-F-]{8,})\.json$/;

async function exists(path: string, kind: 'file' | 'folder'): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return !!info && (kind === 'file' ? info.isFile() : info.isDirectory());
}

/** A conversation folder has the state file or the events folder (a conversation that has not started has only the state). */
async function holds(dir: string): Promise<boolean> {
  return (await exists(join(dir, BASE_STATE), 'file')) || (await exists(join(dir, EVENTS_DIR), 'folder'));
}

/**
 * The folder's state and events, in their index order (the SDK's `EventLog`): each event file
 * is read on its own, so a broken one is named by its file, line and column or JSON path.
 */
async function gather(dir: string, options: { signal?: AbortSignal }): Promise<GatheredConversation> {
  const stateFile = join(dir, BASE_STATE);
  const base_state = (await exists(stateFile, 'file')) ? (await readJsonDocument(stateFile, options)).value : undefined;
  const eventsDir = join(dir, EVENTS_DIR);
  const names = (await exists(eventsDir, 'folder')) ? await readdir(eventsDir) : [];
  const byIndex = new Map<number, { name: string; id: string }>();
  for (const name of names) {
    const m = EVENT_NAME.exec(name);
    if (!m) continue;
    const index = Number(m[1]);
    const other = byIndex.get(index);
    if (other) throw new InputError(join(eventsDir, name), undefined, `two event files have the index ${index} (the other is ${other.name})`);
    byIndex.set(index, { name, id: m[2]! });
  }
  const events: unknown[] = [];
  const event_files: string[] = [];
  for (let i = 0; i < byIndex.size; i++) {
    throwIfAborted(options.signal);
    const entry = byIndex.get(i);
    if (!entry) {
      const after = [...byIndex.keys()].filter((k) => k > i).sort((a, b) => a - b)[0];
      throw new InputError(eventsDir, undefined, `event ${i} is missing: the files go from index ${i - 1} to ${after} (${byIndex.get(after!)!.name})`);
    }
    const file = join(eventsDir, entry.name);
    const value = (await readJsonDocument(file, options)).value;
    const event = checkV1Event(value, { file });
    if (event.id !== entry.id) throw new InputError(file, '$.id', `the event's id '${event.id}' is not the one its file name gives ('${entry.id}')`);
    events.push(value);
    event_files.push(`${EVENTS_DIR}/${entry.name}`);
  }
  return { ...(base_state === undefined ? {} : { base_state }), events, event_files };
}

/** `DIR/base_state.json` or `DIR/events/event-NNNNN-<id>.json` is part of the conversation in DIR. */
function partOf(file: string): string | undefined {
  const name = basename(file);
  if (name === BASE_STATE) return dirname(file);
  if (EVENT_NAME.test(name) && basename(dirname(file)) === EVENTS_DIR) return dirname(dirname(file));
  return undefined;
}

/** The state file when there is one, else the first event's file. */
async function entry(dir: string): Promise<string> {
  const state = join(dir, BASE_STATE);
  if (await exists(state, 'file')) return state;
  const names = (await readdir(join(dir, EVENTS_DIR))).filter((n) => EVENT_NAME.test(n)).sort();
  if (names.length === 0) throw new InputError(dir, undefined, `an OpenHands V1 conversation without ${BASE_STATE} or any event file`);
  return join(dir, EVENTS_DIR, names[0]!);
}

const isEventList = (list: unknown) => {
  const first = firstObject(list);
  return !!first && isV1Event(first);
};

export const openHandsV1Format: TrajectoryFormatDefinition = {
  name: 'openhands-v1',
  // Before V0's event stream (40): V1 events carry a `kind`, V0's an `action` or `observation` string.
  fingerprints: [
    {
      rank: 35,
      matches: (o) => (Array.isArray(o) ? isEventList(o) : isObject(o) && (isGatheredConversation(o) || (Array.isArray(o.items) && isEventList(o.items)))),
    },
  ],
  // The SDK's ConversationExecutionStatus values that end a run.
  exitStatuses: { stuck: /^stuck$/, finished: /^finished$/ },
  folder: { holds, gather, partOf, entry },
  wholeJsonl: isV1Event,
  import: importOpenHandsV1,
  branches: true,
  exporter: { extension: '.json', write: toOpenHandsV1Events },
};
