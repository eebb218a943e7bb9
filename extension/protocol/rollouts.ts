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

export const ROLLOUT_COLUMNS = ['instance', 'attempt', 'format', 'steps', 'exit', 'resolved', 'reward', 'failure', 'tokens', 'cost', 'duration'] as const;
export const RolloutColumnSchema = z.enum(ROLLOUT_COLUMNS);
export type RolloutColumn = z.infer<typeof RolloutColumnSchema>;

export const RolloutQuerySchema = z.object({
  sort: z.nullable(z.object({ column: RolloutColumnSchema, descending: z.boolean() })),
  /** An expression of the rollouts filter language; '' for none. */
  filter: z.string().check(z.maxLength(2000)),
  /** Full text over thoughts, actions and observations; '' for none. */
  search: z.string().check(z.maxLength(500)),
});
export type RolloutQuery = z.infer<typeof RolloutQuerySchema>;

export const ROLLOUT_STATUSES = ['resolved', 'failed', 'infra', 'unknown'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

export const RolloutRowSchema = z.object({
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
});
export type RolloutRow = z.infer<typeof RolloutRowSchema>;

const Count = z.int().check(z.nonnegative());

export const GroupStatisticsSchema = z.object({
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
export type GroupStatistics = z.infer<typeof GroupStatisticsSchema>;

export const QueryResultSchema = z.object({
  /** Rollouts that match the query. */
  total: Count,
  /** Rollouts in the index. */
  indexed: Count,
  statistics: GroupStatisticsSchema,
  /** Bumped on every re-index; rows asked for with an older one are fetched again. */
  version: Count,
});
export type QueryResult = z.infer<typeof QueryResultSchema>;

export const RowRangeSchema = z.object({ query: RolloutQuerySchema, start: Count, end: Count }).check(
  z.refine((r) => r.end >= r.start, { message: 'end must not be before start' }),
  z.refine((r) => r.end - r.start <= MAX_ROW_RANGE, { message: `a range holds at most ${MAX_ROW_RANGE} rows` }),
);

export const TableHeaderSchema = z.object({
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
/** Opens the rollout's reward breakdown; shown is false when the host said why in a message instead. */
export const rolloutsShowReward = requestType('rollouts/showReward', RolloutId, z.object({ shown: z.boolean() }));
/** Opens the rollout's submission (beside the gold patch when known). */
export const rolloutsShowPatch = requestType('rollouts/showPatch', RolloutId, z.object({ shown: z.boolean() }));
/** Opens every rollout of the rollout's instance (its group) in the compare view. */
export const rolloutsCompareGroup = requestType('rollouts/compareGroup', RolloutId, z.object({ shown: z.boolean() }));
/** Where a rollout is in a query's rows, so a restored selection can be scrolled to. */
export const rolloutsLocate = requestType('rollouts/locate', z.object({ query: RolloutQuerySchema, id: z.string() }), z.object({ index: z.nullable(Count) }));

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
});
export type RolloutsUiState = z.infer<typeof RolloutsUiStateSchema>;
