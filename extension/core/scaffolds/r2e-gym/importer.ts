import { z } from 'zod';
import type { Step, Trajectory } from '../../trajectory/model';
import { parseR2eAction } from './action';
import { defined, sourceRef, type ImportContext } from '../../trajectory/importContext';
import { parseInput } from '../../trajectory/inputSchema';

const num = z.number().nullish();

const StepSchema = z.looseObject({
  step_idx: num,
  thought: z.string().nullish(),
  action: z.string(),
  observation: z.string(),
  done: z.boolean().nullish(),
  token_usage_prompt: num,
  token_usage_completion: num,
  token_usage_total: num,
  llm_exec_time: num,
  env_exec_time: num,
});

const LineSchema = z.looseObject({
  trajectory_steps: z.array(StepSchema),
  problem_statement: z.string().nullish(),
  docker_image: z.string().nullish(),
  exp_name: z.string().nullish(),
  exit_reason: z.string().nullish(),
  output_patch: z.string().nullish(),
  reward: num,
  test_output: z.string().nullish(),
  agent_args: z.looseObject({ llm_name: z.string().nullish(), scaffold: z.string().nullish() }).nullish(),
  ds: z.looseObject({ instance_id: z.string().nullish(), repo: z.string().nullish(), base_commit: z.string().nullish() }).nullish(),
});

function stepOf(step: z.infer<typeof StepSchema>, index: number, ctx: ImportContext): Step {
  // Read as R2E-Gym's agent read it: parameters stripped, the function name empty when there was no call.
  const parsed = parseR2eAction(step.action);
  const call = parsed.name ? { raw: step.action, tool: parsed.name, args: parsed.parameters } : undefined;
  const tokens = defined({
    prompt: step.token_usage_prompt ?? undefined,
    completion: step.token_usage_completion ?? undefined,
    total: step.token_usage_total ?? undefined,
  });
  return defined({
    index,
    thought: step.thought ?? '',
    action: call ?? { raw: step.action, tool: null, args: {} },
    observation: step.observation,
    executionTime: step.env_exec_time ?? undefined,
    tokens: Object.keys(tokens).length > 0 ? tokens : undefined,
    formatError: call ? undefined : 'no <function=...> call in the action',
    source: sourceRef(ctx, ['trajectory_steps', index]),
  }) as Step;
}

/** One line of an R2E-Gym / DeepSWE JSONL file. */
export function importR2eGym(value: unknown, ctx: ImportContext): Trajectory {
  const line = parseInput(LineSchema, value, ctx.file, ctx.base);
  return {
    format: 'r2e-gym',
    task: defined({
      instanceId: line.ds?.instance_id ?? undefined,
      repo: line.ds?.repo ?? undefined,
      baseCommit: line.ds?.base_commit ?? undefined,
      image: line.docker_image ?? undefined,
      repoPath: '/testbed',
      problemStatement: line.problem_statement ?? undefined,
    }),
    steps: line.trajectory_steps.map((s, i) => stepOf(s, i, ctx)),
    outcome: defined({
      exitStatus: line.exit_reason ?? undefined,
      submission: line.output_patch ?? undefined,
      reward: line.reward ?? undefined,
      testOutput: line.test_output ?? undefined,
    }),
    meta: defined({
      model: line.agent_args?.llm_name ?? undefined,
      parseFunction: 'xml_function_calling',
      id: line.exp_name ?? undefined,
      scaffold: line.agent_args?.scaffold ?? undefined,
    }),
  };
}
