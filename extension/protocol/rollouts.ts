// zod/mini, as every protocol module: the table's bundle carries these schemas.
import * as z from 'zod/mini';
import { notificationType, requestType } from './ipc';

/**
 * The rollouts table's messages. The host keeps the index; the webview states a query (sort,
 * filter, search) and asks for the rows of that query by range, so thousands of rollouts are
 * never posted at once.
 */

/** The most rows one range request may ask for. */
export const MAX_ROW_RANGE = 500;

/** The performance mark the table's page sets when its first rows are on screen, which a benchmark waits for (`bench/ui/rollouts.ts`). */
export const FIRST_ROWS_MARK = 'sweWorkbench.rollouts.firstRows';

export const ROLLOUT_COLUMNS = ['instance', 'attempt', 'format', 'steps', 'exit', 'resolved', 'reward', 'failure', 'tokens', 'cost', 'duration'] as const;
/** The columns a re-scored run adds (`swe-workbench tokens DIR --save`), named as the filter language's fields. */
export const MISMATCH_COLUMNS = ['maxdiff', 'outside', 'kl', 'drift'] as const;
/** The column a run with a branched recording adds (`swe-workbench branch`): its critical step. */
export const BRANCH_COLUMNS = ['critical'] as const;
const RolloutColumnSchema = z.enum([...ROLLOUT_COLUMNS, ...MISMATCH_COLUMNS, ...BRANCH_COLUMNS]);
export type RolloutColumn = z.infer<typeof RolloutColumnSchema>;

/** The advantage estimators of core/reward/advantages.ts. */
export const ESTIMATOR_NAMES = ['grpo', 'drgrpo', 'rloo'] as const;
const EstimatorSchema = z.enum(ESTIMATOR_NAMES);

/** A reward recipe picked in the table, with the estimator of its group advantages. */
const RecipeChoiceSchema = z.object({ name: z.string().check(z.minLength(1), z.maxLength(200)), estimator: EstimatorSchema });
export type RecipeChoice = z.infer<typeof RecipeChoiceSchema>;

const RecipeInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  shape: z.string(),
  source: z.string(),
  description: z.string(),
  estimator: EstimatorSchema,
  masked: z.array(z.string()),
});
export type RecipeInfo = z.infer<typeof RecipeInfoSchema>;

const RecipeCatalogSchema = z.object({
  recipes: z.array(RecipeInfoSchema),
  /** The user's recipe file (sweWorkbench.rewards.recipeFile); null when none is set. */
  file: z.nullable(z.string()),
  /** Why the user's recipes could not be read; null when they were (or none is set). */
  problem: z.nullable(z.string()),
});
type RecipeCatalog = z.infer<typeof RecipeCatalogSchema>;

const RolloutQuerySchema = z.object({
  sort: z.nullable(z.object({ column: RolloutColumnSchema, descending: z.boolean() })),
  /** The recipe that scores the rows; absent or null for none. */
  recipe: z.optional(z.nullable(RecipeChoiceSchema)),
  /** An expression of the rollouts filter language; '' for none. */
  filter: z.string().check(z.maxLength(2000)),
  /** Full text over thoughts, actions and observations; '' for none. */
  search: z.string().check(z.maxLength(500)),
});
export type RolloutQuery = z.infer<typeof RolloutQuerySchema>;

