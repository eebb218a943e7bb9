import { z } from 'zod';
import { InputError } from '../errors';
import { ESTIMATORS } from './advantages';
import type { ExpectedTests, GradeOutcome } from './grading';
import { patchSimilarityReward } from './patchSimilarity';
import { maskTerm, term, type Mask, type Reward, type RewardTerm } from './rewardTerms';
import {
  DEEPSWE_COMPACT_FILTERED,
  FINISH_REASONS,
  SKYRL_MASKED,
  exactMapReward,
  forcedSubmissionReward,
  injectorReward,
  maskFor,
  maskedFinishReward,
  overlongStepsReward,
  resolveReward,
  solverReward,
  type FinishReason,
} from './shapes';
import type { TestStatusMap } from './testStatus';

/**
 * Reward recipes: named, versioned configurations of the reward shapes of shapes.ts, each with
 * where it comes from, which finish reasons it masks, and how masked rollouts enter a group's
 * advantages. Built in below; a person adds their own from a JSON or YAML file.
 */

const RECIPE_SHAPES = ['swe-bench', 'r2e', 'swe-rl', 'deepswe', 'swe-master', 'ssr-solver', 'ssr-injector', 'nebius', 'skyrl'] as const;
type RecipeShape = (typeof RECIPE_SHAPES)[number];

/** A broken container or harness, and test output nothing can be read from: no recipe learns from these. */
const INFRA: readonly FinishReason[] = ['infra_error', 'evaluation_error'];

const DEFAULT_MASKED: Record<RecipeShape, readonly FinishReason[]> = {
  'swe-bench': INFRA,
  r2e: INFRA,
  // No execution: the patch is scored whatever happened to the run.
  'swe-rl': [],
  deepswe: [...DEEPSWE_COMPACT_FILTERED, ...INFRA],
  'swe-master': INFRA,
  'ssr-solver': INFRA,
  'ssr-injector': INFRA,
  nebius: INFRA,
  skyrl: [...SKYRL_MASKED, ...INFRA],
};

const common = {
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'a recipe name is lower-case letters, digits, ".", "_" or "-"'),
  version: z.union([z.string().min(1), z.number()]).transform(String),
  description: z.string().default(''),
  /** Where the rule comes from: a paper, a repository. */
  source: z.string().min(1),
  /** Finish reasons whose rollouts give no gradient; the shape's own list when absent. */
  masked: z.array(z.enum(FINISH_REASONS)).optional(),
  /** `exclude`: masked rollouts count in neither the group's mean nor its std; `include`: their reward counts, their own loss is masked. */
  maskedInGroup: z.enum(['exclude', 'include']).default('exclude'),
  /** The estimator used when none is asked for. */
  advantage: z.enum(ESTIMATORS).default('grpo'),
};

const RecipeInputSchema = z
  .discriminatedUnion('shape', [
    z.strictObject({ ...common, shape: z.literal('swe-bench') }),
    z.strictObject({ ...common, shape: z.literal('r2e') }),
    z.strictObject({ ...common, shape: z.literal('swe-rl'), autojunk: z.boolean().default(false) }),
    z.strictObject({ ...common, shape: z.literal('deepswe') }),
    z.strictObject({ ...common, shape: z.literal('swe-master'), alpha: z.number().min(0).max(1).default(0.5) }),
    z.strictObject({ ...common, shape: z.literal('ssr-solver') }),
    z.strictObject({
      ...common,
      shape: z.literal('ssr-injector'),
      alpha: z.number().min(0).default(0.8),
      curve: z.enum(['linear', 'peaked']).default('linear'),
      inconsistent: z.number().default(-1),
    }),
    z.strictObject({
      ...common,
      shape: z.literal('nebius'),
      threshold: z.number().int().min(0),
      maxSteps: z.number().int().positive(),
      maxPenalty: z.number().min(0).default(1),
    }),
    z.strictObject({ ...common, shape: z.literal('skyrl') }),
  ])
  .superRefine((r, ctx) => {
    if (r.shape === 'nebius' && !(r.maxSteps > r.threshold))
      ctx.addIssue({ code: 'custom', path: ['maxSteps'], message: `maxSteps (${r.maxSteps}) must exceed threshold (${r.threshold})` });
  });

