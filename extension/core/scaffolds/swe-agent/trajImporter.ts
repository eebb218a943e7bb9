import { z } from 'zod';
import type { Step, StepState, ToolCallResult, Trajectory } from '../../trajectory/model';
import { errorText, InputError, jsonPath } from '../../errors';
import { argumentsText, parseXmlFunctionCall, toolCallAction, type ParsedAction } from '../../trajectory/actionText';
import { ChatContentSchema, ToolCallSchema, chatSteps, contentText, preambleOf, type ChatMessage, type MessageList } from '../../trajectory/chatSteps';
import { defined, sourceRef, type ImportContext } from '../../trajectory/importContext';
import { parseInput } from '../../trajectory/inputSchema';
import { lineCommandParser } from './lineCommand';

const StateSchema = z.union([z.string(), z.looseObject({ open_file: z.string().nullish(), working_dir: z.string().nullish(), diff: z.string().nullish() })]);

export const TrajStepSchema = z.looseObject({
  action: z.string(),
  observation: z.string(),
  response: z.string().nullish(),
  thought: z.string().nullish(),
  execution_time: z.number().nullish(),
  state: StateSchema.nullish(),
  // Full model inputs per step (`messages` before 1.1); kept for rawRecord, not read.
  query: z.array(z.unknown()).nullish(),
  messages: z.array(z.unknown()).nullish(),
  extra_info: z.record(z.string(), z.unknown()).nullish(),
});

export const HistoryItemSchema = z.looseObject({
  role: z.string(),
  content: ChatContentSchema,
  message_type: z.string().nullish(),
  agent: z.string().nullish(),
  is_demo: z.boolean().nullish(),
  thought: z.string().nullish(),
  action: z.string().nullish(),
  tool_calls: z.array(ToolCallSchema).nullish(),
  tool_call_ids: z.array(z.string()).nullish(),
});
export type HistoryItem = z.infer<typeof HistoryItemSchema>;
export type TrajStep = z.infer<typeof TrajStepSchema>;

export const InfoSchema = z.looseObject({
  exit_status: z.string().nullish(),
  submission: z.string().nullish(),
  model_stats: z
    .looseObject({
      instance_cost: z.number().nullish(),
      tokens_sent: z.number().nullish(),
      tokens_received: z.number().nullish(),
      api_calls: z.number().nullish(),
    })
    .nullish(),
  swe_agent_version: z.string().nullish(),
  /** `NAME@VERSION` of the scaffold that made the run, as our exporter writes it. */
  scaffold: z.string().nullish(),
  best_attempt_idx: z.number().int().nullish(),
});

const RunSchema = z.looseObject({
  trajectory: z.array(TrajStepSchema).optional(),
  history: z.array(HistoryItemSchema).optional(),
  info: InfoSchema.nullish(),
  replay_config: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  environment: z.string().nullish(),
});
type Run = z.infer<typeof RunSchema>;
type Info = z.infer<typeof InfoSchema>;

const TrajFileSchema = RunSchema.extend({ attempts: z.array(RunSchema).optional() });

