import { z } from 'zod';
import type { Step, TokenLogprob, Trajectory } from '../model';
import { argumentsText, parseXmlFunctionCall, toolCallAction, type ParsedAction } from '../actionText';
import { defined, sourceRef, type ImportContext } from '../importContext';
import { parseInput } from '../inputSchema';

const LogprobSchema = z.union([z.number(), z.looseObject({ token: z.string(), logprob: z.number() })]);

const StepSchema = z.looseObject({
  prompt_ids: z.array(z.number().int()).nullish(),
  response_ids: z.array(z.number().int()).nullish(),
  logprobs: z.array(LogprobSchema).nullish(),
  observation: z.unknown().optional(),
  thought: z.string().nullish(),
  action: z.unknown().optional(),
  model_response: z.string().nullish(),
  reward: z.number().nullish(),
  done: z.boolean().nullish(),
});
type RllmStep = z.infer<typeof StepSchema>;

const TrajectorySchema = z.looseObject({
  uid: z.string().nullish(),
  name: z.string().nullish(),
  task: z.unknown().optional(),
  steps: z.array(StepSchema),
  reward: z.number().nullish(),
});

const EpisodeSchema = z.looseObject({
  id: z.string().nullish(),
  task: z.unknown().optional(),
  termination_reason: z.string().nullish(),
  is_correct: z.boolean().nullish(),
  trajectories: z.array(TrajectorySchema).min(1),
});

const TaskSchema = z.looseObject({
  instance_id: z.string().nullish(),
  repo: z.string().nullish(),
  base_commit: z.string().nullish(),
  docker_image: z.string().nullish(),
  problem_statement: z.string().nullish(),
});

const ToolCallSchema = z.looseObject({
  id: z.string().nullish(),
  name: z.string().optional(),
  arguments: z.unknown().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }).optional(),
});

/** rLLM keeps whatever the agent produced: XML text, a tool call, or a list of them. */
function actionsOf(action: unknown): ParsedAction[] {
  if (action === null || action === undefined) return [];
  if (typeof action === 'string') return [{ action: parseXmlFunctionCall(action) ?? { raw: action, tool: null, args: {} } }];
  const calls = z.array(ToolCallSchema).safeParse(Array.isArray(action) ? action : [action]);
  if (calls.success && calls.data.every((c) => c.function || c.name)) {
    return calls.data.map((c) => toolCallAction(c.function?.name ?? c.name!, argumentsText(c.function?.arguments ?? c.arguments), c.id ?? undefined));
  }
  return [{ action: { raw: JSON.stringify(action), tool: null, args: {} } }];
}

function logprobsOf(step: RllmStep): TokenLogprob[] | undefined {
  if (!step.logprobs?.length) return undefined;
  // Numeric logprobs align with response_ids; without decoded text the token is its id.
  return step.logprobs.map((lp, i) =>
    typeof lp === 'number' ? { token: String(step.response_ids?.[i] ?? ''), logprob: lp } : { token: lp.token, logprob: lp.logprob },
  );
}

function tokenIdsOf(step: RllmStep): Step['tokenIds'] {
  if (!step.prompt_ids?.length && !step.response_ids?.length) return undefined;
  return defined({ prompt: step.prompt_ids ?? undefined, completion: step.response_ids ?? undefined });
}

function stepOf(step: RllmStep, index: number, path: ReadonlyArray<string | number>, ctx: ImportContext): Step {
  const calls = actionsOf(step.action);
  const observation = typeof step.observation === 'string' ? step.observation : step.observation == null ? '' : JSON.stringify(step.observation);
  const errors = calls.flatMap((c) => (c.formatError ? [c.formatError] : []));
  return defined({
    index,
    thought: step.thought ?? step.model_response ?? '',
    action: calls[0]?.action ?? { raw: '', tool: null, args: {} },
    observation,
    calls: calls.length > 1 ? calls.map((c) => ({ action: c.action, observation: '' })) : undefined,
    logprobs: logprobsOf(step),
    tokenIds: tokenIdsOf(step),
    tokens: step.response_ids ? { completion: step.response_ids.length } : undefined,
    formatError: errors.length > 0 ? errors.join('; ') : undefined,
    source: sourceRef(ctx, [...path, index]),
  }) as Step;
}

function taskOf(task: unknown) {
  if (typeof task === 'string') return { problemStatement: task };
  const parsed = TaskSchema.safeParse(task);
  if (!parsed.success) return {};
  const t = parsed.data;
  return defined({
    instanceId: t.instance_id ?? undefined,
    repo: t.repo ?? undefined,
    baseCommit: t.base_commit ?? undefined,
    image: t.docker_image ?? undefined,
    problemStatement: t.problem_statement ?? undefined,
  });
}

/** An rLLM Episode (its first agent trajectory) or a bare rLLM Trajectory. */
export function importRllm(value: unknown, ctx: ImportContext): Trajectory {
  const isEpisode = value !== null && typeof value === 'object' && 'trajectories' in value;
  const episode = isEpisode ? parseInput(EpisodeSchema, value, ctx.file, ctx.base) : undefined;
  const trajectory = episode ? episode.trajectories[0]! : parseInput(TrajectorySchema, value, ctx.file, ctx.base);
  const path = episode ? ['trajectories', 0, 'steps'] : ['steps'];
  return {
    format: 'rllm',
    task: taskOf(trajectory.task ?? episode?.task),
    steps: trajectory.steps.map((s, i) => stepOf(s, i, path, ctx)),
    outcome: defined({
      exitStatus: episode?.termination_reason ?? undefined,
      reward: trajectory.reward ?? undefined,
      resolved: episode?.is_correct ?? undefined,
    }),
    meta: defined({ id: episode?.id ?? trajectory.uid ?? undefined }),
  };
}
