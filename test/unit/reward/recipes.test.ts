import '../../helpers/families';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ESTIMATORS, groupAdvantages, type Estimator } from '../../../extension/core/reward/advantages';
import { readRunBugChecks } from '../../../extension/core/reward/bugConsistency';
import { gradeOutput } from '../../../extension/core/reward/evaluate';
import { BUILT_IN_RECIPES, RECIPE_NAMES, builtInRecipe, scoreRollout, type Recipe } from '../../../extension/core/reward/recipes';
import { resolveRecipe } from '../../../extension/core/reward/recipeFiles';
import type { Rollout } from '../../../extension/core/rollouts/record';
import { indexRollouts } from '../../../extension/core/rollouts/rolloutIndex';
import { scoreRun, statisticsOver, type ScoredRun } from '../../../extension/core/rollouts/recipeRun';
import { patchExtras } from '../../../extension/core/rollouts/recipeEvidence';
import { patchFor } from '../../fixtures/rollouts/runWriter';
import { G7, S3, W101, W202, writeTrainingRun } from '../../fixtures/rollouts/trainingRun';

const close = (actual: number | null | undefined, expected: number, what: string) => {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);
};
const recipe = (name: string): Recipe => builtInRecipe(name)!;

/** The fixture run (trainingRun.ts), by instance and attempt. */
function byAttempt(run: ScoredRun, instance: string, attempt: number) {
  const r = run.rollouts.find((x) => x.instance === instance && x.attempt === attempt);
  assert.ok(r, `${instance} #${attempt}`);
  return r;
}
const group = (run: ScoredRun, instance: string) => run.groups.find((g) => g.instance === instance)!;

describe('advantage estimators, against the formulas written out', () => {
  // r = [1, 0, 0]: mean = 1/3; sample std = sqrt(((2/3)^2 + 2 (1/3)^2) / 2) = sqrt(1/3).
  const r = [1, 0, 0];
  test('GRPO (DeepSeekMath 4.1.2): (r - mean) / (std + 1e-6)', () => {
    const a = groupAdvantages(r, 'grpo').advantages;
    close(a[0], 2 / 3 / (Math.sqrt(1 / 3) + 1e-6), 'A_1');
    close(a[1], -1 / 3 / (Math.sqrt(1 / 3) + 1e-6), 'A_2');
  });
  test('Dr. GRPO (Liu et al. 2025): r - mean', () => {
    assert.deepEqual(
      groupAdvantages(r, 'drgrpo').advantages.map((x) => Number(x.toFixed(12))),
      [0.666666666667, -0.333333333333, -0.333333333333],
    );
  });
  test('RLOO (Ahmadian et al. 2024, eq. 7): r_i - mean of the others', () => {
    // A_1 = 1 - (0 + 0)/2 = 1; A_2 = 0 - (1 + 0)/2 = -0.5.
    assert.deepEqual(groupAdvantages(r, 'rloo').advantages, [1, -0.5, -0.5]);
  });
  test('a group whose rewards are equal, and a group of one, give no gradient', () => {
    assert.deepEqual(groupAdvantages([0, 0, 0], 'grpo').advantages, [0, 0, 0]);
    assert.deepEqual(groupAdvantages([1], 'rloo').advantages, [0]);
  });
});

