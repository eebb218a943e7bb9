/**
 * An OpenHands V1 conversation kept as a tree. No public recording holds a branched conversation
 * yet (the tree came to the SDK in July 2026), so this is a real conversation from the corpus
 * (test/fixtures/recordings/openhands-v1/conversation-30692f28, written by the SDK) with a second
 * branch added as the SDK's `navigate_to` and `append_event` write one: the HEAD moved back to an
 * earlier event, the new events stamped with it as `parent_id` in turn, `leaf_event_id` on the last.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './trajectoryFiles';

type Json = Record<string, any>;

/** Where the first run's second answer was read: the HEAD the new branch grows from. */
export const BRANCH_POINT = 'fee02181-67cc-4f87-b596-82ac442edd84';
export const ORIGINAL_LEAF = '8d8121c0-1af4-46d1-98af-76daa71a9eb2';
export const NEW_BRANCH = {
  message: '0b0b0b0b-1111-4111-8111-000000000011',
  action: '0b0b0b0b-1111-4111-8111-000000000012',
  observation: '0b0b0b0b-1111-4111-8111-000000000013',
};

/** The real conversation (under `root`, the checkout: a compiled e2e test gives its working directory), with a sibling branch appended after `BRANCH_POINT` (a different question, finished differently). */
export function branchedConversation(into: string, root = repoRoot): string {
  const dir = path.join(into, 'conversation-30692f28');
  cpSync(path.join(root, 'test/fixtures/recordings/openhands-v1/conversation-30692f28'), dir, { recursive: true });
  const events = path.join(dir, 'events');
  const read = (prefix: string): Json =>
    JSON.parse(
      readFileSync(
        path.join(
          events,
          readdirSync(events).find((f) => f.startsWith(prefix))!,
        ),
        'utf8',
      ),
    );
  const [question, answer, result] = [read('event-00008-'), read('event-00009-'), read('event-00010-')];
  assert.equal(read('event-00007-').id, BRANCH_POINT);
  const appended: Json[] = [
    {
      ...question,
      id: NEW_BRANCH.message,
      parent_id: BRANCH_POINT,
      llm_message: { ...question.llm_message, content: [{ ...question.llm_message.content[0], text: 'Which model are you?' }] },
    },
    {
      ...answer,
      id: NEW_BRANCH.action,
      parent_id: NEW_BRANCH.message,
      tool_call_id: 'call_branch',
      tool_call: { ...answer.tool_call, id: 'call_branch', arguments: '{"message": "gpt-4o-mini"}' },
      action: { ...answer.action, message: 'gpt-4o-mini' },
    },
    {
      ...result,
      id: NEW_BRANCH.observation,
      parent_id: NEW_BRANCH.action,
      tool_call_id: 'call_branch',
      action_id: NEW_BRANCH.action,
      observation: { ...result.observation, content: [{ ...result.observation.content[0], text: 'gpt-4o-mini' }] },
    },
  ];
  appended.forEach((e, k) => writeFileSync(path.join(events, `event-${String(11 + k).padStart(5, '0')}-${e.id}.json`), JSON.stringify(e)));
  const state = JSON.parse(readFileSync(path.join(dir, 'base_state.json'), 'utf8'));
  writeFileSync(path.join(dir, 'base_state.json'), JSON.stringify({ ...state, leaf_event_id: NEW_BRANCH.observation }));
  return dir;
}
