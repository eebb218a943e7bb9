/**
 * An OpenHands V1 conversation is a tree: the branch ending at `leaf_event_id` opens as the
 * trajectory, the others are listed as forks, and `--branch ID` (LoadOptions.branch) opens another.
 * The tree is test/helpers/v1Branches.ts's: a real conversation with a second branch appended.
 */
import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { command as convert } from '../../../extension/cli/convert';
import { command as inspect } from '../../../extension/cli/inspect';
import { loadTrajectory } from '../../../extension/core/trajectory/load';
import { runCli } from '../../helpers/cliRunner';
import { repoRoot } from '../../helpers/trajectoryFiles';
import { BRANCH_POINT, branchedConversation, NEW_BRANCH as NEW, ORIGINAL_LEAF } from '../../helpers/v1Branches';

const recordings = path.join(repoRoot, 'test/fixtures/recordings/openhands-v1');
const work = mkdtempSync(path.join(tmpdir(), 'swe-workbench-ohv1-branches-'));
after(() => rmSync(work, { recursive: true, force: true }));
type Json = Record<string, any>;

describe('OpenHands V1 branches', () => {
  const dir = branchedConversation(work);
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
