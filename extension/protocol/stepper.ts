import * as z from 'zod/mini';
import { notificationType, ProtocolErrorSchema, requestType } from './ipc';

/**
 * The trajectory stepper's messages. The host keeps the trajectory; the webview asks for
 * step summaries and details by range so that a large file is never posted whole.
 */

/** The most steps one range request may ask for. */
export const MAX_STEP_RANGE = 500;
/** An observation longer than this many lines shows folded: its first lines, and a button that unfolds the rest. */
export const FOLDED_LINES = 40;

const StepIndex = z.int().check(z.nonnegative());

const StepRangeSchema = z.object({ start: StepIndex, end: StepIndex }).check(
  z.refine((r) => r.end >= r.start, { message: 'end must not be before start' }),
  z.refine((r) => r.end - r.start <= MAX_STEP_RANGE, { message: `a range holds at most ${MAX_STEP_RANGE} steps` }),
);

/** How a run ended and what it used (core/trajectory/runFacts), in the stepper's header and the compare view. */
export const RUN_FACTS_SHAPE = {
  /** How the run ended, in words (`resolved (reward 1), exit: submitted`, `not graded, exit: submitted`). */
  outcome: z.string(),
  /** The run's totals; absent where the recording does not say (shown as unknown, never 0). */
  cost: z.optional(z.number()),
  tokensIn: z.optional(z.number()),
  tokensOut: z.optional(z.number()),
  calls: z.optional(z.number()),
  /** Seconds. */
  duration: z.optional(z.number()),
};

const TrajectoryHeaderSchema = z.object({
  fileName: z.string(),
  format: z.string(),
  stepCount: StepIndex,
  instanceId: z.optional(z.string()),
  model: z.optional(z.string()),
  exitStatus: z.optional(z.string()),
  resolved: z.optional(z.boolean()),
  reward: z.optional(z.number()),
  ...RUN_FACTS_SHAPE,
  problemStatement: z.optional(z.string()),
  /** When no problem statement is recorded apart: the first user message, the task as the agent was told it. */
  instructions: z.optional(z.string()),
  /** The run submitted a non-empty patch, which "Final Patch" opens in the patch view. */
  hasSubmission: z.boolean(),
  tools: z.array(z.string()),
  /** The scaffold the recording shows (`unknown (tools: ...)` when nothing decides it), and the evidence in words. */
  scaffold: z.optional(z.object({ label: z.string(), detail: z.string() })),
  /** What the reader could not fully understand, said once (a newer minor version of the format and the fields it does not know). */
  warnings: z.optional(z.array(z.string())),
  /** The files a run split over was read from, in order (ATIF continuation files). */
  segments: z.optional(z.array(z.string())),
  /** The other branches of a recording kept as a tree (OpenHands V1), which `trajectory/openBranch` opens: each by its last event's id. */
  forks: z.optional(z.array(z.object({ id: z.string(), sharedSteps: StepIndex, steps: StepIndex, inUse: z.optional(z.boolean()) }))),
});
export type TrajectoryHeader = z.infer<typeof TrajectoryHeaderSchema>;

const StepSummarySchema = z.object({
  index: StepIndex,
  tool: z.nullable(z.string()),
  /** What the action does (core/trajectory/actionKind), which picks its icon. */
  kind: z.string(),
  /** The action's first line, shortened, for the timeline. */
  label: z.string(),
  /** The action's first lines in full, for the row's hover. */
  fullLabel: z.string(),
  error: z.boolean(),
  /** Why the step counts as failed, one line each (`exit code 1`, `ValueError: bad`). */
  errors: z.array(z.string()),
  diverged: z.boolean(),
  flags: z.array(z.string()),
});
export type StepSummary = z.infer<typeof StepSummarySchema>;

const StepActionViewSchema = z.object({
  raw: z.string(),
  tool: z.nullable(z.string()),
  /** What the action does (core/trajectory/actionKind). */
  kind: z.string(),
  args: z.record(z.string(), z.unknown()),
});

/**
 * A step's tokens as the token view shows them (views/tokenView). A token's `text` is absent when
 * the recording keeps its id only (ATIF, SkyRL, rLLM's numeric logprobs): the page asks
 * `steps/detokenize` for it. `logprob` is absent where none was recorded; `entropy` (nats, over the
 * recorded top-k alternatives and the sampled token: a lower bound of the distribution's) only
 * where alternatives other than the sampled token were recorded.
 */