describe('recipes on the fixture training run', () => {
  let root: string;
  let rollouts: Rollout[];
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-recipes-'));
    writeTrainingRun(root);
    rollouts = (await indexRollouts(root)).rollouts;
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('swe-bench + GRPO: the container error is masked with its reason, the rest 1/0 with (r - mean)/std', () => {
    const run = scoreRun(rollouts, recipe('swe-bench'), 'grpo');
    const crashed = byAttempt(run, G7, 3);
    assert.equal(crashed.score.outcome, 'masked');
    assert.equal(crashed.advantage, null);
    assert.match(crashed.score.mask!.reason, /^container error: exit status 'RuntimeError'/);
    assert.match(crashed.why, /^masked: container error.*left out of the group's statistics, no gradient/);
    // G7: attempts 1, 2, 4 score [1, 0, 0]: mean 1/3, std sqrt(1/3).
    const g = group(run, G7);
    assert.equal(g.included, 3);
    close(g.mean, 1 / 3, 'mean');
    close(g.std, Math.sqrt(1 / 3), 'std');
    close(byAttempt(run, G7, 1).advantage, 2 / 3 / (Math.sqrt(1 / 3) + 1e-6), 'G7 #1');
    close(byAttempt(run, G7, 4).advantage, -1 / 3 / (Math.sqrt(1 / 3) + 1e-6), 'G7 #4');
    // pass@k over the included three: n = 3, c = 1: pass@2 = 1 - C(2,2)/C(3,2) = 2/3.
    close(g.passAtK[1], 2 / 3, 'pass@2');
    assert.equal(g.mixed, true);
    // W202: four failures, nothing to learn: advantages 0, not mixed.
    assert.deepEqual(
      run.rollouts.filter((r) => r.instance === W202).map((r) => r.advantage),
      [0, 0, 0, 0],
    );
    assert.equal(group(run, W202).mixed, false);
    assert.equal(group(run, W202).signal, false);
  });

  test('swe-bench + RLOO on W101 [1, 0, 0, 1]: 1 - 1/3 = 2/3 and 0 - 2/3', () => {
    const run = scoreRun(rollouts, recipe('swe-bench'), 'rloo');
    close(byAttempt(run, W101, 1).advantage, 2 / 3, 'W101 #1');
    close(byAttempt(run, W101, 2).advantage, -2 / 3, 'W101 #2');
    assert.match(byAttempt(run, W101, 2).why, /RLOO.*mean of the others 0\.6667/);
  });

  test('deepswe: compact filtering masks the context overflow and the max-steps run; Dr. GRPO over the rest', () => {
    const run = scoreRun(rollouts, recipe('deepswe'), 'drgrpo');
    assert.equal(byAttempt(run, W202, 1).score.mask?.reason, 'context window exceeded');
    assert.equal(byAttempt(run, W202, 4).score.mask?.reason, 'step limit reached');
    assert.equal(group(run, W202).included, 2);
    // S3 [1, 0, 1]: mean 2/3; Dr. GRPO 1 - 2/3 and 0 - 2/3.
    close(run.rollouts.find((r) => r.id === 'rllm/episodes.jsonl:1')!.advantage, 1 / 3, 'S3:0');
    close(run.rollouts.find((r) => r.id === 'rllm/episodes.jsonl:2')!.advantage, -2 / 3, 'S3:1');
  });

  test('skyrl: the stuck loop is masked too; W202 keeps one scored rollout, whose advantage is 0', () => {
    const run = scoreRun(rollouts, recipe('skyrl'));
    assert.equal(byAttempt(run, W202, 2).score.mask?.reason, 'stuck in a loop');
    assert.equal(byAttempt(run, W202, 3).score.outcome, 'scored');
    assert.equal(group(run, W202).included, 1);
    assert.equal(byAttempt(run, W202, 3).advantage, 0);
    assert.deepEqual(run.statistics.maskReasons, {
      'context window exceeded': 1,
      'stuck in a loop': 1,
      'step limit reached': 1,
      "container error: exit status 'RuntimeError'": 1,
    });
  });

  test("a filter's totals count its rollouts and their groups; the groups' advantages stay the whole run's", () => {
    const run = scoreRun(rollouts, recipe('skyrl'));
    assert.deepEqual(statisticsOver(run, new Set(run.rollouts.map((r) => r.id))), run.statistics);
    // W202 alone: #1 context window, #2 stuck loop, #4 step limit masked, #3 scored; one group, no signal (one scored rollout).
    const w202 = new Set(run.rollouts.filter((r) => r.instance === W202).map((r) => r.id));
    assert.deepEqual(statisticsOver(run, w202), {
      rollouts: 4,
      scored: 1,
      masked: 3,
      unscored: 0,
      groups: 1,
      mixed: 0,
      withSignal: 0,
      meanReward: 0,
      maskReasons: { 'context window exceeded': 1, 'stuck in a loop': 1, 'step limit reached': 1 },
    });
    // G7's #1 alone: one rollout counted, its group (mixed, with signal) as the whole run scored it.
    const one = statisticsOver(run, new Set([byAttempt(run, G7, 1).id]));
    assert.deepEqual([one.rollouts, one.scored, one.groups, one.mixed, one.withSignal], [1, 1, 1, 1, 1]);
  });

  test('swe-master: the truncated W202 run is force-submitted (its patch fails: 0); the container error masked', () => {
    const run = scoreRun(rollouts, recipe('swe-master'));
    const truncated = byAttempt(run, W202, 4);
    assert.equal(truncated.score.value, 0);
    assert.equal(truncated.score.terms.find((t) => t.name === 'forced-submission discount')?.value, 0.5);
    assert.equal(byAttempt(run, G7, 3).score.outcome, 'masked');
  });

  test('ssr-injector: each bug rewarded from its solve rate, advantages across the bugs (Dr. GRPO)', () => {
    const run = scoreRun(rollouts, recipe('ssr-injector'), 'drgrpo');
    // Linear shape, alpha = 0.8: 1 - 1.8 s for 0 < s < 1; -0.8 for s = 0.
    // G7 s = 1/3 (the masked attempt left out): 0.4; S3 s = 2/3: -0.2; W101 s = 2/4: 0.1; W202 s = 0: -0.8.
    const expected: Record<string, number> = { [G7]: 0.4, [S3]: -0.2, [W101]: 0.1, [W202]: -0.8 };
    for (const [instance, value] of Object.entries(expected)) {
      const bug = group(run, instance).bugReward;
      assert.ok(bug && 'value' in bug);
      close(bug.value, value, instance);
    }
    // mean = (0.4 - 0.2 + 0.1 - 0.8) / 4 = -0.125.
    close(byAttempt(run, G7, 1).advantage, 0.525, 'G7');
    close(byAttempt(run, W202, 1).advantage, -0.675, 'W202');
  });

  test('ssr-injector with bug checks: a bug failing one gets -1 whatever its attempts did, and the advantages across the bugs move', async () => {
    // The run's bugs file (`--bug-checks`): a bug's `bug validate --json` output, or true / false.
    const checks = join(root, 'bug-checks.json');
    writeFileSync(
      checks,
      JSON.stringify({
        [G7]: true,
        [W202]: [
          { name: 'bug-validity', passed: true },
          { name: 'inverse-mutation', passed: false },
        ],
      }),
    );
    const bugs = await readRunBugChecks(checks);
    const run = scoreRun(rollouts, recipe('ssr-injector'), 'drgrpo', undefined, { bugs });
    // W202 inconsistent: the recipe's lowest reward, -1 (not -0.8 for s = 0). G7 consistent as given: 0.4;
    // S3 and W101 are not in the map, so consistent: -0.2 and 0.1.
    const expected: Record<string, number> = { [G7]: 0.4, [S3]: -0.2, [W101]: 0.1, [W202]: -1 };
    for (const [instance, value] of Object.entries(expected)) {
      const bug = group(run, instance).bugReward;
      assert.ok(bug && 'value' in bug);
      close(bug.value, value, instance);
    }
    // mean (0.4 - 0.2 + 0.1 - 1) / 4 = -0.175: Dr. GRPO 0.575, -0.025, 0.275, -0.825.
    close(byAttempt(run, G7, 1).advantage, 0.575, 'G7');
    close(run.rollouts.find((r) => r.id === 'rllm/episodes.jsonl:1')!.advantage, -0.025, 'S3');
    close(byAttempt(run, W101, 2).advantage, 0.275, 'W101');
    const attempt = byAttempt(run, W202, 3);
    close(attempt.advantage, -0.825, 'W202');
    close(attempt.score.value, -1, 'W202 #3 reward');
    const consistency = attempt.score.terms.find((t) => t.name === 'consistency');
    assert.equal(consistency?.value, 0);
    assert.match(consistency.rule, /; failed: inverse-mutation$/);
    assert.match(attempt.why, /^ssr-injector: the bug's reward -1 \(the bug failed its consistency checks\)/);
    // A consistent bug's attempt keeps its own solved / not solved, with consistency 1.
    assert.deepEqual(
      byAttempt(run, G7, 1).score.terms.map((t) => [t.name, t.value]),
      [
        ['consistency', 1],
        ['solver attempt solved', 1],
      ],
    );
  });

  test('bug checks: the output of bug validate --json or true / false per instance; a bad entry named by its JSON path', async () => {
    const file = join(root, 'bugs.json');
    writeFileSync(file, JSON.stringify({ [W101]: [{ name: 'bug-scope', passed: true, detail: 'ok', durationMs: 3 }], [W202]: false }));
    assert.deepEqual(Object.fromEntries(await readRunBugChecks(file)), {
      [W101]: { consistent: true, failed: [] },
      [W202]: { consistent: false, failed: [] },
    });
    writeFileSync(file, JSON.stringify({ [W101]: [{ name: 'bug-scope' }] }));
    await assert.rejects(readRunBugChecks(file), /bugs\.json: \$\["acme__widgets-101"\]\[0\]\.passed: /);
    writeFileSync(file, JSON.stringify({ [W101]: 'yes' }));
    await assert.rejects(
      readRunBugChecks(file),
      /\$\["acme__widgets-101"\]: expected true, false or the checks 'bug validate --json' prints \(an array\), got string/,
    );
    writeFileSync(file, JSON.stringify({ [W101]: [] }));
    await assert.rejects(readRunBugChecks(file), /expected at least one check/);
  });

  test('r2e and ssr-solver: binary from the evaluation; the rollout nothing evaluated is masked, not scored 0', () => {
    for (const name of ['r2e', 'ssr-solver']) {
      const run = scoreRun(rollouts, recipe(name), 'drgrpo');
      close(byAttempt(run, W101, 1).score.value, 1, `${name} W101 #1`);
      close(byAttempt(run, W101, 1).advantage, 0.5, `${name} W101 #1 advantage = 1 - 0.5`);
      assert.equal(byAttempt(run, G7, 3).score.outcome, 'masked');
    }
  });

  test('swe-rl without gold patches: every rollout unscored, saying what is missing', () => {
    const run = scoreRun(rollouts, recipe('swe-rl'));
    assert.equal(run.statistics.unscored, run.statistics.rollouts);
    assert.match(run.rollouts[0]!.why, /^not scored: no gold patch/);
  });

  test('a user recipe from YAML extends nebius: penalty from 5 to 10 steps, Dr. GRPO on W101', async () => {
    const file = join(root, 'recipes.yaml');
    writeFileSync(file, 'recipes:\n  - name: nebius-short\n    version: 2\n    extends: nebius\n    threshold: 5\n    maxSteps: 10\n    advantage: drgrpo\n');
    const short = await resolveRecipe(file);
    assert.equal(short.name, 'nebius-short');
    const run = scoreRun(rollouts, short);
    // W101: #1 resolved in 6 steps: 1 - (6-5)/5 = 0.8; #2 wrong, 8 steps: -0.6; #3 12 steps: -1; #4 resolved, 9 steps: 0.2.
    const values = [1, 2, 3, 4].map((a) => byAttempt(run, W101, a).score.value!);
    [0.8, -0.6, -1, 0.2].forEach((v, i) => close(values[i], v, `W101 #${i + 1}`));
    // mean -0.15: Dr. GRPO 0.95, -0.45, -0.85, 0.35.
    [0.95, -0.45, -0.85, 0.35].forEach((v, i) => close(byAttempt(run, W101, i + 1).advantage, v, `A #${i + 1}`));
    // Signal without a mixed pass/fail split would still be a gradient: W202 all fail but with different penalties.
    assert.equal(group(run, W202).mixed, false);
    assert.equal(group(run, W202).signal, true);
  });

  test('maskedInGroup include: the masked reward counts in the mean, its own advantage stays null', async () => {
    const file = join(root, 'include.json');
    writeFileSync(file, JSON.stringify({ name: 'deepswe-include', version: '1', extends: 'deepswe', maskedInGroup: 'include' }));
    const run = scoreRun(rollouts, await resolveRecipe(file), 'drgrpo');
    assert.equal(group(run, W202).included, 4);
    assert.equal(byAttempt(run, W202, 1).advantage, null);
    assert.match(byAttempt(run, W202, 1).why, /its reward counts in the group/);
  });
});

/**
 * Every built-in recipe under every estimator on the fixture run, against numbers worked out by
 * hand. The formulas are those of advantages.ts: GRPO (Shao et al. 2024, DeepSeekMath 4.1.2)
 * A_i = (r_i - mean) / (std + 1e-6) with the sample std (n - 1); Dr. GRPO (Liu et al. 2025, 3.2)
 * A_i = r_i - mean; RLOO (Ahmadian et al. 2024, eq. 7) A_i = r_i - mean of the others. A group
 * whose rewards are all equal, or of one, gets 0 under each.
 *
 * The fixture (trainingRun.ts), by instance and attempt, as the index reads it:
 *   G7:   #1 resolved; #2 lint loop, no patch; #3 RuntimeError (container error); #4 wrong patch
 *   S3:   #1 correct; #2 wrong (no finish reason); #3 correct
 *   W101: #1 resolved, 6 steps; #2 wrong patch, 8; #3 budget exceeded, 12; #4 resolved, 9
 *   W202: #1 context exceeded; #2 stuck in a loop; #3 format error; #4 step limit (truncated, 40 steps)
 */
describe('every built-in recipe x estimator on the fixture run, by hand', () => {
  const EPS = 1e-6;
  const s13 = Math.sqrt(1 / 3);

  /** A group's included rewards (attempt order), mean, sample std and each estimator's advantages. */
  interface HandGroup {
    rewards: number[];
    mean: number;
    std: number;
    adv: Record<Estimator, number[]>;
  }
  // [1, 0, 0]: mean 1/3; std sqrt(((2/3)^2 + 2 (1/3)^2) / 2) = sqrt(1/3).
  // GRPO (2/3) / (sqrt(1/3) + eps), (-1/3) / (...); Dr. GRPO 2/3, -1/3; RLOO 1 - 0 = 1, 0 - (1 + 0)/2 = -1/2.
  const g100: HandGroup = {
    rewards: [1, 0, 0],
    mean: 1 / 3,
    std: s13,
    adv: { grpo: [2 / 3 / (s13 + EPS), -1 / 3 / (s13 + EPS), -1 / 3 / (s13 + EPS)], drgrpo: [2 / 3, -1 / 3, -1 / 3], rloo: [1, -1 / 2, -1 / 2] },
  };
  // [1, 0, 1]: mean 2/3; std sqrt((2 (1/3)^2 + (2/3)^2) / 2) = sqrt(1/3).
  // Dr. GRPO 1/3, -2/3; RLOO 1 - (0 + 1)/2 = 1/2, 0 - (1 + 1)/2 = -1.
  const g101: HandGroup = {
    rewards: [1, 0, 1],
    mean: 2 / 3,
    std: s13,
    adv: { grpo: [1 / 3 / (s13 + EPS), -2 / 3 / (s13 + EPS), 1 / 3 / (s13 + EPS)], drgrpo: [1 / 3, -2 / 3, 1 / 3], rloo: [1 / 2, -1, 1 / 2] },
  };
  // [1, 0, 0, 1]: mean 1/2; std sqrt(4 (1/2)^2 / 3) = sqrt(1/3).
  // Dr. GRPO +-1/2; RLOO 1 - (0 + 0 + 1)/3 = 2/3, 0 - (1 + 0 + 1)/3 = -2/3.
  const g1001: HandGroup = {
    rewards: [1, 0, 0, 1],
    mean: 1 / 2,
    std: s13,
    adv: {
      grpo: [1 / 2 / (s13 + EPS), -1 / 2 / (s13 + EPS), -1 / 2 / (s13 + EPS), 1 / 2 / (s13 + EPS)],
      drgrpo: [1 / 2, -1 / 2, -1 / 2, 1 / 2],
      rloo: [2 / 3, -2 / 3, -2 / 3, 2 / 3],
    },
  };
  /** n equal rewards v: r - mean = 0 and std 0 (GRPO 0 / (0 + eps) = 0); a group of one is 0 too. */
  const equal = (v: number, n: number): HandGroup => {
    const zeros = Array<number>(n).fill(0);
    return { rewards: Array<number>(n).fill(v), mean: v, std: 0, adv: { grpo: zeros, drgrpo: zeros, rloo: zeros } };
  };
  const binary = { [G7]: g100, [S3]: g101, [W101]: g1001 };

  // SWE-RL with every instance's gold patch = the fixture's resize.py patch: a submission equal
  // to it scores ratio 1, no or an empty submission -1 (malformed). Nothing masked.
  // G7 [1, -1, -1, 1]: mean 0; std sqrt(4 / 3). Dr. GRPO +-1; RLOO 1 - (-1 - 1 + 1)/3 = 4/3, -1 - (1 - 1 + 1)/3 = -4/3.
  const sr43 = Math.sqrt(4 / 3);
  const rlG7: HandGroup = {
    rewards: [1, -1, -1, 1],
    mean: 0,
    std: sr43,
    adv: { grpo: [1 / (sr43 + EPS), -1 / (sr43 + EPS), -1 / (sr43 + EPS), 1 / (sr43 + EPS)], drgrpo: [1, -1, -1, 1], rloo: [4 / 3, -4 / 3, -4 / 3, 4 / 3] },
  };
  // W101 [1, 1, -1, 1]: mean 1/2; std sqrt((3 (1/2)^2 + (3/2)^2) / 3) = 1. Dr. GRPO 1/2, -3/2; RLOO 1 - 1/3 = 2/3, -1 - 3/3 = -2.
  const rlW101: HandGroup = {
    rewards: [1, 1, -1, 1],
    mean: 1 / 2,
    std: 1,
    adv: { grpo: [0.5 / (1 + EPS), 0.5 / (1 + EPS), -1.5 / (1 + EPS), 0.5 / (1 + EPS)], drgrpo: [0.5, 0.5, -1.5, 0.5], rloo: [2 / 3, 2 / 3, -2, 2 / 3] },
  };

  // SSR injector (linear, alpha 0.8): a bug's reward from its solve rate s over its scored
  // attempts, 1 - 1.8 s inside (0, 1), -0.8 at s = 0: G7 1/3 -> 0.4, S3 2/3 -> -0.2, W101 2/4 -> 0.1, W202 0 -> -0.8.
  // Across the four bugs: mean -0.125; r - mean 0.525, -0.075, 0.225, -0.675; std sqrt(0.7875 / 3) = sqrt(0.2625);
  // RLOO r - (-0.5 - r)/3: 0.7, -0.1, 0.3, -0.9. Every scored attempt at a bug carries the bug's advantage.
  const sInj = Math.sqrt(0.2625);
  const bug = (g: HandGroup, dev: number, rloo: number): HandGroup => {
    const n = g.rewards.length;
    return { ...g, adv: { grpo: Array<number>(n).fill(dev / (sInj + EPS)), drgrpo: Array<number>(n).fill(dev), rloo: Array<number>(n).fill(rloo) } };
  };

  const container = /^container error: exit status 'RuntimeError'/;
  const cases: Record<string, { masked: Record<string, RegExp>; groups: Record<string, HandGroup>; bugs?: Record<string, number> }> = {
    // Binary resolve; a container error masked (infra_error), everything else scored.
    'swe-bench': { masked: { [`${G7}#3`]: container }, groups: { ...binary, [W202]: equal(0, 4) } },
    r2e: { masked: { [`${G7}#3`]: container }, groups: { ...binary, [W202]: equal(0, 4) } },
    'ssr-solver': { masked: { [`${G7}#3`]: container }, groups: { ...binary, [W202]: equal(0, 4) } },
    // W202 #4 was truncated (force-submitted) but its patch fails: 0 * 0.5 = 0.
    'swe-master': { masked: { [`${G7}#3`]: container }, groups: { ...binary, [W202]: equal(0, 4) } },
    // threshold 80, maxSteps 100: no rollout has more than 40 steps, so the penalty is 0 and the reward binary.
    nebius: { masked: { [`${G7}#3`]: container }, groups: { ...binary, [W202]: equal(0, 4) } },
    // Compact filtering also masks the context overflow and the step limit: W202 keeps #2, #3.
    deepswe: {
      masked: { [`${G7}#3`]: container, [`${W202}#1`]: /^context window exceeded$/, [`${W202}#4`]: /^step limit reached$/ },
      groups: { ...binary, [W202]: equal(0, 2) },
    },
    // SkyRL also masks the loop: W202 keeps #3 alone (group of one).
    skyrl: {
      masked: {
        [`${G7}#3`]: container,
        [`${W202}#1`]: /^context window exceeded$/,
        [`${W202}#2`]: /^stuck in a loop$/,
        [`${W202}#4`]: /^step limit reached$/,
      },
      groups: { ...binary, [W202]: equal(0, 1) },
    },
    'swe-rl': { masked: {}, groups: { [G7]: rlG7, [S3]: equal(-1, 3), [W101]: rlW101, [W202]: equal(-1, 4) } },
    'ssr-injector': {
      masked: { [`${G7}#3`]: container },
      groups: { [G7]: bug(g100, 0.525, 0.7), [S3]: bug(g101, -0.075, -0.1), [W101]: bug(g1001, 0.225, 0.3), [W202]: bug(equal(0, 4), -0.675, -0.9) },
      bugs: { [G7]: 0.4, [S3]: -0.2, [W101]: 0.1, [W202]: -0.8 },
    },
  };

  let root: string;
  let rollouts: Rollout[];
  let extras: Parameters<typeof scoreRun>[3];
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'swe-workbench-recipe-table-'));
    writeTrainingRun(root);
    rollouts = (await indexRollouts(root)).rollouts;
    const gold = patchFor('src/widgets/resize.py');
    extras = await patchExtras(root, rollouts, new Map([G7, S3, W101, W202].map((i) => [i, gold])));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('the table holds every built-in recipe', () => {
    assert.deepEqual(Object.keys(cases).sort(), [...RECIPE_NAMES].sort());
  });

  for (const [name, hand] of Object.entries(cases)) {
    for (const estimator of ESTIMATORS) {
      test(`${name} + ${estimator}`, () => {
        const run = scoreRun(rollouts, recipe(name), estimator, name === 'swe-rl' ? extras : undefined);
        assert.equal(run.statistics.unscored, 0);
        for (const [instance, g] of Object.entries(hand.groups)) {
          const list = run.rollouts.filter((r) => r.instance === instance).sort((a, b) => a.attempt - b.attempt);
          const included = list.filter((r) => !hand.masked[`${instance}#${r.attempt}`]);
          for (const r of list.filter((x) => hand.masked[`${instance}#${x.attempt}`])) {
            assert.equal(r.score.outcome, 'masked', `${instance} #${r.attempt}`);
            assert.match(r.score.mask!.reason, hand.masked[`${instance}#${r.attempt}`]!);
            assert.equal(r.advantage, null, `${instance} #${r.attempt} advantage`);
          }
          assert.equal(included.length, g.rewards.length, `${instance} included`);
          included.forEach((r, i) => {
            assert.equal(r.score.outcome, 'scored', `${instance} #${r.attempt}`);
            close(r.score.value, g.rewards[i]!, `${instance} #${r.attempt} reward`);
            close(r.advantage, g.adv[estimator][i]!, `${instance} #${r.attempt} ${estimator} advantage`);
          });
          close(group(run, instance).mean, g.mean, `${instance} mean`);
          close(group(run, instance).std, g.std, `${instance} std`);
          if (hand.bugs) {
            const b = group(run, instance).bugReward;
            assert.ok(b && 'value' in b, instance);
            close(b.value, hand.bugs[instance]!, `${instance} bug reward`);
          }
        }
      });
    }
  }

  test('nebius built in: the overlong penalty term is there, and 0 below its threshold of 80 steps', () => {
    const run = scoreRun(rollouts, recipe('nebius'));
    // W202 #4 ran 40 steps: (40 - 80) / 20 clamps to 0.
    close(byAttempt(run, W202, 4).score.terms.find((t) => t.name === 'overlong steps')?.value, 0, 'penalty');
  });
});

