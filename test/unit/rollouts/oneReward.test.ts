import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command as rollouts } from '../../../extension/cli/rollouts';
import { BUILT_IN_RECIPES } from '../../../extension/core/reward/recipes';
import { scoreRun } from '../../../extension/core/rollouts/recipeRun';
import { indexRollouts, type RolloutIndex } from '../../../extension/core/rollouts/rolloutIndex';
import { toRolloutRow } from '../../../extension/views/rolloutTable';
import { buildRewardBreakdown } from '../../../extension/vscode/reward/rewardBreakdown';
import { rewardSourcesOf } from '../../../extension/vscode/rollouts/rolloutEvidence';
import { cellText, recipeCellText } from '../../../webview/rollouts/tableModel';
import { G7, W202, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';
import { runCli } from '../../helpers/cliRunner';

/**
 * One decision per rollout and recipe: the table's cells, the reward view, `rollouts list
 * --recipe` (text and JSON) and `rollouts export --recipe` say the same of every rollout of the
 * demo's training run (the folder `npm start` opens as its rollouts), under every built-in recipe.
 * Each is reduced to what a person reads: "masked: REASON", "not scored", or the reward's number.
 */
type Said = Map<string, string>;

const number = (x: number) => String(Math.round(x * 1000) / 1000);

describe('the table, the reward view, the CLI and the export decide a reward once', () => {
  let root: string;
  let index: RolloutIndex;
  let out: string;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-one-reward-'));
    out = mkdtempSync(join(tmpdir(), 'swe-workbench-one-reward-out-'));
    writeTrainingRun(root);
    index = await indexRollouts(root);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  /** The table: the recipe's reward and mask cells, and the plain Reward column beside them. */
  function table(recipeName: string): Said {
    const run = scoreRun(
      index.rollouts,
      BUILT_IN_RECIPES.find((r) => r.name === recipeName)!,
    );
    const said: Said = new Map();
    for (const s of run.rollouts) {
      const row = toRolloutRow(
        index.rollouts.find((r) => r.id === s.id)!,
        s,
      );
      const mask = recipeCellText(row, 'mask');
      const reward = recipeCellText(row, 'recipe-reward');
      if (s.score.outcome === 'masked') {
        assert.equal(reward, 'masked', `${s.id}: the recipe's reward cell`);
        assert.equal(cellText(row, 'reward'), 'masked', `${s.id}: the Reward column beside a mask`);
        said.set(s.id, mask);
      } else said.set(s.id, s.score.outcome === 'unscored' ? 'not scored' : reward);
    }
    return said;
  }

  /** The reward view of each rollout, opened from the table (its sources as the table gives them). */
  async function view(recipeName: string): Promise<Said> {
    const said: Said = new Map();
    for (const r of index.rollouts) {
      const b = await buildRewardBreakdown({ ...(await rewardSourcesOf(root, r, undefined)), recipe: recipeName });
      assert.equal(b.recipe?.name, recipeName);
      if (b.recipe!.outcome === 'masked') {
        assert.equal(b.value, null, `${r.id}: a masked reward has no number in the view`);
        said.set(r.id, `masked: ${b.masked}`);
      } else if (b.recipe!.outcome === 'unscored') {
        assert.equal(b.value, null);
        assert.ok(
          b.missing.some((m) => m.startsWith(`${recipeName} cannot score it:`)),
          `${r.id}: the view says why it is not scored`,
        );
        said.set(r.id, 'not scored');
      } else said.set(r.id, number(b.value!));
    }
    return said;
  }

  /** `rollouts list --recipe`: the JSON records and the text table's REWARD and OUTCOME columns. */
  async function cli(recipeName: string): Promise<Said> {
    const json = JSON.parse((await runCli(rollouts, ['list', root, '--recipe', recipeName, '--json'])).stdout) as {
      rollouts: { id: string; recipe: { outcome: string; value: number | null; mask: { reason: string } | null } }[];
    };
    const text = (await runCli(rollouts, ['list', root, '--recipe', recipeName])).stdout.split('\n');
    const said: Said = new Map();
    for (const { id, recipe } of json.rollouts) {
      const decided = recipe.outcome === 'masked' ? `masked: ${recipe.mask!.reason}` : recipe.outcome === 'unscored' ? 'not scored' : number(recipe.value!);
      if (recipe.outcome === 'masked') assert.equal(recipe.value, null, `${id}: --json gives a masked reward no number`);
      const cells = text.find((l) => l.startsWith(`${id} `))!.split(/\s{2,}/);
      const [reward, outcome] = [cells.at(-3), cells.at(-1)!];
      const fromText = outcome.startsWith('masked: ') ? (assert.equal(reward, 'masked'), outcome) : outcome.startsWith('not scored') ? 'not scored' : reward!;
      assert.equal(fromText, decided, `${id}: the text table and --json`);
      said.set(id, decided);
    }
    return said;
  }

  /** `rollouts export --recipe`: a written rollout carries the recipe's reward; the others are counted by their reason. */
  async function exported(recipeName: string): Promise<{ written: Said; skipped: Record<string, number> }> {
    const file = join(out, `${recipeName}.jsonl`);
    const summary = JSON.parse((await runCli(rollouts, ['export', root, '--recipe', recipeName, '--out', file, '--json'])).stdout) as {
      skipped: Record<string, number>;
    };
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const written: Said = new Map(
      lines.map((l) => {
        const { id, metadata } = JSON.parse(l) as { id: string; metadata: { recipe: { name: string; reward: number } } };
        assert.equal(metadata.recipe.name, recipeName);
        return [id, number(metadata.recipe.reward)];
      }),
    );
    return { written, skipped: summary.skipped };
  }

  for (const recipe of BUILT_IN_RECIPES) {
    test(`recipe ${recipe.name}: every rollout the same in all four`, async () => {
      const fromTable = table(recipe.name);
      assert.equal(fromTable.size, index.rollouts.length);
      assert.deepEqual(await view(recipe.name), fromTable, 'the reward view against the table');
      assert.deepEqual(await cli(recipe.name), fromTable, 'rollouts list --recipe against the table');
      const { written, skipped } = await exported(recipe.name);
      const kept = new Map([...fromTable].filter(([, said]) => !said.startsWith('masked') && said !== 'not scored'));
      assert.deepEqual(written, kept, 'the export writes the scored rollouts with their reward');
      const left: Record<string, number> = {};
      for (const said of fromTable.values()) if (said.startsWith('masked') || said === 'not scored') left[said] = (left[said] ?? 0) + 1;
      const skippedByDecision = Object.fromEntries(Object.entries(skipped).map(([k, n]) => [k.startsWith('not scored') ? 'not scored' : k, n]));
      assert.deepEqual(skippedByDecision, left, 'the export counts the others by the same reason');
    });
  }

  test('under skyrl, the rollouts of the issue: masked for the table and the view alike', async () => {
    const said = await view('skyrl');
    for (const line of [1, 2])
      assert.equal(said.get(`attempt_${line}/${W202}/${W202}.traj`), line === 1 ? 'masked: context window exceeded' : 'masked: stuck in a loop');
    assert.equal(said.get('attempt_4/deepswe.jsonl:2'), 'masked: step limit reached');
    assert.equal(said.get(`attempt_3/${G7}/${G7}.traj.json`), "masked: container error: exit status 'RuntimeError'");
  });
});