export const RecipeSchema = RecipeInputSchema.transform((r) => ({ ...r, masked: r.masked ?? DEFAULT_MASKED[r.shape] }));
export type Recipe = z.output<typeof RecipeSchema>;

/** The built-in recipes as written, before defaults: what a recipe file's `extends` starts from. */
export const BUILT_IN_INPUT: ReadonlyArray<z.input<typeof RecipeInputSchema>> = [
  {
    name: 'swe-bench',
    version: '1',
    shape: 'swe-bench',
    source: 'SWE-bench harness (Jimenez et al. 2024)',
    description: '1 when every FAIL_TO_PASS and PASS_TO_PASS test passes (FULL), else 0',
  },
  {
    name: 'r2e',
    version: '1',
    shape: 'r2e',
    source: 'R2E-Gym (Jain et al. 2025)',
    description: '1 only when every listed test passes: the parsed test map equals the expected map',
  },
  {
    name: 'swe-rl',
    version: '1',
    shape: 'swe-rl',
    source: 'SWE-RL (Wei et al. 2025, Meta)',
    description: 'difflib.SequenceMatcher similarity of the patch to the gold patch, -1 for a malformed patch; no execution',
  },
  {
    name: 'deepswe',
    version: '1',
    shape: 'deepswe',
    source: 'DeepSWE (Agentica and Together AI, 2025)',
    description: '0 on a timeout or any failing test; compact filtering masks max length, context overflow, timeouts and max steps',
  },
  {
    name: 'swe-master',
    version: '1',
    shape: 'swe-master',
    source: 'SWE-Master (2025)',
    description: 'binary; a run cut by the turn limit is force-submitted and rewarded alpha = 0.5 when its patch passes; container errors masked',
  },
  {
    name: 'ssr-solver',
    version: '1',
    shape: 'ssr-solver',
    source: 'Self-Play SWE-RL (arXiv 2512.18552)',
    description: 'the solver: 1 when every test of the original suite passes',
  },
  {
    name: 'ssr-injector',
    version: '1',
    shape: 'ssr-injector',
    source: 'Self-Play SWE-RL (arXiv 2512.18552)',
    description: "the injector, per bug: consistency and the solver's solve rate s; s = 0 or 1 gets -alpha, 0 < s < 1 gets 1 - (1 + alpha) s",
  },
  {
    name: 'nebius',
    version: '1',
    shape: 'nebius',
    threshold: 80,
    maxSteps: 100,
    source: 'SWE-rebench RL (Nebius, 2025)',
    description: 'sparse success plus a penalty growing linearly from threshold steps to maxSteps (defaults ours: set them to your step limit)',
  },
  {
    name: 'skyrl',
    version: '1',
    shape: 'skyrl',
    source: 'SkyRL-Agent (Berkeley Sky Computing Lab, 2025)',
    description: 'binary success; context exceeded, runtime and evaluation errors, max iterations, bad LLM responses, loops and command timeouts masked',
  },
];

export const BUILT_IN_RECIPES: readonly Recipe[] = BUILT_IN_INPUT.map((r) => RecipeSchema.parse(r));
export const RECIPE_NAMES: readonly string[] = BUILT_IN_RECIPES.map((r) => r.name);

export function builtInRecipe(name: string): Recipe | undefined {
  return BUILT_IN_RECIPES.find((r) => r.name === name);
}

/** Whether an SSR bug passed its consistency checks (bugConsistency.ts reads them), as the injector's reward reads it. */
export interface BugConsistency {
  consistent: boolean;
  /** The checks that failed, by name (empty when only true or false was given). */
  failed: string[];
}