describe('recipes on single evidence', () => {
  test('swe-rl: the gold file reproduced scores 1, the other gold file missing scores 0: mean 0.5; malformed -1, not masked', () => {
    const fileA = 'diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n';
    const fileB = 'diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1,1 +1,1 @@\n-y = 1\n+y = 2\n';
    const half = scoreRollout(recipe('swe-rl'), { resolved: null, gold: fileA + fileB, patch: fileA });
    assert.equal(half.value, 0.5);
    assert.equal(half.passed, false);
    const malformed = scoreRollout(recipe('swe-rl'), { resolved: null, gold: fileA, patch: 'I fixed it' });
    assert.equal(malformed.value, -1);
    assert.equal(malformed.outcome, 'scored');
  });

  test('swe-master: a truncated run whose last patch passes gets alpha = 0.5', () => {
    const s = scoreRollout(recipe('swe-master'), { resolved: true, truncated: true, finishReason: 'max_steps' });
    assert.equal(s.value, 0.5);
    assert.equal(s.outcome, 'scored');
  });

  test('an infrastructure error of the test output ("no tests recognised") is a mask under every recipe that executes tests', () => {
    const grading = gradeOutput({ FAIL_TO_PASS: ['t'], PASS_TO_PASS: [] }, '>>>>> Start Test Output\n>>>>> Tests Errored\n>>>>> End Test Output\n');
    for (const r of BUILT_IN_RECIPES.filter((x) => x.shape !== 'swe-rl')) {
      const s = scoreRollout(r, { resolved: null, grading });
      assert.equal(s.outcome, 'masked', r.name);
      assert.match(s.mask!.reason, /^evaluation error: /, r.name);
    }
    const noTests = scoreRollout(recipe('swe-bench'), { resolved: null, evaluationError: 'infrastructure error: no tests recognised' });
    assert.equal(noTests.mask?.reason, 'evaluation error: infrastructure error: no tests recognised');
  });
});