const TokenViewSchema = z.object({
  /** The prompt's length in tokens: its recorded ids, else the usage the recording reports; absent when unknown. */
  promptTokens: z.optional(z.number()),
  promptFrom: z.optional(z.enum(['ids', 'usage'])),
  /** The completion's length: its recorded tokens counted, else the usage the recording reports; absent when unknown. */
  completionTokens: z.optional(z.number()),
  completionFrom: z.optional(z.enum(['tokens', 'usage'])),
  completion: z.array(
    z.object({
      id: z.optional(z.number()),
      text: z.optional(z.string()),
      logprob: z.optional(z.number()),
      entropy: z.optional(z.number()),
      top: z.optional(z.array(z.object({ token: z.string(), logprob: z.number() }))),
    }),
  ),
  /** Why the step has no per-token data (no logprobs and no completion ids), for the page to say. */
  none: z.optional(z.string()),
});
export type TokenView = z.infer<typeof TokenViewSchema>;

const StepDetailSchema = z.object({
  index: StepIndex,
  thought: z.string(),
  action: StepActionViewSchema,
  observation: z.string(),
  /**
   * Present when `observation` is only the beginning of a long one (a boot, which the page shows
   * folded): the whole has `lines` lines and `chars` characters, and the page asks `steps/details`
   * for it when unfolded.
   */
  observationCut: z.optional(z.object({ lines: z.number(), chars: z.number() })),
  calls: z.array(z.object({ action: StepActionViewSchema, observation: z.string() })),
  executionTime: z.optional(z.number()),
  exitCode: z.optional(z.number()),
  tokens: z.optional(z.object({ prompt: z.optional(z.number()), completion: z.optional(z.number()), total: z.optional(z.number()) })),
  tokenView: TokenViewSchema,
  diff: z.optional(z.string()),
  /** The file open after the step (null: none; absent: not recorded). */
  openFile: z.optional(z.nullable(z.string())),
  workingDir: z.optional(z.string()),
  formatError: z.optional(z.string()),
  /** The trajectories the step delegated to, by the names that open them (`steps/openSubagent`). */
  subagents: z.optional(z.array(z.string())),
  /** How many model calls the step stands for, in words, when the recording says (ATIF's llm_call_count). */
  llmCalls: z.optional(z.string()),
  /** The reasoning effort the step was sampled with, when recorded. */
  reasoningEffort: z.optional(z.string()),
  flags: z.array(z.string()),
  /** Why the step counts as failed: what was found and, when read from the output, on which line. */
  errors: z.array(z.object({ kind: z.string(), detail: z.string(), line: z.optional(z.number()) })),
  hasSource: z.boolean(),
});
export type StepDetail = z.infer<typeof StepDetailSchema>;

const SearchParamsSchema = z.object({ query: z.string().check(z.minLength(1)), caseSensitive: z.boolean() });

export const trajectoryOpen = requestType('trajectory/open', z.object({}), TrajectoryHeaderSchema);
export const stepsSummaries = requestType('steps/summaries', StepRangeSchema, z.object({ summaries: z.array(StepSummarySchema) }));
export const stepsDetails = requestType('steps/details', StepRangeSchema, z.object({ steps: z.array(StepDetailSchema) }));
export const stepsSearch = requestType('steps/search', SearchParamsSchema, z.object({ indices: z.array(StepIndex) }));
export const stepsOpenRaw = requestType('steps/openRaw', z.object({ index: StepIndex }), z.object({ opened: z.boolean() }));
/** Opens, in a stepper of its own, another branch of a recording kept as a tree (an id from `TrajectoryHeader.forks`). */
export const trajectoryOpenBranch = requestType('trajectory/openBranch', z.object({ id: z.string().check(z.minLength(1)) }), z.object({ opened: z.boolean() }));
/** Opens, in a stepper of its own, a trajectory a step delegated to (a name from `StepDetail.subagents`). */
export const stepsOpenSubagent = requestType('steps/openSubagent', z.object({ name: z.string().check(z.minLength(1)) }), z.object({ opened: z.boolean() }));

/**
 * The text of completion token `position` of step `index`, which the file keeps as an id only: the
 * policy server's `/detokenize` (vLLM's), or why it cannot be decoded (no server, no id).
 */
export const stepsDetokenize = requestType('steps/detokenize', z.object({ index: StepIndex, position: StepIndex }), z.object({ text: z.string() }));

/** What a step's buttons do in the rest of the tool: the host runs the matching command on this trajectory and step. */
const STEP_ACTIONS = ['showDiff', 'fork', 'replayTo'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];
export const stepsAct = requestType('steps/act', z.object({ action: z.enum(STEP_ACTIONS), index: StepIndex }), z.object({ done: z.boolean() }));

/** Opens the run's submitted patch in the patch view; fails with the reason when the run submitted none. */
export const trajectoryShowFinalPatch = requestType('trajectory/showFinalPatch', z.object({}), z.object({ done: z.boolean() }));