const ROLLOUT_STATUSES = ['resolved', 'failed', 'infra', 'unknown'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

const RolloutRowSchema = z.object({
  id: z.string(),
  instance: z.string(),
  attempt: z.int(),
  format: z.string(),
  steps: z.int(),
  exit: z.nullable(z.string()),
  resolved: z.nullable(z.boolean()),
  reward: z.nullable(z.number()),
  failure: z.string(),
  status: z.enum(ROLLOUT_STATUSES),
  evidence: z.string(),
  /** Failing FAIL_TO_PASS / PASS_TO_PASS tests from the evaluation report. */
  tests: z.optional(z.array(z.string())),
  /** The report that evaluated it, relative to the folder. */
  evaluation: z.optional(z.string()),
  tokens: z.nullable(z.number()),
  cost: z.nullable(z.number()),
  duration: z.nullable(z.number()),
  /** The core's line when this rollout's patch, identical to another of its group's, was graded the other way there. */
  gradingConflict: z.optional(z.string()),
  /** The critical step of the recording's branch run in words ("step 7 (V 0.75 -> 0.12)", "none"); null when it was not branched. */
  critical: z.nullable(z.string()),
  /** The run's re-score of this rollout; absent when it was not re-scored (its columns are unknown). */
  mismatch: z.optional(
    z.object({
      steps: z.int(),
      errors: z.int(),
      tokens: z.int(),
      maxAbsDiff: z.nullable(z.number()),
      outside: z.int(),
      kl: z.nullable(z.number()),
      /** 0-based agent step and prompt position of the first retokenization drift; null when none was found. */
      firstDrift: z.nullable(z.object({ step: z.int(), position: z.int() })),
      driftUnknown: z.int(),
    }),
  ),
  /** The recipe's score, when the query names one. */
  score: z.optional(
    z.object({
      outcome: z.enum(['scored', 'masked', 'unscored']),
      value: z.nullable(z.number()),
      /** The mask's reason ("context window exceeded"), or what is missing to score it. */
      mask: z.nullable(z.string()),
      advantage: z.nullable(z.number()),
      why: z.string(),
    }),
  ),
});
export type RolloutRow = z.infer<typeof RolloutRowSchema>;

const Count = z.int().check(z.nonnegative());

const GroupStatisticsSchema = z.object({
  rollouts: Count,
  instances: Count,
  evaluated: Count,
  resolved: Count,
  /** Over every evaluated rollout; null when none was evaluated. */
  solveRate: z.nullable(z.number()),
  /** Mean pass@k over the instances with at least k evaluated rollouts, for k = 1..n. */
  passAtK: z.array(z.object({ k: z.int().check(z.positive()), value: z.number(), instances: z.int().check(z.positive()) })),
  mixed: Count,
});
type GroupStatistics = z.infer<typeof GroupStatisticsSchema>;

/**
 * A recipe's totals over the rollouts the query shows, and the groups they belong to; the
 * advantages behind them are the whole run's (a GRPO group is every rollout of an instance,
 * whatever the filter).
 */
const RecipeSummarySchema = z.object({
  name: z.string(),
  version: z.string(),
  source: z.string(),
  formula: z.string(),
  /** The rollouts counted (the query's), of the run's. */
  rollouts: Count,
  runRollouts: Count,
  scored: Count,
  masked: Count,
  unscored: Count,
  groups: Count,
  withSignal: Count,
  maskReasons: z.record(z.string(), Count),
});

export type RecipeSummary = z.infer<typeof RecipeSummarySchema>;

const QueryResultSchema = z.object({
  /** Rollouts that match the query. */
  total: Count,
  recipe: z.optional(RecipeSummarySchema),
  /** Rollouts in the index. */
  indexed: Count,
  statistics: GroupStatisticsSchema,
  /** Bumped on every re-index; rows asked for with an older one are fetched again. */
  version: Count,
  /** Some rollout of the run was re-scored: the table shows the mismatch columns. */
  rescored: z.optional(z.boolean()),
  /** Some rollout of the run was branched: the table shows the critical step's column. */
  branched: z.optional(z.boolean()),
  /** The groups of the query's rows where an identical patch was graded both ways, a line per patch (the core's words). */
  gradingConflicts: z.optional(z.array(z.object({ instance: z.string(), line: z.string() }))),
});
export type QueryResult = z.infer<typeof QueryResultSchema>;

const RowRangeSchema = z.object({ query: RolloutQuerySchema, start: Count, end: Count }).check(
  z.refine((r) => r.end >= r.start, { message: 'end must not be before start' }),
  z.refine((r) => r.end - r.start <= MAX_ROW_RANGE, { message: `a range holds at most ${MAX_ROW_RANGE} rows` }),
);

const TableHeaderSchema = z.object({
  /** The indexed folder; null before one is opened. */
  folder: z.nullable(z.string()),
  indexErrors: Count,
  /** Why the table is not showing what it showed before a reload (its folder is gone). */
  problem: z.nullable(z.string()),
});

export const rolloutsHeader = requestType('rollouts/header', z.object({}), TableHeaderSchema);
export const rolloutsQuery = requestType('rollouts/query', RolloutQuerySchema, QueryResultSchema);
export const rolloutsRows = requestType('rollouts/rows', RowRangeSchema, z.object({ rows: z.array(RolloutRowSchema), version: Count }));
const RolloutId = z.object({ id: z.string().check(z.minLength(1)) });
export const rolloutsOpen = requestType('rollouts/open', RolloutId, z.object({ step: Count }));
/**
 * Opens the rollout's reward breakdown, scored with the table's recipe (none: SWE-bench's binary
 * resolve); shown is false when the host said why in a message instead.
 */
export const rolloutsShowReward = requestType(
  'rollouts/showReward',
  z.object({ id: z.string().check(z.minLength(1)), recipe: z.optional(z.string().check(z.maxLength(200))) }),
  z.object({ shown: z.boolean() }),
);
/** Opens the rollout's submission (beside the gold patch when known). */
export const rolloutsShowPatch = requestType('rollouts/showPatch', RolloutId, z.object({ shown: z.boolean() }));
/** Opens every rollout of the rollout's instance (its group) in the compare view. */
export const rolloutsCompareGroup = requestType('rollouts/compareGroup', RolloutId, z.object({ shown: z.boolean() }));
/** Where a rollout is in a query's rows, so a restored selection can be scrolled to. */
export const rolloutsLocate = requestType('rollouts/locate', z.object({ query: RolloutQuerySchema, id: z.string() }), z.object({ index: z.nullable(Count) }));

const RewardTermSchema = z.object({ name: z.string(), value: z.nullable(z.number()), rule: z.string() });

/** A GRPO group under a recipe: its statistics, and each rollout's advantage and why. */
const GroupDetailsSchema = z.object({
  instance: z.string(),
  formula: z.string(),
  included: Count,
  masked: Count,
  unscored: Count,
  mean: z.nullable(z.number()),
  std: z.nullable(z.number()),
  passAtK: z.array(z.number()),
  mixed: z.boolean(),
  signal: z.boolean(),
  /** The SSR injector's reward of the bug, when the recipe rewards bugs. */
  bugReward: z.nullable(z.number()),
  rollouts: z.array(
    z.object({
      id: z.string(),
      attempt: z.int(),
      outcome: z.enum(['scored', 'masked', 'unscored']),
      value: z.nullable(z.number()),
      mask: z.nullable(z.string()),
      advantage: z.nullable(z.number()),
      why: z.string(),
      terms: z.array(RewardTermSchema),
    }),
  ),
});
export type GroupDetails = z.infer<typeof GroupDetailsSchema>;

/** Export the query's rows as SFT data; `keep` holds the ready-made filters (mixed,resolved,max-turns=N...). */
export const ExportRequestSchema = z.object({
  query: RolloutQuerySchema,
  keep: z.string().check(z.maxLength(500)),
  /** Absolute, or relative to the first workspace folder. */
  file: z.string().check(z.minLength(1), z.maxLength(4096)),
});
const ExportResultSchema = z.object({
  file: z.string(),
  selected: Count,
  written: Count,
  skipped: z.record(z.string(), Count),
  /** Rollouts that read git history (flagged in their lines). */
  gitHistory: Count,
  bytes: Count,
  /** True when the export was cancelled: nothing was written and the file is as it was. */
  cancelled: z.boolean(),
});
export type ExportResult = z.infer<typeof ExportResultSchema>;
export const rolloutsExport = requestType('rollouts/export', ExportRequestSchema, ExportResultSchema);
export const rolloutsExportCancel = requestType('rollouts/exportCancel', z.object({}), z.object({ cancelled: z.boolean() }));
/** Host -> webview: how far the running export is. */
export const rolloutsExportProgress = notificationType('rollouts/exportProgress', z.object({ done: Count, total: Count, written: Count }));

export const rolloutsRecipes = requestType('rollouts/recipes', z.object({}), RecipeCatalogSchema);
export const rolloutsGroup = requestType('rollouts/group', z.object({ recipe: RecipeChoiceSchema, instance: z.string() }), GroupDetailsSchema);

/** Host -> webview: the index changed (a re-index while the run writes, or another folder). */
export const rolloutsChanged = notificationType('rollouts/changed', z.object({ version: Count, folder: z.nullable(z.string()) }));

/** What the webview persists with setState: UI state only, never rows. */
export const RolloutsUiStateSchema = z.object({
  query: RolloutQuerySchema,
  scrollTop: z.number().check(z.nonnegative()),
  /** The folder shown, so a reload brings the table back on it. */
  folder: z.optional(z.string()),
  /** The selected rollout's id. */
  selected: z.optional(z.string()),
  /** What the filter and search boxes hold, applied or not: a page made again shows every key typed. */
  typed: z.optional(z.object({ filter: z.string(), search: z.string() })),
});
export type RolloutsUiState = z.infer<typeof RolloutsUiStateSchema>;
