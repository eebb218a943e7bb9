import { z } from 'zod';
import { formatNames } from './formatFacts';

/**
 * The canonical trajectory: what every importer produces, every view shows, and every session
 * records. One step is one agent action (or one message's set of parallel tool calls) and the
 * observation it got.
 */

/** A registered trajectory format's name (`formatRegistry.ts`: the generic ones and those the installed families contribute). */
export const TrajectoryFormatSchema = z.string().check((ctx) => {
  const names = formatNames();
  if (!names.includes(ctx.value)) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `Invalid option: expected one of ${names.map((n) => JSON.stringify(n)).join('|')}` });
  }
});
export type TrajectoryFormat = string;

const TaskSchema = z.object({
  instanceId: z.string().optional(),
  repo: z.string().optional(),
  baseCommit: z.string().optional(),
  image: z.string().optional(),
  /** Where the repository lives inside the container, e.g. /testbed. */
  repoPath: z.string().optional(),
  problemStatement: z.string().optional(),
});
export type Task = z.infer<typeof TaskSchema>;

const ActionSchema = z.object({
  /** The action exactly as the model wrote it (command text, XML call, or tool-call JSON). */
  raw: z.string(),
  /** The parsed tool name (`open`, `str_replace_editor`, `bash`, `run`...); null when unparsed. */
  tool: z.string().nullable(),
  args: z.record(z.string(), z.unknown()),
  toolCallId: z.string().optional(),
});
export type Action = z.infer<typeof ActionSchema>;

const TokenLogprobSchema = z.object({
  token: z.string(),
  logprob: z.number(),
  top: z.array(z.object({ token: z.string(), logprob: z.number() })).optional(),
});
export type TokenLogprob = z.infer<typeof TokenLogprobSchema>;

