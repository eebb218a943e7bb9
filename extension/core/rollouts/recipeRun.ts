import { ESTIMATOR_FORMULA, groupAdvantages, type Estimator } from '../reward/advantages';
import { injectorGroupReward, scoreRollout, type BugConsistency, type Recipe, type RecipeScore, type RolloutEvidence } from '../reward/recipes';
import type { RewardTerm } from '../reward/rewardTerms';
import type { FinishReason } from '../reward/shapes';
import type { FailureClass, Rollout } from './record';
import { passAtK } from './rolloutGroups';

/**
 * A run scored by a recipe: every rollout's reward or mask, every GRPO group's statistics and
 * advantages, and why each rollout got the advantage it got.
 */

const BUDGET_TIME = /time/i;

/** The finish reason a failure class stands for (SkyRL's and DeepSWE's lists are in finish reasons). */
function finishReasonOf(r: Pick<Rollout, 'failure' | 'exitStatus' | 'submitted'>): FinishReason | undefined {
  const byClass: Partial<Record<FailureClass, FinishReason>> = {
    resolved: 'submitted',
    'submitted-wrong': 'submitted',
    'no-submission': 'no_submission',
    'max-steps': 'max_steps',
    'context-exceeded': 'context_exceeded',
    'command-timeout': 'command_timeout',
    'stuck-loop': 'stuck_in_loop',
    'infra-error': 'infra_error',
    'eval-error': 'evaluation_error',
  };
  switch (r.failure) {
    case 'budget-exceeded':
      return BUDGET_TIME.test(r.exitStatus ?? '') ? 'timeout' : 'budget_exceeded';
    case 'format-error':
      // SkyRL's own BAD_LLM_RESPONSE is what its list masks; other scaffolds' format errors are kept apart.
      return /bad_llm_response/i.test(r.exitStatus ?? '') ? 'bad_llm_response' : 'format_error';
    case 'lint-loop':
      return r.submitted ? 'submitted' : 'no_submission';
    default:
      return byClass[r.failure];
  }
}

/**
 * How a rollout's run ended, as the index knows it and a recipe reads it: its finish reason,
 * whether it was cut at the step limit, a broken container or evaluation, its steps. The one
 * source of these facts for the table, `rollouts list --recipe`, the SFT export and the reward
 * view of a rollout (which gets them with its sources), so all four mask the same rollouts for
 * the same reason. The verdict is not here: each grades it from its own evidence.
 */
export function runEvidence(r: Rollout): RunEvidence {
  const finishReason = finishReasonOf(r);
  return {
    steps: r.steps,
    ...(finishReason ? { finishReason } : {}),
    truncated: (r.failure === 'max-steps' || r.tags.includes('max-steps')) && r.submitted !== true,
    ...(r.failure === 'infra-error' ? { infraError: r.evidence.detail } : {}),
    ...(r.failure === 'eval-error'
      ? { evaluationError: r.evidence.detail }
      : r.evaluation?.infra
        ? { evaluationError: r.evaluation.error ?? 'the evaluation failed' }
        : {}),
  };
}

export type RunEvidence = Pick<RolloutEvidence, 'steps' | 'finishReason' | 'truncated' | 'infraError' | 'evaluationError'>;

/** What the index knows of a rollout, as a recipe reads it. */
function evidenceOf(r: Rollout, extra: { patch?: string; gold?: string } = {}): RolloutEvidence {
  return { resolved: r.resolved, ...runEvidence(r), ...extra };
}

export interface ScoredRollout {
  id: string;
  instance: string;
  attempt: number;
  score: RecipeScore;
  /** null when the rollout gives no gradient (masked, unscored). */
  advantage: number | null;
  /** Why: the estimator with its numbers, or the mask or the missing evidence. */
  why: string;
}

interface ScoredGroup {
  instance: string;
  rollouts: number;
  /** Rollouts whose reward enters the statistics. */
  included: number;
  masked: number;
  unscored: number;
  /** Masked rollouts per reason. */
  maskReasons: Record<string, number>;
  mean: number | null;
  std: number | null;
  /** Included rollouts that passed, for pass@k. */
  passed: number;
  solveRate: number | null;
  passAtK: number[];
  /** Some included rollouts pass and some fail. */
  mixed: boolean;
  /** Some included rewards differ: the group gives a non-zero gradient. */
  signal: boolean;
  /** The ssr-injector's reward of the bug, with its terms. */
  bugReward?: { value: number; terms: RewardTerm[] } | { unscored: string };
}

