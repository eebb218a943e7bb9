import type { Step, Trajectory } from './model';

/** mini-swe-agent's current trajectory format (tool calling, `trajectory_format: "mini-swe-agent-1.1"`). */
export const MINI_SWE_AGENT_FORMAT = 'mini-swe-agent-1.1';

/** How mini-swe-agent submits: a shell command whose first output line is the marker. */
export const MINI_SUBMIT_COMMAND = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached';

function commandOf(step: Step, k: number): string {
  const call = step.calls?.[k]?.action ?? step.action;
  if (call.tool === 'bash' && typeof call.args.command === 'string') return call.args.command;
  if (call.tool === 'submit') return MINI_SUBMIT_COMMAND;
  // mini-swe-agent has one tool, bash: another scaffold's tool call is written as the command text it was.
  return call.raw;
}

function messagesOf(t: Trajectory): unknown[] {
  const messages: unknown[] = [];
  if (t.meta.systemPrompt !== undefined) messages.push({ role: 'system', content: t.meta.systemPrompt });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined) messages.push({ role: 'user', content: instructions });
  for (const step of t.steps) {
    const stamp = step.timestamp === undefined ? {} : { timestamp: Date.parse(step.timestamp) / 1000 };
    if (step.action.tool === null) {
      // A reply the scaffold could not read: the assistant text, then the FormatError it answered with.
      messages.push({ role: 'assistant', content: step.action.raw || step.thought, extra: { actions: [], ...stamp } });
      messages.push({ role: 'user', content: step.observation, extra: { interrupt_type: 'FormatError' } });
      continue;
    }
    const calls = (step.calls ?? [{ action: step.action, observation: step.observation }]).map((c, k) => ({
      id: c.action.toolCallId ?? `call_${step.index}_${k}`,
      command: commandOf(step, k),
      observation: step.calls ? c.observation : step.observation,
    }));
    messages.push({
      role: 'assistant',
      content: step.thought,
      tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: c.command }) } })),
      extra: {
        actions: calls.map((c) => ({ command: c.command, tool_call_id: c.id })),
        ...(step.tokens ? { usage: { prompt_tokens: step.tokens.prompt, completion_tokens: step.tokens.completion, total_tokens: step.tokens.total } } : {}),
        ...stamp,
      },
    });
    for (const c of calls) {
      messages.push({ role: 'tool', tool_call_id: c.id, content: c.observation, extra: { raw_output: c.observation, ...(step.exitCode === undefined ? {} : { returncode: step.exitCode }), ...stamp } });
    }
  }
  messages.push({ role: 'exit', content: t.outcome.submission ?? '', extra: { exit_status: t.outcome.exitStatus ?? null, submission: t.outcome.submission ?? '' } });
  return messages;
}

/**
 * A mini-swe-agent `.traj.json` as its `DefaultAgent.save` writes it: `info` (model stats, config,
 * exit status, submission), the message list with `extra.actions` on each assistant message and
 * one `tool` message per call, and a closing `exit` message.
 */
export function toMiniSweAgentTraj(t: Trajectory): string {
  const stats = t.outcome.modelStats;
  const run = {
    info: {
      model_stats: { instance_cost: stats?.instanceCost ?? 0, api_calls: stats?.apiCalls ?? t.steps.length },
      config: { model: { model_name: t.meta.model ?? 'unknown' }, agent_type: 'minisweagent.agents.default.DefaultAgent' },
      mini_version: '2.0.0',
      exit_status: t.outcome.exitStatus ?? null,
      submission: t.outcome.submission ?? '',
    },
    messages: messagesOf(t),
    trajectory_format: MINI_SWE_AGENT_FORMAT,
    ...(t.task.instanceId === undefined ? {} : { instance_id: t.task.instanceId }),
  };
  return JSON.stringify(run, null, 2) + '\n';
}