const TokenUsageSchema = z.object({
  prompt: z.number().optional(),
  completion: z.number().optional(),
  total: z.number().optional(),
  /** What the call cost in US dollars, when the recording says (ATIF's per-step `cost_usd`). */
  costUsd: z.number().optional(),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

const StepStateSchema = z.object({
  openFile: z.string().nullable().optional(),
  workingDir: z.string().optional(),
  diff: z.string().optional(),
});
export type StepState = z.infer<typeof StepStateSchema>;

/** Where a step came from in its source file, so the original record stays one click away. */
const SourceRefSchema = z.object({
  /** JSON pointers (RFC 6901) into the parsed file, e.g. `/trajectory/3`, `/history/7`. */
  pointers: z.array(z.string()),
  /** 1-based line for JSONL sources. */
  line: z.number().optional(),
});
export type SourceRef = z.infer<typeof SourceRefSchema>;

const ToolCallResultSchema = z.object({ action: ActionSchema, observation: z.string() });
export type ToolCallResult = z.infer<typeof ToolCallResultSchema>;

const StepSchema = z.object({
  index: z.number().int().nonnegative(),
  thought: z.string(),
  /** A reasoning model's separate reasoning text (vLLM's `reasoning_content`); not sent back to it. */
  reasoning: z.string().optional(),
  /** The step's action; for a message with several tool calls, the first of `calls`. */
  action: ActionSchema,
  /** The observation; for several tool calls, their results joined in call order. */
  observation: z.string(),
  /** Present when one message made several tool calls: each paired with its result by id. */
  calls: z.array(ToolCallResultSchema).optional(),
  /** Seconds spent executing the action. */
  executionTime: z.number().optional(),
  exitCode: z.number().optional(),
  timestamp: z.string().optional(),
  tokens: TokenUsageSchema.optional(),
  logprobs: z.array(TokenLogprobSchema).optional(),
  /** Token ids as the engine saw them (ATIF v1.3+, rLLM, SkyRL, our live runs): the prompt's and the completion's. */
  tokenIds: z.object({ prompt: z.array(z.number().int()).optional(), completion: z.array(z.number().int()).optional() }).optional(),
  /** How many model calls the step stands for, when the recording says (ATIF v1.7's `llm_call_count`): 0 is a step no model made, more than 1 a step whose tokens add up several calls. */
  llmCalls: z.number().int().nonnegative().optional(),
  /** Sampling parameters the action was drawn with (temperature, top_p, top_k, reasoning_effort...). */
  sampling: z.record(z.string(), z.unknown()).optional(),
  state: StepStateSchema.optional(),
  /** Why the action could not be parsed; the observation then holds the scaffold's message. */
  formatError: z.string().optional(),
  /** The trajectories the step delegated to, by the names that open them (`LoadOptions.subagent`: ATIF's embedded `trajectory_id` or `trajectory_path`). */
  subagents: z.array(z.string()).optional(),
  /** Free-form marks from the scaffold (e.g. `lint-rejected`, `timeout`). */
  flags: z.array(z.string()).optional(),
  source: SourceRefSchema.optional(),
});
export type Step = z.infer<typeof StepSchema>;

const ModelStatsSchema = z.object({
  instanceCost: z.number().optional(),
  tokensSent: z.number().optional(),
  tokensReceived: z.number().optional(),
  apiCalls: z.number().optional(),
});
export type ModelStats = z.infer<typeof ModelStatsSchema>;

const OutcomeSchema = z.object({
  exitStatus: z.string().optional(),
  submission: z.string().optional(),
  reward: z.number().optional(),
  resolved: z.boolean().optional(),
  modelStats: ModelStatsSchema.optional(),
  testOutput: z.string().optional(),
  error: z.string().optional(),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

const TrajectoryMetaSchema = z.object({
  /** Version of the source format or scaffold (e.g. `1.0.1`, `mini-swe-agent-1.1`). */
  formatVersion: z.string().optional(),
  model: z.string().optional(),
  /** SWE-agent tool bundles, e.g. `tools/windowed`, `tools/edit_anthropic`. */
  toolBundles: z.array(z.string()).optional(),
  /** How actions were written: `thought_action`, `xml_function_calling`, `function_calling`, `bash_block`... */
  parseFunction: z.string().optional(),
  /** Whether the recording ran commands under a pseudo-terminal (SWE-agent 1.x does). */
  pty: z.boolean().optional(),
  /** SWE-agent's `agent.tools.env_variables` as recorded (WINDOW, OVERLAP...): the tools' environment, which a replay sets the same. */
  toolEnvVariables: z.record(z.string(), z.unknown()).optional(),
  /** SWE-agent's `agent.tools.registry_variables` as recorded (USE_FILEMAP, SUBMIT_REVIEW_MESSAGES...). */
  toolRegistryVariables: z.record(z.string(), z.unknown()).optional(),
  /** The scaffold the trajectory was made with, as `NAME@VERSION` (written by our own runs; see core/scaffolds). */
  scaffold: z.string().optional(),
  /** The scaffold's own settings as recorded (mini-swe-agent's `info.config`: templates, environment). */
  scaffoldConfig: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().optional(),
  /** The first user message (task instructions) as the agent saw it. */
  instructions: z.string().optional(),
  /**
   * Messages before the agent's first turn besides the system prompt and the instructions: context
   * the run added (OpenHands' "Retrieving content for...", "Added workspace context"), in order. Not steps.
   */
  context: z.array(z.object({ source: z.enum(['system', 'user']), text: z.string(), timestamp: z.string().optional() })).optional(),
  /**
   * When each step's `state` was taken: after its action (the default: SWE-agent 1.x, sessions)
   * or before it, as the model saw it (SWE-agent 0.x, whose state is a JSON string).
   */
  stateTiming: z.enum(['before-action', 'after-action']).optional(),
  /** Trajectory this one was forked from, and the index of the last step taken from it. */
  parent: z.object({ id: z.string(), forkStep: z.number().int() }).optional(),
  /**
   * The other branches of a recording kept as a tree (OpenHands V1's conversations; the steps
   * are the branch in use, or the one `LoadOptions.branch` opened): each by its last event's id, the steps it shares with this branch
   * from the start, and its own step count.
   */
  forks: z
    .array(
      z.object({
        id: z.string(),
        sharedSteps: z.number().int().nonnegative(),
        steps: z.number().int().nonnegative(),
        /** The branch the recording has in use (OpenHands V1's `leaf_event_id`), listed here when another was opened (`LoadOptions.branch`). */
        inUse: z.boolean().optional(),
      }),
    )
    .optional(),
  id: z.string().optional(),
  createdAt: z.string().optional(),
  /** The files a run split over was read from, in order, when it was (ATIF's continuation files); steps from the second on carry their segment's mark. */
  segments: z.array(z.string()).optional(),
  /** What the reader could not fully understand but read anyway (a newer minor version of the format), said once where the file is shown. */
  warnings: z.array(z.string()).optional(),
  /**
   * The source file as read, for a format that can hold more than this model does (ATIF: other
   * producers' fields, a newer version's): written back as it was when the trajectory is written
   * in that format again unchanged, so nothing is lost.
   */
  kept: z.object({ format: z.string(), document: z.unknown() }).optional(),
});
export type TrajectoryMeta = z.infer<typeof TrajectoryMetaSchema>;

export const TrajectorySchema = z.object({
  format: TrajectoryFormatSchema,
  task: TaskSchema,
  steps: z.array(StepSchema),
  outcome: OutcomeSchema,
  meta: TrajectoryMetaSchema,
});
export type Trajectory = z.infer<typeof TrajectorySchema>;