export interface ScoredRun {
  recipe: { name: string; version: string; shape: string; source: string; description: string; masked: readonly string[]; maskedInGroup: string };
  estimator: Estimator;
  formula: string;
  rollouts: ScoredRollout[];
  groups: ScoredGroup[];
  statistics: {
    rollouts: number;
    scored: number;
    masked: number;
    unscored: number;
    groups: number;
    mixed: number;
    withSignal: number;
    meanReward: number | null;
    maskReasons: Record<string, number>;
  };
}

const fmt = (x: number) => String(Number(x.toFixed(4)));

export interface RunOptions {
  /** ssr-injector: each bug's (instance's) consistency checks; a bug left out is taken as consistent. */
  bugs?: ReadonlyMap<string, BugConsistency>;
}

/**
 * Scores every rollout, groups them by instance, and computes each group's advantages over its
 * included rollouts (masked ones left out, or kept in the statistics, as the recipe says).
 * `extras` gives per-rollout patches and gold patches where a recipe needs them (SWE-RL).
 */
export function scoreRun(
  rollouts: readonly Rollout[],
  recipe: Recipe,
  estimator: Estimator = recipe.advantage,
  extras?: (r: Rollout) => { patch?: string; gold?: string },
  options: RunOptions = {},
): ScoredRun {
  const bugOf = (instance: string) => (recipe.shape === 'ssr-injector' ? options.bugs?.get(instance) : undefined);
  const scored: ScoredRollout[] = rollouts.map((r) => {
    const bug = bugOf(r.instance);
    return {
      id: r.id,
      instance: r.instance,
      attempt: r.attempt,
      score: scoreRollout(recipe, { ...evidenceOf(r, extras?.(r)), ...(bug ? { bug } : {}) }),
      advantage: null,
      why: '',
    };
  });
  const byInstance = new Map<string, ScoredRollout[]>();
  for (const s of scored) {
    const list = byInstance.get(s.instance);
    if (list) list.push(s);
    else byInstance.set(s.instance, [s]);
  }
  const instances = [...byInstance.keys()].sort();
  const groups = instances.map((instance) => groupOf(instance, byInstance.get(instance)!, recipe, estimator));
  if (recipe.shape === 'ssr-injector')
    injectorAdvantages(
      recipe,
      groups,
      instances.map((i) => byInstance.get(i)!),
      estimator,
      instances.map(bugOf),
    );
  return {
    recipe: {
      name: recipe.name,
      version: recipe.version,
      shape: recipe.shape,
      source: recipe.source,
      description: recipe.description,
      masked: recipe.masked,
      maskedInGroup: recipe.maskedInGroup,
    },
    estimator,
    formula: ESTIMATOR_FORMULA[estimator],
    rollouts: scored,
    groups,
    statistics: runStatisticsOf(scored, groups),
  };
}

/**
 * A scored run's totals over some of its rollouts (a table's filter): their scores and masks, and
 * the groups they belong to. The groups keep the statistics of all their rollouts (a GRPO group
 * is every rollout of its instance, whatever is shown), so a filter never moves an advantage.
 */
export function statisticsOver(run: ScoredRun, ids: ReadonlySet<string>): ScoredRun['statistics'] {
  const rollouts = run.rollouts.filter((s) => ids.has(s.id));
  const instances = new Set(rollouts.map((s) => s.instance));
  return runStatisticsOf(
    rollouts,
    run.groups.filter((g) => instances.has(g.instance)),
  );
}

function runStatisticsOf(scored: readonly ScoredRollout[], groups: readonly ScoredGroup[]): ScoredRun['statistics'] {
  const maskReasons: Record<string, number> = {};
  for (const s of scored) if (s.score.mask) maskReasons[s.score.mask.reason] = (maskReasons[s.score.mask.reason] ?? 0) + 1;
  const values = scored.filter((s) => s.score.outcome === 'scored').map((s) => s.score.value!);
  return {
    rollouts: scored.length,
    scored: values.length,
    masked: scored.filter((s) => s.score.outcome === 'masked').length,
    unscored: scored.filter((s) => s.score.outcome === 'unscored').length,
    groups: groups.length,
    mixed: groups.filter((g) => g.mixed).length,
    withSignal: groups.filter((g) => g.signal).length,
    meanReward: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null,
    maskReasons,
  };
}

