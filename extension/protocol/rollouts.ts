import { z } from 'zod';
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
  sort: z.object({ column: RolloutColumnSchema, descending: z.boolean() }).nullable(),
  /** An expression of the rollouts filter language; '' for none. */
  filter: z.string().max(2000),
  /** Full text over thoughts, actions and observations; '' for none. */
  search: z.string().max(500),
});
export type RolloutQuery = z.infer<typeof RolloutQuerySchema>;

export const ROLLOUT_STATUSES = ['resolved', 'failed', 'infra', 'unknown'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

export const RolloutRowSchema = z.object({
  id: z.string(),
  instance: z.string(),
  attempt: z.number().int(),
  format: z.string(),
  steps: z.number().int(),
  exit: z.string().nullable(),
  resolved: z.boolean().nullable(),
  reward: z.number().nullable(),
  failure: z.string(),
  status: z.enum(ROLLOUT_STATUSES),
  evidence: z.string(),
  tokens: z.number().nullable(),
  cost: z.number().nullable(),
  duration: z.number().nullable(),
});
export type RolloutRow = z.infer<typeof RolloutRowSchema>;

export const GroupStatisticsSchema = z.object({
  rollouts: z.number().int().nonnegative(),
  instances: z.number().int().nonnegative(),
  evaluated: z.number().int().nonnegative(),
  resolved: z.number().int().nonnegative(),
  /** Over every evaluated rollout; null when none was evaluated. */
  solveRate: z.number().nullable(),
  /** Mean pass@k over the instances with at least k evaluated rollouts, for k = 1..n. */
  passAtK: z.array(z.object({ k: z.number().int().positive(), value: z.number(), instances: z.number().int().positive() })),
  mixed: z.number().int().nonnegative(),
});
export type GroupStatistics = z.infer<typeof GroupStatisticsSchema>;

export const QueryResultSchema = z.object({
  /** Rollouts that match the query. */
  total: z.number().int().nonnegative(),
  /** Rollouts in the index. */
  indexed: z.number().int().nonnegative(),
  statistics: GroupStatisticsSchema,
  /** Bumped on every re-index; rows asked for with an older one are fetched again. */
  version: z.number().int().nonnegative(),
});
export type QueryResult = z.infer<typeof QueryResultSchema>;

export const RowRangeSchema = z
  .object({ query: RolloutQuerySchema, start: z.number().int().nonnegative(), end: z.number().int().nonnegative() })
  .refine((r) => r.end >= r.start, { message: 'end must not be before start' })
  .refine((r) => r.end - r.start <= MAX_ROW_RANGE, { message: `a range holds at most ${MAX_ROW_RANGE} rows` });

export const TableHeaderSchema = z.object({
  /** The indexed folder; null before one is opened. */
  folder: z.string().nullable(),
  indexErrors: z.number().int().nonnegative(),
});

export const rolloutsHeader = requestType('rollouts/header', z.object({}), TableHeaderSchema);
export const rolloutsQuery = requestType('rollouts/query', RolloutQuerySchema, QueryResultSchema);
export const rolloutsRows = requestType('rollouts/rows', RowRangeSchema, z.object({ rows: z.array(RolloutRowSchema), version: z.number().int().nonnegative() }));
export const rolloutsOpen = requestType('rollouts/open', z.object({ id: z.string().min(1) }), z.object({ step: z.number().int().nonnegative() }));

/** Host -> webview: the index changed (a re-index while the run writes, or another folder). */
export const rolloutsChanged = notificationType('rollouts/changed', z.object({ version: z.number().int().nonnegative(), folder: z.string().nullable() }));

/** What the webview persists with setState: UI state only, never rows. */
export const RolloutsUiStateSchema = z.object({
  query: RolloutQuerySchema,
  scrollTop: z.number().nonnegative(),
});
export type RolloutsUiState = z.infer<typeof RolloutsUiStateSchema>;
