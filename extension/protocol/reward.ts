// zod/mini: the reward view's bundle carries these schemas.
import * as z from 'zod/mini';
import { requestType } from './ipc';

/**
 * The reward view's messages: the host grades (core/reward) and sends the breakdown; the
 * webview draws it and asks the host to open the test output at a test's line.
 */

const RewardTermSchema = z.object({ name: z.string(), value: z.nullable(z.number()), rule: z.string() });

const GradedTestSchema = z.object({
  id: z.string(),
  passed: z.boolean(),
  /** 1-based line of the test in the test output; null when the output does not name it. */
  line: z.nullable(z.int().check(z.positive())),
});
export type GradedTest = z.infer<typeof GradedTestSchema>;

const TestListSchema = z.object({ name: z.string(), tests: z.array(GradedTestSchema) });

/**
 * What is graded, by named field: a test output with the instance or report.json naming its
 * tests, a report alone (an instance's, or a run's with `instanceId`), or a rollout's
 * trajectory (a JSONL `record`, 0-based) with whatever evaluation of it exists.
 */
const RewardSourcesSchema = z.object({
  testOutput: z.optional(z.string()),
  instance: z.optional(z.string()),
  instanceId: z.optional(z.string()),
  report: z.optional(z.string()),
  trajectory: z.optional(z.string()),
  record: z.optional(z.int().check(z.nonnegative())),
  title: z.optional(z.string()),
  /**
   * How the rollout's run ended, as the rollout index knows it (core/rollouts/recipeRun.ts
   * `runEvidence`): a rollout opened from the table is masked for the reason the table masks it.
   */
  run: z.optional(
    z.object({
      finishReason: z.optional(z.string()),
      steps: z.optional(z.int().check(z.nonnegative())),
      truncated: z.optional(z.boolean()),
      infraError: z.optional(z.string()),
      evaluationError: z.optional(z.string()),
    }),
  ),
  /** The reward recipe to score with; absent for SWE-bench's binary resolve. */
  recipe: z.optional(z.string().check(z.maxLength(200))),
});
export type RewardSources = z.infer<typeof RewardSourcesSchema>;

const RewardBreakdownSchema = z.object({
  title: z.string(),
  /** The files graded, shown under the title. */
  origin: z.string(),
  resolution: z.nullable(z.enum(['FULL', 'PARTIAL', 'NO'])),
  /** null when nothing graded or recorded a reward. */
  value: z.nullable(z.number()),
  /** Why the reward is left out of the loss (infrastructure failure), if it is. */
  masked: z.nullable(z.string()),
  terms: z.array(RewardTermSchema),
  lists: z.array(TestListSchema),
  /** How many tests the output holds; null when graded from a report alone. */
  testsFound: z.nullable(z.int()),
  /** The grading compared with a harness report.json, when one was given. */
  report: z.nullable(z.object({ file: z.string(), resolved: z.boolean(), agrees: z.boolean(), detail: z.string() })),
  hasOutput: z.boolean(),
  /** What could not be graded and which file would have told, one sentence each. */
  missing: z.array(z.string()),
  /** What was graded: the view keeps it to come back after a reload. */
  sources: RewardSourcesSchema,
  /** The recipes the picker offers. */
  recipes: z.array(z.object({ name: z.string(), version: z.string(), source: z.string(), description: z.string() })),
  /** The recipe the value, mask and terms come from; null for SWE-bench's binary resolve. */
  recipe: z.nullable(
    z.object({ name: z.string(), version: z.string(), source: z.string(), description: z.string(), outcome: z.enum(['scored', 'masked', 'unscored']) }),
  ),
});
export type RewardBreakdown = z.infer<typeof RewardBreakdownSchema>;

/** What the reward view persists with setState. */
export const RewardUiStateSchema = z.object({ sources: RewardSourcesSchema });

export const rewardLoad = requestType('reward/load', z.object({}), RewardBreakdownSchema);
/** Scores the same sources with another recipe (null: SWE-bench's binary resolve). */
export const rewardSetRecipe = requestType('reward/setRecipe', z.object({ recipe: z.nullable(z.string().check(z.maxLength(200))) }), RewardBreakdownSchema);

/** Opens the graded test output at a 1-based line. */
export const rewardOpenOutput = requestType('reward/openOutput', z.object({ line: z.int().check(z.positive()) }), z.object({ opened: z.boolean() }));