/** Host -> webview: select a step (the palette's "Go to Step"). */
export const stepperReveal = notificationType('stepper/reveal', z.object({ index: StepIndex }));

/**
 * Host -> webview: the file grew (a running session's trajectory written again). `header` is the
 * file's new header and `summaries` its steps from one the page may already have: the page adds
 * those it lacks to the timeline, keeping its selection, filters and scroll, and moves to the new
 * last step only when it showed the last one.
 */
const StepperAppendedSchema = z.object({ header: TrajectoryHeaderSchema, summaries: z.array(StepSummarySchema) });
export type StepperAppended = z.infer<typeof StepperAppendedSchema>;
export const stepperAppended = notificationType('stepper/appended', StepperAppendedSchema);

/**
 * A branch run's values on the timeline (core/branch): per branched state, V and its 95% interval
 * as text ('unknown' when every continuation was masked, never 0), the samples it rests on and the
 * masked ones left out; `afterStep` 0 is the task's start, t the state after step t (the row of step t).
 */
const BranchValueCellSchema = z.object({
  afterStep: StepIndex,
  value: z.string(),
  interval: z.string(),
  n: StepIndex,
  masked: StepIndex,
  critical: z.boolean(),
  /** The hover: V, its interval, n and each masked reason. */
  title: z.string(),
});
const BranchStripSchema = z.object({
  /** The run's folder, as the person reads it. */
  folder: z.string(),
  cells: z.array(BranchValueCellSchema),
  /** The critical step in words ("critical step: step 2 (V falls 0.75)"). */
  critical: z.string(),
});
export type BranchStrip = z.infer<typeof BranchStripSchema>;
const BranchValuesSchema = z.object({ strip: z.nullable(BranchStripSchema) });
/** The values of the open trajectory's branch run (null: it has none), asked once the timeline shows. */
export const branchValues = requestType('branch/values', z.object({}), BranchValuesSchema);
/** Sent when the branch run changes (a run finished, the folder was written). */
export const stepperBranchValues = notificationType('stepper/branchValues', BranchValuesSchema);

/** The step on screen, which the host embeds when the view loads again (a request: webviews send no notifications). */
export const stepperSelected = requestType('stepper/selected', z.object({ index: StepIndex }), z.object({}));

/** The id of the `<script type="application/json">` element that carries the boot payload. */
export const STEPPER_BOOT_ELEMENT = 'stepper-boot';

/**
 * The performance mark the page sets at the first animation frame with the first step in the DOM
 * (a text editor's side is read on animation frames too): bench/ui reads it from outside the page.
 */
export const FIRST_STEP_MARK = 'sweWorkbench.stepper.firstStep';

/**
 * What the view shows first: the header, the first range of summaries and the step to show.
 * Embedded in the page when the file is parsed by the time the page is rendered, else asked for
 * once. `reveal` says the host asked for that step (open at step N), which wins over the view's
 * saved state.
 */
export const StepperBootSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    header: TrajectoryHeaderSchema,
    summaries: z.array(StepSummarySchema),
    detail: z.optional(StepDetailSchema),
    reveal: z.boolean(),
    /**
     * The file is still being indexed: `detail` is its first step read from its own bytes (what
     * the index may refine left out) and `header` a stand-in that only names the file. The page
     * shows the step, the run's facts as loading, and waits for `stepperIndexed`.
     */
    indexing: z.optional(z.literal(true)),
  }),
  z.object({ ok: z.literal(false), error: ProtocolErrorSchema }),
]);
export type StepperBoot = z.infer<typeof StepperBootSchema>;

/**
 * Host -> webview, after a boot sent with `indexing`: the file is indexed. `header` is final and
 * `detail` is the first step as the index reads it; or why the file could not be read.
 */
const StepperIndexedSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), header: TrajectoryHeaderSchema, detail: z.optional(StepDetailSchema) }),
  z.object({ ok: z.literal(false), error: ProtocolErrorSchema }),
]);
export type StepperIndexed = z.infer<typeof StepperIndexedSchema>;
export const stepperIndexed = notificationType('stepper/indexed', StepperIndexedSchema);

/** The boot payload, for a page rendered while the file was still being parsed (so it embeds none). */
export const stepperBoot = requestType('stepper/boot', z.object({}), StepperBootSchema);

/** What the webview persists with setState: UI state only, never trajectory data. */
export const StepperUiStateSchema = z.object({
  selected: StepIndex,
  tool: z.nullable(z.string()),
  errorsOnly: z.boolean(),
  query: z.string(),
});
export type StepperUiState = z.infer<typeof StepperUiStateSchema>;