const ReplayConfigSchema = z.looseObject({
  env: z
    .looseObject({
      deployment: z.looseObject({ image: z.string().nullish() }).nullish(),
      repo: z.looseObject({ repo_name: z.string().nullish(), github_url: z.string().nullish(), base_commit: z.string().nullish() }).nullish(),
    })
    .nullish(),
  agent: z
    .looseObject({
      model: z.looseObject({ name: z.string().nullish(), temperature: z.number().nullish(), top_p: z.number().nullish() }).nullish(),
      tools: z
        .looseObject({
          bundles: z.array(z.looseObject({ path: z.string() })).nullish(),
          parse_function: z.looseObject({ type: z.string().nullish() }).nullish(),
          env_variables: z.record(z.string(), z.unknown()).nullish(),
          registry_variables: z.record(z.string(), z.unknown()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
  problem_statement: z.looseObject({ id: z.string().nullish(), text: z.string().nullish() }).nullish(),
});
type ReplayConfig = z.infer<typeof ReplayConfigSchema>;

function replayConfigOf(run: Run, ctx: ImportContext, path: ReadonlyArray<string | number>): ReplayConfig {
  let value: unknown = run.replay_config ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new InputError(ctx.file, jsonPath([...ctx.base, ...path]), `expected a JSON string, but it does not parse (${errorText(err)})`);
    }
  }
  return parseInput(ReplayConfigSchema, value, ctx.file, [...ctx.base, ...path]);
}

function stateOf(state: z.infer<typeof StateSchema> | null | undefined, ctx: ImportContext, path: ReadonlyArray<string | number>): StepState | undefined {
  if (state === null || state === undefined) return undefined;
  let dict: unknown = state;
  if (typeof state === 'string') {
    try {
      dict = JSON.parse(state);
    } catch {
      throw new InputError(ctx.file, jsonPath([...ctx.base, ...path]), 'expected a JSON object in the state string, but it does not parse');
    }
  }
  const parsed = parseInput(StateSchema, dict, ctx.file, [...ctx.base, ...path]);
  if (typeof parsed === 'string') throw new InputError(ctx.file, jsonPath([...ctx.base, ...path]), 'expected a JSON object in the state string, got a string');
  // SWE-agent writes "n/a" when no file is open.
  const openFile = parsed.open_file === 'n/a' ? null : parsed.open_file;
  const out = defined({ openFile, workingDir: parsed.working_dir ?? undefined, diff: parsed.diff ?? undefined });
  return Object.keys(out).length > 0 ? out : undefined;
}

const LINT_REJECTED = /^\s*(Your proposed edit has introduced new syntax error|Your edit was not applied)/;
const TIMED_OUT = /was cancelled because it took more than \d+ seconds/;

/** The scaffold's own messages open the observation, so only its head is searched (observations reach megabytes). */
/** The observation's flags and those a `.traj` written by this tool keeps in `extra_info.flags`. */
function mergedFlags(fromObservation: string[] | undefined, saved: unknown): string[] | undefined {
  const kept = Array.isArray(saved) ? saved.filter((f): f is string => typeof f === 'string') : [];
  const all = [...new Set([...(fromObservation ?? []), ...kept])];
  return all.length > 0 ? all : undefined;
}

function flagsOf(observation: string): string[] | undefined {
  const head = observation.slice(0, 400);
  const flags = [...(LINT_REJECTED.test(head) ? ['lint-rejected'] : []), ...(TIMED_OUT.test(head) ? ['timeout'] : [])];
  return flags.length > 0 ? flags : undefined;
}

type ReadText = (raw: string) => ParsedAction;

/** Action text is an XML call when it holds one, else a command line for the recording's tools. */
function textReader(bundles: readonly string[] | undefined): ReadText {
  const readCommand = lineCommandParser(bundles);
  return (raw) => {
    if (raw.trim() === '') return { action: { raw, tool: null, args: {} } };
    const xml = parseXmlFunctionCall(raw);
    return xml ? { action: xml } : readCommand(raw);
  };
}

/** An action from a history message: its function call when it made one, else its text. */
function historyAction(item: HistoryItem, raw: string, readText: ReadText): ParsedAction {
  const call = item.tool_calls?.[0];
  if (!call) return readText(raw);
  const parsed = toolCallAction(call.function.name, argumentsText(call.function.arguments), call.id ?? undefined);
  return { ...parsed, action: { ...parsed.action, raw } };
}

/** The index of the first assistant message after `h`, or the history's length. */
function nextAssistant(history: MessageList<HistoryItem>, h: number): number {
  let j = h + 1;
  while (j < history.length && history.at(j)!.role !== 'assistant') j++;
  return j;
}

/** A message with several function calls: each call with the (first) tool message that answered it. */
function historyCalls(history: MessageList<HistoryItem>, h: number): ToolCallResult[] | undefined {
  const calls = history.at(h)!.tool_calls;
  if (!calls || calls.length < 2) return undefined;
  // One pass over the answers, by id: a message may answer thousands of calls.
  const answerOf = new Map<string, HistoryItem>();
  for (let j = h + 1, end = nextAssistant(history, h); j < end; j++) {
    const answer = history.at(j)!;
    for (const id of answer.tool_call_ids ?? []) if (!answerOf.has(id)) answerOf.set(id, answer);
  }
  return calls.map((call) => {
    const answer = call.id == null ? undefined : answerOf.get(call.id);
    const { action } = toolCallAction(call.function.name, argumentsText(call.function.arguments), call.id ?? undefined);
    return { action, observation: answer ? contentText(answer.content) : '' };
  });
}

export function isDemo(item: HistoryItem): boolean {
  return item.is_demo === true;
}

/**
 * Pairs each trajectory step with the first history message after the last one paired that
 * holds the same action. The messages are grouped by action once, each group read forward from
 * the last pairing, so a history that disagrees with the trajectory costs no scan per step.
 */
export function pairWithHistory(steps: ReadonlyArray<{ action: string }>, history: ReadonlyArray<HistoryItem>): Array<number | undefined> {
  const byAction = new Map<string, { at: number[]; next: number }>();
  history.forEach((item, j) => {
    if (item.role !== 'assistant' || isDemo(item) || typeof item.action !== 'string') return;
    const key = item.action.trim();
    const group = byAction.get(key);
    if (group) group.at.push(j);
    else byAction.set(key, { at: [j], next: 0 });
  });
  let cursor = 0;
  return steps.map((step) => {
    const group = byAction.get(step.action.trim());
    if (!group) return undefined;
    while (group.next < group.at.length && group.at[group.next]! < cursor) group.next++;
    const j = group.at[group.next];
    if (j === undefined) return undefined;
    cursor = j + 1;
    group.next++;
    return j;
  });
}

/** What every step of a run is read with: its place, the recording's tools and sampling. */
export interface RunReading {
  ctx: ImportContext;
  base: ReadonlyArray<string | number>;
  config: ReplayConfig;
  readText: ReadText;
  sampling: Record<string, unknown> | undefined;
  bundles: string[] | undefined;
}

export function runReading(run: Pick<Run, 'replay_config'>, ctx: ImportContext, base: ReadonlyArray<string | number>): RunReading {
  const config = replayConfigOf(run, ctx, [...base, 'replay_config']);
  const model = config.agent?.model;
  const sampling =
    model && (model.temperature != null || model.top_p != null)
      ? defined({ temperature: model.temperature ?? undefined, top_p: model.top_p ?? undefined })
      : undefined;
  const bundles = config.agent?.tools?.bundles?.map((b) => toolBundlePath(b.path));
  return { ctx, base, config, readText: textReader(bundles), sampling, bundles };
}

/** Step `index` of `trajectory[]`, with history message `h` when paired (`history` needs the content of the messages answering a multi-call message). */
export function trajectoryStep(step: TrajStep, index: number, h: number | undefined, history: MessageList<HistoryItem>, r: RunReading): Step {
  const { ctx, base } = r;
  const read = h === undefined ? r.readText(step.action) : historyAction(history.at(h)!, step.action, r.readText);
  return defined({
    index,
    thought: step.thought ?? '',
    action: read.action,
    observation: step.observation,
    calls: h === undefined ? undefined : historyCalls(history, h),
    executionTime: step.execution_time ?? undefined,
    sampling: r.sampling,
    state: stateOf(step.state, ctx, [...base, 'trajectory', index, 'state']),
    formatError: read.formatError,
    flags: mergedFlags(flagsOf(step.observation), step.extra_info?.flags),
    source: h === undefined ? sourceRef(ctx, [...base, 'trajectory', index]) : sourceRef(ctx, [...base, 'trajectory', index], [...base, 'history', h]),
  }) as Step;
}

function trajectorySteps(run: Run, r: RunReading): Step[] {
  const steps = run.trajectory ?? [];
  const history = run.history ?? [];
  const paired = pairWithHistory(steps, history);
  return steps.map((step, index) => trajectoryStep(step, index, paired[index], history, r));
}

/** The history messages a multi-call message's step reads: those after `h` up to the next assistant message. */
export function answersOf(history: ReadonlyArray<HistoryItem>, h: number): number[] {
  if ((history[h]?.tool_calls?.length ?? 0) < 2) return [];
  return Array.from({ length: nextAssistant(history, h) - h - 1 }, (_, k) => h + 1 + k);
}

/** What the run's header reads from its steps. */
export interface StepFacts {
  /** The first step's working folder. */
  workingDir: string | undefined;
  /** Some step recorded its state as a string (SWE-agent 0.7: the state before the action). */
  stringState: boolean;
  /** The first steps' observations (up to five). */
  firstObservations: string[];
  stepCount: number;
}

/** Everything but the steps: the task, the outcome, the run's facts. */
export function runHeader(r: RunReading, info: Info | null | undefined, history: ReadonlyArray<HistoryItem>, facts: StepFacts): Omit<Trajectory, 'steps'> {
  const { config } = r;
  const model = config.agent?.model;
  const stats = info?.model_stats;
  const repo = config.env?.repo;
  return {
    format: 'swe-agent',
    task: defined({
      instanceId: config.problem_statement?.id ?? undefined,
      repo: repo?.github_url?.replace(/^https?:\/\/github\.com\//, '').replace(/\/+$/, '') || undefined,
      baseCommit: repo?.base_commit ?? undefined,
      image: config.env?.deployment?.image ?? undefined,
      repoPath: facts.workingDir ?? (repo?.repo_name ? `/${repo.repo_name}` : undefined),
      problemStatement: config.problem_statement?.text ?? undefined,
    }),
    outcome: defined({
      exitStatus: info?.exit_status ?? undefined,
      submission: info?.submission ?? undefined,
      modelStats: stats
        ? defined({
            instanceCost: stats.instance_cost ?? undefined,
            tokensSent: stats.tokens_sent ?? undefined,
            tokensReceived: stats.tokens_received ?? undefined,
            apiCalls: stats.api_calls ?? undefined,
          })
        : undefined,
    }),
    meta: defined({
      formatVersion: info?.swe_agent_version ?? undefined,
      scaffold: info?.scaffold ?? undefined,
      stateTiming: facts.stringState ? 'before-action' : undefined,
      model: model?.name ?? undefined,
      toolBundles: r.bundles,
      parseFunction: config.agent?.tools?.parse_function?.type ?? undefined,
      toolEnvVariables: nonEmpty(config.agent?.tools?.env_variables),
      toolRegistryVariables: nonEmpty(config.agent?.tools?.registry_variables),
      // SWE-agent 1.x records through a pseudo-terminal, which leaves \r\n in every observation.
      pty: facts.stepCount > 0 ? facts.firstObservations.some((o) => o.includes('\r\n')) : undefined,
      ...preambleOf(history as ReadonlyArray<HistoryItem & ChatMessage>, isDemo),
    }),
  };
}

function historySteps(history: ReadonlyArray<HistoryItem>, ctx: ImportContext, base: ReadonlyArray<string | number>, readText: ReadText): Step[] {
  return chatSteps(history as ReadonlyArray<HistoryItem & ChatMessage>, [...base, 'history'], ctx, {
    skip: isDemo,
    actionsOf: (item) => {
      const raw = item.action ?? (item.tool_calls ? undefined : contentText(item.content));
      if (raw === undefined) return undefined;
      const read = historyAction(item, raw, readText);
      return { thought: item.thought ?? contentText(item.content), calls: [read] };
    },
  }).map((step) => defined({ ...step, flags: flagsOf(step.observation) }) as Step);
}

/** The run a retry agent chose (or its last), when the file has no top-level trajectory. */
function chosenRun(file: z.infer<typeof TrajFileSchema>): { run: Run; base: Array<string | number> } {
  if (file.trajectory !== undefined || file.history !== undefined || !file.attempts?.length) return { run: file, base: [] };
  const k = file.info?.best_attempt_idx ?? file.attempts.length - 1;
  return { run: file.attempts[k] ?? file.attempts[file.attempts.length - 1]!, base: ['attempts', k] };
}

function toolBundlePath(path: string): string {
  const at = path.lastIndexOf('tools/');
  return at === -1 ? path : path.slice(at);
}

function nonEmpty(variables: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  return variables && Object.keys(variables).length > 0 ? variables : undefined;
}

export function importSweAgent(value: unknown, ctx: ImportContext): Trajectory {
  const file = parseInput(TrajFileSchema, value, ctx.file, ctx.base);
  const { run, base } = chosenRun(file);
  if (run.trajectory === undefined && run.history === undefined) {
    throw new InputError(ctx.file, jsonPath([...ctx.base, ...base]), 'expected a SWE-agent trajectory: neither `trajectory` nor `history` is present');
  }
  const r = runReading(run, ctx, base);
  const steps = run.trajectory?.length ? trajectorySteps(run, r) : historySteps(run.history ?? [], ctx, base, r.readText);
  const header = runHeader(r, run.info ?? file.info, run.history ?? [], {
    workingDir: steps[0]?.state?.workingDir,
    stringState: run.trajectory?.some((s) => typeof s.state === 'string') ?? false,
    firstObservations: steps.slice(0, 5).map((s) => s.observation),
    stepCount: steps.length,
  });
  return { format: header.format, task: header.task, steps, outcome: header.outcome, meta: header.meta };
}
