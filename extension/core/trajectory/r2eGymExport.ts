import { defined } from '../defined';
import type { Action, Trajectory } from './model';

/** R2E-Gym's tools for the ones the workbench records under other names. */
function r2eCall(action: Action): { name: string; parameters: Record<string, unknown> } {
  if (action.tool === 'bash') return { name: 'execute_bash', parameters: { cmd: action.args.command ?? action.raw } };
  if (action.tool === 'str_replace_editor') return { name: 'file_editor', parameters: action.args };
  if (action.tool === 'submit') return { name: 'finish', parameters: { command: 'submit' } };
  return { name: action.tool ?? 'execute_bash', parameters: action.tool === null ? { cmd: action.raw } : action.args };
}

function parameterText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** An action as R2E-Gym's agent writes it: `<function=NAME>` with one `<parameter=K>` per argument. */
function xmlFunctionCall(action: Action): string {
  const { name, parameters } = r2eCall(action);
  const params = Object.entries(parameters)
    .map(([k, v]) => `  <parameter=${k}>${parameterText(v)}</parameter>\n`)
    .join('');
  return `<function=${name}>\n${params}</function>`;
}

/**
 * One line of an R2E-Gym / DeepSWE JSONL file (`Trajectory.model_dump()` in
 * `agenthub/trajectory/trajectory.py`): the steps with their XML actions and token usage, the
 * task's image and dataset row, and the outcome (exit reason, patch, reward, test output).
 */
export function toR2eGymRecord(t: Trajectory): string {
  // Times and token counts are written as measured, or left out: an invented 0 reads as "took no time".
  let elapsed: number | undefined = 0;
  const record = {
    trajectory_steps: t.steps.map((step, i) => {
      const env = step.executionTime;
      elapsed = elapsed === undefined || env === undefined ? undefined : elapsed + env;
      return {
        step_idx: i,
        thought: step.thought,
        action: xmlFunctionCall(step.action),
        observation: step.observation,
        done: i === t.steps.length - 1 && t.outcome.exitStatus !== undefined,
        info: {},
        ...defined({
          token_usage_prompt: step.tokens?.prompt,
          token_usage_completion: step.tokens?.completion,
          token_usage_total: step.tokens?.total,
          env_exec_time: env,
          total_time_traj: elapsed,
        }),
        step_count: i + 1,
      };
    }),
    problem_statement: t.task.problemStatement ?? t.meta.instructions ?? '',
    docker_image: t.task.image ?? '',
    exp_name: t.meta.id ?? 'swe-workbench',
    env_args: {},
    // agent_args is the agent's settings as a free-form dict: the scaffold that made the run rides there.
    agent_args: { llm_name: t.meta.model ?? 'unknown', ...(t.meta.scaffold ? { scaffold: t.meta.scaffold } : {}) },
    ds: { instance_id: t.task.instanceId ?? '', repo: t.task.repo ?? '', base_commit: t.task.baseCommit ?? '' },
    max_steps: t.steps.length,
    exit_reason: t.outcome.exitStatus ?? '',
    output_patch: t.outcome.submission ?? '',
    // R2E-Gym's reward is optional: null when nothing graded the run.
    reward: t.outcome.reward ?? (t.outcome.resolved === undefined ? null : Number(t.outcome.resolved)),
    test_output: t.outcome.testOutput ?? '',
  };
  return JSON.stringify(record) + '\n';
}