/** What is known of one rollout, from a grading, a report or the rollout index. */
export interface RolloutEvidence {
  /** Whether its patch passed; null when nothing evaluated it. */
  resolved: boolean | null;
  /** The full grading, when a test output was graded against the instance's lists. */
  grading?: GradeOutcome;
  /** The lists graded against (R2E's expected map: every listed test passes). */
  expected?: ExpectedTests;
  finishReason?: FinishReason;
  steps?: number;
  /** The run hit the step limit without submitting: its last state's patch was force-submitted. */
  truncated?: boolean;
  patch?: string;
  gold?: string;
  /** The container or the harness broke (the run says nothing about the model). */
  infraError?: string;
  /** The evaluation produced nothing usable (infrastructure error: no tests recognised, no markers...). */
  evaluationError?: string;
  /** ssr-injector: the consistency checks of the bug this rollout attempted; absent when none are recorded. */
  bug?: BugConsistency;
}

type ScoreOutcome = 'scored' | 'masked' | 'unscored';

export interface RecipeScore {
  outcome: ScoreOutcome;
  /** The reward the terms give; kept on a masked rollout (shown beside its mask); null when unscored. */
  value: number | null;
  /** Whether it counts as a pass for pass@k: its tests passed (SWE-RL: the patch equals the gold one). */
  passed: boolean | null;
  terms: RewardTerm[];
  mask: Mask | null;
  /** What would be needed to score it. */
  unscored: string | null;
}

const unscored = (reason: string): RecipeScore => ({ outcome: 'unscored', value: null, passed: null, terms: [], mask: null, unscored: reason });
const NO_VERDICT = 'nothing evaluated it: no report, no recorded reward or resolution';

/** The finish reason the evidence ends with: a broken container or evaluation first, else the run's own. */
function finishOf(ev: RolloutEvidence): FinishReason | undefined {
  if (ev.infraError !== undefined) return 'infra_error';
  if (ev.evaluationError !== undefined || ev.grading?.kind === 'infra-failure') return 'evaluation_error';
  return ev.finishReason;
}

/** Scores one rollout by a recipe. The ssr-injector's reward is per bug: see injectorGroupReward. */
export function scoreRollout(recipe: Recipe, ev: RolloutEvidence): RecipeScore {
  const finish = finishOf(ev);
  const detail = ev.infraError ?? ev.evaluationError ?? (ev.grading?.kind === 'infra-failure' ? ev.grading.reason : undefined);
  const mask = maskFor(finish, recipe.masked, detail);
  const reward = shapeReward(recipe, ev, finish);
  if (typeof reward === 'string') return mask ? { outcome: 'masked', value: null, passed: null, terms: [], mask, unscored: null } : unscored(reward);
  const passed = recipe.shape === 'swe-rl' ? reward.value === 1 : (ev.resolved ?? (ev.grading?.kind === 'graded' ? ev.grading.resolved : null));
  const finalMask = mask ?? reward.masked ?? null;
  const terms = [...reward.terms];
  if (finalMask && !terms.some((t) => t.name.startsWith('masked')))
    terms.push(
      maskTerm(
        `masked: ${finalMask.reason}`,
        `${recipe.name}: ${finalMask.code ?? 'this outcome'} is masked (${recipe.masked.join(', ') || 'none listed'}), no gradient`,
      ),
    );
  return { outcome: finalMask ? 'masked' : 'scored', value: reward.value, passed, terms, mask: finalMask, unscored: null };
}

function verdict(ev: RolloutEvidence): boolean | null {
  if (ev.grading?.kind === 'graded') return ev.grading.resolved;
  return ev.resolved;
}

function statusesOf(ev: RolloutEvidence): TestStatusMap | undefined {
  return ev.grading?.kind === 'graded' ? ev.grading.statuses : undefined;
}

function binary(name: string, value: boolean, rule: string): Reward {
  return { value: value ? 1 : 0, terms: [term(name, value ? 1 : 0, rule)] };
}

