import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { builtInRecipe } from '../../../extension/core/reward/recipes';
import { scoreRun, type ScoredRun } from '../../../extension/core/rollouts/recipeRun';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { rewardBreakdown } from '../../../extension/views/rewardBreakdown';
import { groupDetails, toRolloutRow } from '../../../extension/views/rolloutTable';
import { formatValue } from '../../../webview/reward/rewardChart';
import { recipeCellText } from '../../../webview/rollouts/tableModel';
import { W202, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';

describe('a masked reward is never a number in the views', () => {
  let root: string;
  let run: ScoredRun;
  let index: Awaited<ReturnType<typeof indexRollouts>>;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-masked-'));
    writeTrainingRun(root);
    index = await indexRollouts(root);
    // DeepSWE masks context overflow and the step limit; the core keeps the shape's 0 beside the mask.
    run = scoreRun(index.rollouts, builtInRecipe('deepswe')!);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('the table row: reward cell "masked", the mask column gives the reason', () => {
    const overflow = run.rollouts.find((s) => s.instance === W202 && s.attempt === 1)!;
    assert.equal(overflow.score.outcome, 'masked');
    assert.equal(overflow.score.value, 0, 'the core still knows the shape gave 0');
    const row = toRolloutRow(
      index.rollouts.find((r) => r.id === overflow.id)!,
      overflow,
    );
    assert.equal(row.score?.value, null);
    assert.equal(recipeCellText(row, 'recipe-reward'), 'masked');
    assert.equal(recipeCellText(row, 'mask'), 'masked: context window exceeded');
    const scored = run.rollouts.find((s) => s.score.outcome === 'scored' && s.score.value === 1)!;
    assert.equal(
      recipeCellText(
        toRolloutRow(
          index.rollouts.find((r) => r.id === scored.id)!,
          scored,
        ),
        'recipe-reward',
      ),
      '1',
    );
  });

  test("the group details: the masked rollouts' reward is null, the scored ones keep theirs", () => {
    const g = groupDetails(run, W202)!;
    assert.deepEqual(
      g.rollouts.map((r) => [r.attempt, r.outcome, r.value]),
      [
        [1, 'masked', null],
        [2, 'scored', 0],
        [3, 'scored', 0],
        [4, 'masked', null],
      ],
    );
  });

  test('the reward breakdown of a rollout a run report lists in error_ids: no value, the reason instead', () => {
    const report = {
      kind: 'run' as const,
      shape: 'swe-bench' as const,
      summary: { total: 1, resolvedIds: [], unresolvedIds: [], errorIds: [W202], emptyPatchIds: [] },
    };
    const inputs = { report, trajectory: undefined, output: undefined, instance: undefined };
    for (const recipe of [undefined, 'swe-bench']) {
      const b = rewardBreakdown({ report: 'run.json', instanceId: W202, ...(recipe ? { recipe } : {}) }, inputs);
      assert.equal(b.value, null, `with recipe ${recipe}`);
      assert.match(b.masked ?? '', /run report run.json: listed in error_ids$/);
    }
  });

  test("a mask's own term carries its reason and no number, in the terms and where they are shown", () => {
    const overflow = run.rollouts.find((s) => s.instance === W202 && s.attempt === 1)!;
    const mask = overflow.score.terms.find((t) => t.name.startsWith('masked'))!;
    assert.equal(mask.name, 'masked: context window exceeded');
    assert.equal(mask.value, null);
    assert.equal(formatValue(mask.value), 'masked');
    const detail = groupDetails(run, W202)!.rollouts.find((r) => r.attempt === 1)!;
    assert.deepEqual(
      detail.terms.find((t) => t.name.startsWith('masked')),
      mask,
    );
  });
});
