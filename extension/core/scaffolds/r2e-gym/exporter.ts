import { defined } from '../../defined';
import type { Action, Trajectory } from '../../trajectory/model';

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
  // R2E-Gym's agent makes one call a step: a message's several calls become a step each, the thought
  // and the step's time on the first.
  const rows = t.steps.flatMap((step) =>
    step.calls
      ? step.calls.map((c, k) => ({ step: k === 0 ? step : { ...step, thought: '', tokens: undefined, executionTime: undefined }, first: k === 0, ...c }))
      : [{ step, first: true, action: step.action, observation: step.observation }],
  );
  const record = {
    trajectory_steps: rows.map(({ step, first, action, observation }, i) => {
      const env = step.executionTime;
      if (first) elapsed = elapsed === undefined || env === undefined ? undefined : elapsed + env;
      return {
        step_idx: i,
        thought: step.thought,
        // A reply with no call is kept as the text it was, as R2E-Gym keeps an action it could not parse.
        action: action.tool === null ? action.raw : xmlFunctionCall(action),
        observation,
        done: i === rows.length - 1 && t.outcome.exitStatus !== undefined,
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
    max_steps: rows.length,
    exit_reason: t.outcome.exitStatus ?? '',
    output_patch: t.outcome.submission ?? '',
    // R2E-Gym's reward is optional: null when nothing graded the run.
    reward: t.outcome.reward ?? (t.outcome.resolved === undefined ? null : Number(t.outcome.resolved)),
    test_output: t.outcome.testOutput ?? '',
  };
  return JSON.stringify(record) + '\n';
}
