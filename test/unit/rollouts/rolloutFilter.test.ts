import '../../helpers/families';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { parseFilter } from '../../../extension/core/rollouts/rolloutFilter';
import { sortRollouts } from '../../../extension/core/rollouts/rolloutFields';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { searchRollouts } from '../../helpers/rolloutSearch';
import { G7, W101, W202, makeRolloutFolder } from '../../fixtures/rollouts/trainingRun';
import { thirdPartyFiles } from '../../helpers/trajectoryFiles';

describe('filter, sort and search over the generated training run', () => {
  let folder: ReturnType<typeof makeRolloutFolder>;
  let root: string;
  let rollouts: Rollout[];
  const ids = (expr: string) => rollouts.filter(parseFilter(expr)).map((r) => r.id);

  thirdPartyFiles.before(async () => {
    folder = makeRolloutFolder();
    const index = await indexRollouts(`${folder.root}/run`);
    root = index.root;
    rollouts = index.rollouts;
  });
  thirdPartyFiles.after(() => folder.cleanup());

  thirdPartyFiles.test('comparisons, and / or / not, parentheses', () => {
    // The R2E-Gym run of W202 hit max_step_limit after 40 steps.
    assert.deepEqual(ids('failure=max-steps and steps>30'), ['attempt_4/deepswe.jsonl:2']);
    assert.deepEqual(ids('failure=max-steps and steps>40'), []);
    assert.deepEqual(ids('instance=acme__gadgets-7 and (failure=lint-loop or failure=infra-error)'), [
      `attempt_2/${G7}/${G7}.traj`,
      `attempt_3/${G7}/${G7}.traj.json`,
    ]);
    assert.deepEqual(ids('format=r2e-gym and not resolved=true'), ['attempt_4/deepswe.jsonl:2', 'attempt_4/deepswe.jsonl:3']);
    assert.equal(ids('resolved=true').length, 5);
    assert.equal(ids('FAILURE = Resolved OR resolved = TRUE').length, 5);
  });

  thirdPartyFiles.test('none, lists, contains and quoted values', () => {
    assert.deepEqual(ids('resolved=none'), [`attempt_3/${G7}/${G7}.traj.json`]);
    assert.deepEqual(ids('test~"resize_keeps_ratio"'), [`attempt_2/${W101}/${W101}.traj`]);
    // The context-exceeded run also carries the no-submission tag.
    assert.deepEqual(ids('tag=no-submission and failure!=no-submission and instance~widgets-202'), [
      `attempt_1/${W202}/${W202}.traj`,
      `attempt_2/${W202}/${W202}.traj`,
      `attempt_3/${W202}/${W202}.traj.json`,
      'attempt_4/deepswe.jsonl:2',
    ]);
    assert.deepEqual(ids("exit~'limit' and cost>=3"), [`attempt_3/${W101}/${W101}.traj.json`]);
    assert.equal(ids('cost=none').length, rollouts.filter((r) => r.cost === undefined).length);
  });

  thirdPartyFiles.test('values written as the table shows them: yes/no, — and unknown, $ costs, thousands, seconds', () => {
    assert.deepEqual(ids('resolved=no'), ids('resolved=false'));
    assert.deepEqual(ids('resolved=yes'), ids('resolved=true'));
    assert.equal(ids('resolved=Yes').length, 5);
    assert.deepEqual(ids('resolved=—'), [`attempt_3/${G7}/${G7}.traj.json`]);
    assert.deepEqual(ids('submitted=no and instance=acme__widgets-101'), [`attempt_3/${W101}/${W101}.traj.json`]);
    assert.deepEqual(ids('cost=unknown'), ids('cost=none'));
    assert.deepEqual(ids('failure=unknown'), ['rllm/episodes.jsonl:2'], 'unknown is a failure class, not a missing value');
    assert.deepEqual(ids('cost=$0.42'), [`attempt_1/${W101}/${W101}.traj`]);
    assert.deepEqual(ids('tokens>=128,000'), ids('tokens>=128000'));
    assert.ok(ids('tokens>=128,000').includes(`attempt_1/${W202}/${W202}.traj`));
    assert.deepEqual(ids('duration<1.5s'), ids('duration<1.5'));
    assert.throws(() => ids('resolved=maybe'), /column 10: resolved is yes, no or none \(true and false too\), got 'maybe'/);
    assert.throws(() => ids('tokens>1,2'), /tokens is a number, got '1,2'/);
  });

  thirdPartyFiles.test('errors name the column and what was expected', () => {
    assert.throws(() => ids('steps>abc'), /filter: column 7: steps is a number, got 'abc'/);
    assert.throws(() => ids('failure=max-step'), /column 9: unknown failure 'max-step'; one of resolved, submitted-wrong/);
    assert.throws(() => ids('colour=red'), /column 1: unknown field 'colour'; fields: id, path/);
    assert.throws(() => ids('(steps>1'), /column 9: expected '\)' to close the '\(' at column 1/);
    assert.throws(() => ids('steps'), /column 6: expected an operator after 'steps', got the end of the filter/);
    assert.throws(() => ids('steps>1 steps<3'), /column 9: expected 'and', 'or' or the end, got 'steps'/);
    assert.throws(() => ids('instance>a'), /instance is text: use = != ~ !~/);
    assert.throws(() => ids('exit="open'), /column 6: unterminated "quoted" value/);
  });

  thirdPartyFiles.test('sort by any field, descending with a minus, missing values last', () => {
    const bySteps = sortRollouts(rollouts, '-steps').map((r) => r.steps);
    assert.deepEqual(bySteps.slice(0, 3), [40, 30, 12]);
    const byCost = sortRollouts(rollouts, 'cost');
    // G7's mini-swe-agent run writes instance_cost 0 and no token counts: not counted, so unknown and sorted last.
    assert.equal(byCost[0]!.cost, 0.42);
    assert.equal(byCost[byCost.length - 1]!.cost, undefined);
    assert.deepEqual(
      sortRollouts(rollouts, 'cost:desc')
        .slice(0, 2)
        .map((r) => r.cost),
      [3, 1.9],
    );
    assert.throws(() => sortRollouts(rollouts, 'speed'), /unknown field 'speed'/);
  });

  thirdPartyFiles.test('search finds text in observations, actions and thoughts, with the step', async () => {
    // Only the stuck run sees the traceback: five repeated steps, 2..6.
    const hits = await searchRollouts(root, rollouts, 'valueerror: ODD width');
    assert.deepEqual(
      hits.map((h) => [h.rollout, h.step, h.field]),
      [2, 3, 4, 5, 6].map((step) => [`attempt_2/${W202}/${W202}.traj`, step, 'observation']),
    );
    assert.match(hits[0]!.excerpt, /^ValueError: odd width$/);
    const lint = await searchRollouts(root, rollouts, 'E999 IndentationError');
    assert.deepEqual([...new Set(lint.map((h) => h.rollout))], [`attempt_2/${G7}/${G7}.traj`]);
    // Thoughts of R2E-Gym JSONL records are searched line by line.
    const thoughts = await searchRollouts(
      root,
      rollouts.filter((r) => r.path === 'attempt_4/deepswe.jsonl'),
      'Fix the rounding',
    );
    assert.deepEqual(
      [...new Set(thoughts.map((h) => `${h.rollout} ${h.field}`))],
      ['attempt_4/deepswe.jsonl:1 thought', 'attempt_4/deepswe.jsonl:2 thought', 'attempt_4/deepswe.jsonl:3 thought'],
    );
    assert.deepEqual(await searchRollouts(root, rollouts, 'no such text anywhere'), []);
  });
});