function groupOf(instance: string, list: ScoredRollout[], recipe: Recipe, estimator: Estimator): ScoredGroup {
  const inStats = (s: ScoredRollout) =>
    s.score.outcome === 'scored' || (s.score.outcome === 'masked' && recipe.maskedInGroup === 'include' && s.score.value !== null);
  const members = list.filter(inStats);
  const { advantages, mean, std } = groupAdvantages(
    members.map((s) => s.score.value!),
    estimator,
  );
  const maskReasons: Record<string, number> = {};
  for (const s of list) {
    if (s.score.mask) maskReasons[s.score.mask.reason] = (maskReasons[s.score.mask.reason] ?? 0) + 1;
  }
  const n = members.length;
  const stats = n === 0 ? 'no rollout of the group is scored' : `n = ${n}, mean ${fmt(mean)}, std ${fmt(std)}`;
  members.forEach((s, i) => {
    if (s.score.outcome === 'masked') {
      s.why = `masked: ${s.score.mask!.reason}; its reward counts in the group (${stats}), its own loss is masked`;
      return;
    }
    s.advantage = advantages[i]!;
    s.why =
      n < 2
        ? `the only scored rollout of its group: no baseline, advantage 0`
        : `${ESTIMATOR_FORMULA[estimator]}: reward ${fmt(s.score.value!)}, ${stats}${estimator === 'rloo' ? `, mean of the others ${fmt((mean * n - s.score.value!) / (n - 1))}` : ''}`;
  });
  for (const s of list) {
    if (s.why !== '') continue;
    s.why =
      s.score.outcome === 'masked' ? `masked: ${s.score.mask!.reason}; left out of the group's statistics, no gradient` : `not scored: ${s.score.unscored}`;
  }
  const verdicts = members.filter((s) => s.score.passed !== null);
  const passed = verdicts.filter((s) => s.score.passed).length;
  const values = members.map((s) => s.score.value!);
  return {
    instance,
    rollouts: list.length,
    included: n,
    masked: list.filter((s) => s.score.outcome === 'masked').length,
    unscored: list.filter((s) => s.score.outcome === 'unscored').length,
    maskReasons,
    mean: n ? mean : null,
    std: n ? std : null,
    passed,
    solveRate: verdicts.length ? passed / verdicts.length : null,
    passAtK: Array.from({ length: verdicts.length }, (_, i) => passAtK(verdicts.length, passed, i + 1)),
    mixed: passed > 0 && passed < verdicts.length,
    signal: values.some((v) => v !== values[0]),
  };
}

/**
 * SSR's injector is rewarded per bug, from the solve rate of the bug's (unmasked) solver
 * attempts; the injector's samples are the run's bugs, so advantages compare the bugs, and every
 * attempt at a bug carries that bug's reward and advantage.
 */
function injectorAdvantages(
  recipe: Extract<Recipe, { shape: 'ssr-injector' }>,
  groups: ScoredGroup[],
  members: ScoredRollout[][],
  estimator: Estimator,
  bugs: ReadonlyArray<BugConsistency | undefined>,
): void {
  const bugValues: { index: number; value: number }[] = [];
  groups.forEach((g, i) => {
    const attempts = members[i]!.filter((s) => s.score.outcome === 'scored' && s.score.passed !== null);
    const solved = attempts.filter((s) => s.score.passed).length;
    const reward = injectorGroupReward(recipe, solved, attempts.length, bugs[i]);
    g.bugReward = typeof reward === 'string' ? { unscored: reward } : { value: reward.value, terms: reward.terms };
    if (typeof reward !== 'string') bugValues.push({ index: i, value: reward.value });
  });
  const { advantages, mean, std } = groupAdvantages(
    bugValues.map((b) => b.value),
    estimator,
  );
  bugValues.forEach((b, k) => {
    for (const s of members[b.index]!) {
      if (s.score.outcome !== 'scored') continue;
      s.advantage = advantages[k]!;
      const from = bugs[b.index]?.consistent === false ? 'the bug failed its consistency checks' : 'solve rate over its attempts';
      s.why = `ssr-injector: the bug's reward ${fmt(b.value)} (${from}); ${ESTIMATOR_FORMULA[estimator]} over the run's ${bugValues.length} bugs (mean ${fmt(mean)}, std ${fmt(std)})`;
    }
  });
}
