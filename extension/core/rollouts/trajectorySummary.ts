import { z } from 'zod';
import { InputError, jsonPath } from '../errors';
import { parseXmlFunctionCall } from '../trajectory/actionText';
import { detectFormat } from '../trajectory/detectFormat';
import { defined } from '../trajectory/importContext';
import { parseInput } from '../trajectory/inputSchema';
import { actionsOf, followerFacts, isExit, legacySubmission, MessagesSchema, RunSchema as MiniRunSchema, type Message } from '../trajectory/importers/miniSweAgent';
import { flagsOf, textReader, toolBundlePath } from '../trajectory/importers/sweAgent';
import type { TrajectoryFormat } from '../trajectory/model';
import type { TrajectoryFacts } from './record';
import { trajectoryFacts, type StepFactsInput, type TrajectoryFactsInput } from './trajectoryFacts';
import { importRolloutTrajectory } from './trajectoryImport';

/** The facts of one parsed trajectory document (several for a document holding several). */
export type FactsReader = (value: unknown, file: string, line: number | undefined) => TrajectoryFacts[];

/**
 * The index's reader: the facts a rollout row needs, computed from the parsed document without
 * building Step objects, for the formats training runs are made of (SWE-agent, mini-swe-agent,
 * R2E-Gym). Only the fields the facts read are validated (with the importers' located errors);
 * any other format or shape takes the full import. Measured on a 1,000-trajectory run, the
 * full import costs about as much CPU as JSON.parse of the same files.
 */
export const summarizeTrajectory: FactsReader = (value, file, line) => {
  const format = detectFormat(value);
  const summary = format === undefined ? undefined : SUMMARIES[format]?.(value, file);
  return [trajectoryFacts(summary ?? importRolloutTrajectory(value, file, line), line)];
};

/** A summary, or undefined when the document takes a shape only the full import reads. */
type Summary = (value: unknown, file: string) => TrajectoryFactsInput | undefined;

const nullishString = z.string().nullish();
const nullishNumber = z.number().nullish();

const SweStepSchema = z.object({ action: z.string(), observation: z.string(), execution_time: nullishNumber });

const SweFileSchema = z.object({
  trajectory: z.array(SweStepSchema),
  info: z
    .object({
      exit_status: nullishString,
      submission: nullishString,
      model_stats: z.object({ instance_cost: nullishNumber, tokens_sent: nullishNumber, tokens_received: nullishNumber }).nullish(),
    })
    .nullish(),
  replay_config: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
});

const SweConfigSchema = z.object({
  agent: z.object({ tools: z.object({ bundles: z.array(z.object({ path: z.string() })).nullish() }).nullish() }).nullish(),
  problem_statement: z.object({ id: nullishString }).nullish(),
});

/** Whether any history message made a function call: those steps read their action from it. */
function callsInHistory(value: Record<string, unknown>): boolean {
  const history = value.history;
  return Array.isArray(history) && history.some((h: unknown) => Array.isArray((h as { tool_calls?: unknown } | null)?.tool_calls) && (h as { tool_calls: unknown[] }).tool_calls.length > 0);
}

function sweConfig(config: string | Record<string, unknown> | null | undefined, file: string): z.output<typeof SweConfigSchema> {
  let value: unknown = config ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new InputError(file, jsonPath(['replay_config']), `expected a JSON string, but it does not parse (${(err as Error).message})`);
    }
  }
  return parseInput(SweConfigSchema, value, file, ['replay_config']);
}

/** SWE-agent with a top-level `trajectory` of text actions (every 0.7 and 1.x recording but function calling). */
const sweAgent: Summary = (value, file) => {
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.trajectory) || v.trajectory.length === 0 || callsInHistory(v)) return undefined;
  const run = parseInput(SweFileSchema, value, file);
  const config = sweConfig(run.replay_config, file);
  const readText = textReader(config.agent?.tools?.bundles?.map((b) => toolBundlePath(b.path)));
  const stats = run.info?.model_stats;
  return {
    format: 'swe-agent',
    task: defined({ instanceId: config.problem_statement?.id ?? undefined }),
    meta: {},
    outcome: defined({
      exitStatus: run.info?.exit_status ?? undefined,
      submission: run.info?.submission ?? undefined,
      modelStats: stats ? defined({ instanceCost: stats.instance_cost ?? undefined, tokensSent: stats.tokens_sent ?? undefined, tokensReceived: stats.tokens_received ?? undefined }) : undefined,
    }),
    steps: run.trajectory.map((s) => step(s.action, readText(s.action).formatError, { flags: flagsOf(s.observation), executionTime: s.execution_time ?? undefined })),
  };
};