describe('recipe files: clear errors', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'swe-workbench-recipe-files-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  test('an unknown name lists the built-in ones', async () => {
    await assert.rejects(
      resolveRecipe('grpo-magic'),
      /unknown recipe 'grpo-magic': one of swe-bench, r2e, swe-rl, deepswe, swe-master, ssr-solver, ssr-injector, nebius, skyrl/,
    );
  });
  test('broken YAML names its line and column', async () => {
    await assert.rejects(
      resolveRecipe(write('bad.yaml', 'name: x\nversion: 1\nsource: "unclosed\n')),
      /bad\.yaml: line 4, column 1: not valid YAML: Missing closing "quote$/,
    );
  });
  test('a bad field is named by its JSON path', async () => {
    await assert.rejects(
      resolveRecipe(write('nebius.json', JSON.stringify({ name: 'n', version: 1, source: 's', shape: 'nebius', threshold: 10, maxSteps: 5 }))),
      /nebius\.json: \$\.maxSteps: maxSteps \(5\) must exceed threshold \(10\)/,
    );
    await assert.rejects(
      resolveRecipe(write('alpha.yaml', 'recipes:\n  - {name: m, version: 1, source: s, shape: swe-master, alpha: 2}\n')),
      /alpha\.yaml: \$\.recipes\[0\]\.alpha: /,
    );
    await assert.rejects(
      resolveRecipe(write('mask.json', JSON.stringify({ name: 'm', version: 1, extends: 'skyrl', masked: ['teapot'] }))),
      /mask\.json: \$\.masked\[0\]: /,
    );
    await assert.rejects(
      resolveRecipe(write('ext.json', JSON.stringify({ name: 'm', version: 1, extends: 'ppo' }))),
      /ext\.json: \$\.extends: extends names a built-in recipe/,
    );
  });
  test('two recipes in one file: FILE#NAME picks one', async () => {
    const file = write('two.yaml', 'recipes:\n  - {name: a, version: 1, extends: swe-bench}\n  - {name: b, version: 1, extends: skyrl}\n');
    await assert.rejects(resolveRecipe(file), /holds 2 recipes \(a, b\): pick one/);
    assert.equal((await resolveRecipe(`${file}#b`)).shape, 'skyrl');
  });
});