/** The shape's reward, or why it cannot be computed. */
function shapeReward(recipe: Recipe, ev: RolloutEvidence, finish: FinishReason | undefined): Reward | string {
  const resolved = verdict(ev);
  const statuses = statusesOf(ev);
  switch (recipe.shape) {
    case 'swe-bench':
      if (ev.grading) return resolveReward(ev.grading);
      return resolved === null ? NO_VERDICT : binary('resolved', resolved, 'SWE-bench: 1 when every FAIL_TO_PASS and PASS_TO_PASS test passes (FULL), else 0');
    case 'r2e': {
      if (statuses && ev.expected) {
        const listed = [...(ev.expected.FAIL_TO_PASS ?? []), ...(ev.expected.PASS_TO_PASS ?? [])];
        const want = new Map(listed.map((id) => [id, 'PASSED' as const]));
        const got = new Map(listed.flatMap((id) => (statuses.has(id) ? [[id, statuses.get(id) === 'XFAIL' ? 'PASSED' : statuses.get(id)!] as const] : [])));
        return exactMapReward(want, got);
      }
      return resolved === null ? NO_VERDICT : binary('all listed tests pass', resolved, 'R2E-Gym: 1 only when the parsed test map equals the expected map');
    }
    case 'swe-rl':
      if (ev.gold === undefined) return 'no gold patch to compare with: give the task instances (their `patch`)';
      return patchSimilarityReward(ev.gold, ev.patch, { autojunk: recipe.autojunk });
    case 'deepswe': {
      if (resolved === null) return NO_VERDICT;
      const timedOut = finish === 'timeout' || finish === 'command_timeout';
      const value = resolved && !timedOut;
      return {
        value: value ? 1 : 0,
        terms: [
          term('timed out', timedOut ? 1 : 0, 'DeepSWE: a timeout scores 0'),
          term('success', value ? 1 : 0, 'DeepSWE: 1 when every test passes, 0 on any failing test'),
        ],
      };
    }
    case 'swe-master':
      if (resolved === null) return NO_VERDICT;
      return forcedSubmissionReward(
        { resolved, truncated: ev.truncated === true, ...(ev.infraError !== undefined ? { infraError: ev.infraError } : {}) },
        recipe.alpha,
      );
    case 'ssr-solver':
      if (statuses) return solverReward(statuses);
      return resolved === null ? NO_VERDICT : binary('solved', resolved, 'SSR solver: 1 if every test passes with the original tests, else 0');
    case 'ssr-injector': {
      // An inconsistent bug gets the lowest reward whatever its solver attempts did.
      if (ev.bug && !ev.bug.consistent) return injectorGroupReward(recipe, 0, 0, ev.bug) as Reward;
      if (resolved === null) return NO_VERDICT;
      const attempt = binary(
        'solver attempt solved',
        resolved,
        "SSR injector: one solver attempt at the bug; the injector's reward is the bug's (see its group)",
      );
      return ev.bug ? { value: attempt.value, terms: [consistencyTerm(ev.bug), ...attempt.terms] } : attempt;
    }
    case 'nebius':
      if (resolved === null) return NO_VERDICT;
      if (ev.steps === undefined) return 'the number of steps is not known';
      return overlongStepsReward({ resolved, steps: ev.steps }, { threshold: recipe.threshold, maxSteps: recipe.maxSteps, maxPenalty: recipe.maxPenalty });
    case 'skyrl':
      if (resolved === null) return NO_VERDICT;
      return maskedFinishReward({ resolved, finishReason: finish ?? 'submitted' }, recipe.masked);
  }
}

const SSR_CHECKS = 'SSR: all seven consistency checks pass';

function consistencyTerm(bug: BugConsistency): RewardTerm {
  return term('consistency', bug.consistent ? 1 : 0, bug.failed.length ? `${SSR_CHECKS}; failed: ${bug.failed.join(', ')}` : SSR_CHECKS);
}

/**
 * The SSR injector's reward of one bug from its solver attempts (masked attempts left out) and
 * its consistency checks; a bug whose checks are not recorded is taken as consistent.
 */
export function injectorGroupReward(
  recipe: Extract<Recipe, { shape: 'ssr-injector' }>,
  solved: number,
  attempts: number,
  bug?: BugConsistency,
): Reward | string {
  const consistent = bug?.consistent ?? true;
  if (consistent && attempts === 0) return 'no solver attempt was evaluated';
  const reward = injectorReward(consistent, solved, attempts, { alpha: recipe.alpha, shape: recipe.curve, inconsistent: recipe.inconsistent });
  return bug ? { ...reward, terms: reward.terms.map((t) => (t.name === 'consistency' ? consistencyTerm(bug) : t)) } : reward;
}