const R2eStepSchema = z.object({
  action: z.string(),
  observation: z.string(),
  token_usage_prompt: nullishNumber,
  token_usage_completion: nullishNumber,
  token_usage_total: nullishNumber,
  env_exec_time: nullishNumber,
});

const R2eLineSchema = z.object({
  trajectory_steps: z.array(R2eStepSchema),
  exp_name: nullishString,
  exit_reason: nullishString,
  output_patch: nullishString,
  reward: nullishNumber,
  ds: z.object({ instance_id: nullishString }).nullish(),
});

function r2eStep(s: z.output<typeof R2eStepSchema>): StepFactsInput {
  const tokens = defined({ prompt: s.token_usage_prompt ?? undefined, completion: s.token_usage_completion ?? undefined, total: s.token_usage_total ?? undefined });
  const formatError = s.action.trim() !== '' && parseXmlFunctionCall(s.action) === undefined ? 'no <function=...> call in the action' : undefined;
  return step(s.action, formatError, { executionTime: s.env_exec_time ?? undefined, tokens: Object.keys(tokens).length > 0 ? tokens : undefined });
}

const r2eGym: Summary = (value, file) => {
  const l = parseInput(R2eLineSchema, value, file);
  return {
    format: 'r2e-gym',
    task: defined({ instanceId: l.ds?.instance_id ?? undefined }),
    meta: defined({ id: l.exp_name ?? undefined }),
    outcome: defined({ exitStatus: l.exit_reason ?? undefined, submission: l.output_patch ?? undefined, reward: l.reward ?? undefined }),
    steps: l.trajectory_steps.map(r2eStep),
  };
};

/** One step per assistant message, its followers up to the next one: chatSteps' turns, read for their facts only. */
function miniSteps(messages: ReadonlyArray<Message>): StepFactsInput[] {
  const steps: StepFactsInput[] = [];
  let raw = '';
  let formatError = false;
  let timestamp: string | undefined;
  const close = () => steps.push(step(raw, formatError ? 'format error' : undefined, { timestamp }));
  let open = false;
  for (const m of messages) {
    if (isExit(m)) continue;
    if (m.role === 'assistant') {
      if (open) close();
      const calls = actionsOf(m)?.calls ?? [];
      raw = calls[0]?.action.raw ?? '';
      formatError = calls.some((c) => c.formatError !== undefined);
      timestamp = undefined;
      open = true;
    } else if (open) {
      const facts = followerFacts(m);
      formatError ||= facts.formatError !== undefined;
      timestamp ??= facts.timestamp;
    }
  }
  if (open) close();
  return steps;
}

/** mini-swe-agent text actions; a run with function calls takes the full import. */
const miniSweAgent: Summary = (value, file) => {
  const run = Array.isArray(value) ? { messages: parseInput(MessagesSchema, value, file), info: undefined, instance_id: undefined } : parseInput(MiniRunSchema, value, file);
  const { messages } = run;
  if (messages.some((m) => m.tool_calls?.length)) return undefined;
  const exit = messages.find(isExit)?.extra;
  const legacy = run.info ? undefined : legacySubmission(messages);
  const cost = run.info?.model_stats?.instance_cost;
  return {
    format: 'mini-swe-agent',
    task: defined({ instanceId: run.instance_id ?? undefined }),
    meta: {},
    outcome: defined({
      exitStatus: exit?.exit_status ?? run.info?.exit_status ?? (legacy === undefined ? undefined : 'Submitted'),
      submission: exit?.submission ?? run.info?.submission ?? legacy,
      modelStats: run.info?.model_stats ? defined({ instanceCost: cost ?? undefined }) : undefined,
    }),
    steps: miniSteps(messages),
  };
};

const SUMMARIES: Partial<Record<TrajectoryFormat, Summary>> = { 'swe-agent': sweAgent, 'r2e-gym': r2eGym, 'mini-swe-agent': miniSweAgent };

function step(raw: string, formatError: string | undefined, rest: Omit<StepFactsInput, 'action' | 'formatError'>): StepFactsInput {
  return formatError === undefined ? { action: { raw }, ...rest } : { action: { raw }, formatError, ...rest };
}
