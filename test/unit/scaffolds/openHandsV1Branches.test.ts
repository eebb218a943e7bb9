/**
 * An OpenHands V1 conversation is a tree: the branch ending at `leaf_event_id` opens as the
 * trajectory, the others are listed as forks, and `--branch ID` (LoadOptions.branch) opens another.
 * No public recording holds a branched conversation yet (the tree came in July 2026), so the tree
 * here is a real conversation from the corpus (conversation-30692f28, written by the SDK) with a
 * second branch added as the SDK's `navigate_to` and `append_event` write one: the HEAD moved back
 * to an earlier event, new events stamped with it as `parent_id`, `leaf_event_id` on the last.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { command as convert } from '../../../extension/cli/convert';
import { command as inspect } from '../../../extension/cli/inspect';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { runCli } from '../../helpers/cliRunner';
import { repoRoot } from '../../helpers/trajectoryFiles';

const recordings = path.join(repoRoot, 'test/fixtures/recordings/openhands-v1');
const work = mkdtempSync(path.join(tmpdir(), 'swe-workbench-ohv1-branches-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Where the first run's second answer was read: the HEAD the new branch grows from. */
const BRANCH_POINT = 'fee02181-67cc-4f87-b596-82ac442edd84';
const ORIGINAL_LEAF = '8d8121c0-1af4-46d1-98af-76daa71a9eb2';
const NEW = {
  message: '0b0b0b0b-1111-4111-8111-000000000011',
  action: '0b0b0b0b-1111-4111-8111-000000000012',
  observation: '0b0b0b0b-1111-4111-8111-000000000013',
};

type Json = Record<string, any>;

/** The real conversation, with a sibling branch appended after `BRANCH_POINT` (a different question, finished differently). */
function branchedConversation(): string {
  const dir = path.join(work, 'conversation-30692f28');
  cpSync(path.join(recordings, 'conversation-30692f28'), dir, { recursive: true });
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
      id: NEW.message,
      parent_id: BRANCH_POINT,
      llm_message: { ...question.llm_message, content: [{ ...question.llm_message.content[0], text: 'Which model are you?' }] },
    },
    {
      ...answer,
      id: NEW.action,
      parent_id: NEW.message,
      tool_call_id: 'call_branch',
      tool_call: { ...answer.tool_call, id: 'call_branch', arguments: '{"message": "gpt-4o-mini"}' },
      action: { ...answer.action, message: 'gpt-4o-mini' },
    },
    {
      ...result,
      id: NEW.observation,
      parent_id: NEW.action,
      tool_call_id: 'call_branch',
      action_id: NEW.action,
      observation: { ...result.observation, content: [{ ...result.observation.content[0], text: 'gpt-4o-mini' }] },
    },
  ];
  appended.forEach((e, k) => writeFileSync(path.join(events, `event-${String(11 + k).padStart(5, '0')}-${e.id}.json`), JSON.stringify(e)));
  const state = JSON.parse(readFileSync(path.join(dir, 'base_state.json'), 'utf8'));
  writeFileSync(path.join(dir, 'base_state.json'), JSON.stringify({ ...state, leaf_event_id: NEW.observation }));
  return dir;
}

describe('OpenHands V1 branches', () => {
  const dir = branchedConversation();
  const finishes = (t: { steps: Array<{ action: { args: Record<string, unknown> } }> }) => t.steps.map((s) => s.action.args.message);

  test('the branch at leaf_event_id opens; the one it left is a fork sharing its first two steps', async () => {
    const { trajectory: t } = await loadTrajectory(dir);
    assert.deepEqual(finishes(t), ['ok (stubbed LLM response)', 'ok (stubbed LLM response)', 'gpt-4o-mini']);
    assert.deepEqual(t.meta.forks, [{ id: ORIGINAL_LEAF, sharedSteps: 2, steps: 3 }]);
  });

  test('--branch opens the other branch, and lists the one in use as a fork', async () => {
    const { trajectory: t } = await loadTrajectory(dir, { branch: ORIGINAL_LEAF });
    assert.deepEqual(finishes(t), ['ok (stubbed LLM response)', 'ok (stubbed LLM response)', 'ok (stubbed LLM response)']);
    assert.equal(t.steps[2]!.observation, 'ok (stubbed LLM response)');
    assert.deepEqual(t.meta.forks, [{ id: NEW.observation, sharedSteps: 2, steps: 3, inUse: true }]);
    const { code, stdout } = await runCli(inspect, [dir, '--branch', ORIGINAL_LEAF]);
    assert.equal(code, 0);
    assert.match(stdout, new RegExp(`^forks {4}1 other branch: ${NEW.observation} \\(in use, 3 steps, steps 1-2 shared\\)$`, 'm'));
    // Any event of the tree ends a branch, as the SDK's leaf_event_id may be any: the branch point itself has two steps.
    assert.equal((await loadTrajectory(dir, { branch: BRANCH_POINT })).trajectory.steps.length, 2);
  });

  test('convert --branch writes that branch', async () => {
    const out = path.join(work, 'original-branch.atif.json');
    const result = await runCli(convert, [dir, '--branch', ORIGINAL_LEAF, '--to', 'atif', '--out', out]);
    assert.equal(result.code, 0, result.stderr);
    const atif = JSON.parse(readFileSync(out, 'utf8')) as Json;
    const calls = atif.steps.flatMap((s: Json) => (s.tool_calls ?? []).map((c: Json) => c.arguments.message));
    assert.deepEqual(calls, ['ok (stubbed LLM response)', 'ok (stubbed LLM response)', 'ok (stubbed LLM response)']);
  });

  test('an id no event has says which branches there are; a format that is no tree says so', async () => {
    await assert.rejects(
      runCli(inspect, [dir, '--branch', 'nope']),
      new RegExp(
        `conversation-30692f28: no event of the conversation has the id 'nope': its branches end at ${NEW.observation} \\(in use\\), ${ORIGINAL_LEAF}$`,
      ),
    );
    await assert.rejects(
      loadTrajectory(path.join(repoRoot, 'test/fixtures/recordings/atif/nat.exmp06.v1.7.json'), { branch: 'x' }),
      /a atif recording is one line of steps, not a tree of branches, so branch 'x' cannot be opened from it/,
    );
  });

  test('a log written before the tree, its state updates between the events, is one line: no forks', async () => {
    const { trajectory: t } = await loadTrajectory(path.join(recordings, 'goal.events.jsonl'));
    assert.equal(t.steps.length, 2);
    assert.equal(t.meta.forks, undefined);
  });
});
