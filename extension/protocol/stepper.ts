import { z } from 'zod';
import { notificationType, requestType } from './ipc';

/**
 * The trajectory stepper's messages. The host keeps the trajectory; the webview asks for
 * step summaries and details by range so that a large file is never posted whole.
 */

/** The most steps one range request may ask for. */
export const MAX_STEP_RANGE = 500;

export const StepRangeSchema = z
  .object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() })
  .refine((r) => r.end >= r.start, { message: 'end must not be before start' })
  .refine((r) => r.end - r.start <= MAX_STEP_RANGE, { message: `a range holds at most ${MAX_STEP_RANGE} steps` });
export type StepRange = z.infer<typeof StepRangeSchema>;

export const TrajectoryHeaderSchema = z.object({
  fileName: z.string(),
  format: z.string(),
  stepCount: z.number().int().nonnegative(),
  instanceId: z.string().optional(),
  model: z.string().optional(),
  exitStatus: z.string().optional(),
  resolved: z.boolean().optional(),
  reward: z.number().optional(),
  tools: z.array(z.string()),
});
export type TrajectoryHeader = z.infer<typeof TrajectoryHeaderSchema>;

export const StepSummarySchema = z.object({
  index: z.number().int().nonnegative(),
  tool: z.string().nullable(),
  /** The action's first line, shortened, for the timeline. */
  label: z.string(),
  error: z.boolean(),
  diverged: z.boolean(),
  flags: z.array(z.string()),
});
export type StepSummary = z.infer<typeof StepSummarySchema>;

export const StepActionViewSchema = z.object({
  raw: z.string(),
  tool: z.string().nullable(),
  args: z.record(z.string(), z.unknown()),
});

export const StepDetailSchema = z.object({
  index: z.number().int().nonnegative(),
  thought: z.string(),
  action: StepActionViewSchema,
  observation: z.string(),
  calls: z.array(z.object({ action: StepActionViewSchema, observation: z.string() })),
  executionTime: z.number().optional(),
  exitCode: z.number().optional(),
  tokens: z.object({ prompt: z.number().optional(), completion: z.number().optional(), total: z.number().optional() }).optional(),
  logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })),
  diff: z.string().optional(),
  openFile: z.string().nullable().optional(),
  workingDir: z.string().optional(),
  formatError: z.string().optional(),
  flags: z.array(z.string()),
  hasSource: z.boolean(),
});
export type StepDetail = z.infer<typeof StepDetailSchema>;

export const SearchParamsSchema = z.object({ query: z.string().min(1), caseSensitive: z.boolean() });

export const trajectoryOpen = requestType('trajectory/open', z.object({}), TrajectoryHeaderSchema);
export const stepsSummaries = requestType('steps/summaries', StepRangeSchema, z.object({ summaries: z.array(StepSummarySchema) }));
export const stepsDetails = requestType('steps/details', StepRangeSchema, z.object({ steps: z.array(StepDetailSchema) }));
export const stepsSearch = requestType('steps/search', SearchParamsSchema, z.object({ indices: z.array(z.number().int().nonnegative()) }));
export const stepsOpenRaw = requestType('steps/openRaw', z.object({ index: z.number().int().nonnegative() }), z.object({ opened: z.boolean() }));

/** Host -> webview: select a step (the palette's "Go to Step"). */
export const stepperReveal = notificationType('stepper/reveal', z.object({ index: z.number().int().nonnegative() }));

/** What the webview persists with setState: UI state only, never trajectory data. */
export const StepperUiStateSchema = z.object({
  selected: z.number().int().nonnegative(),
  tool: z.string().nullable(),
  errorsOnly: z.boolean(),
  query: z.string(),
});
export type StepperUiState = z.infer<typeof StepperUiStateSchema>;
