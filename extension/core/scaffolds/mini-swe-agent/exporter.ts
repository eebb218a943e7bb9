import { defined } from '../../defined';
import type { Step, Trajectory } from '../../trajectory/model';

/** mini-swe-agent's current trajectory format (tool calling, `trajectory_format: "mini-swe-agent-1.1"`). */
const MINI_SWE_AGENT_FORMAT = 'mini-swe-agent-1.1';
/** mini-swe-agent 1.x's format: each reply as written (a fenced bash block), each observation a user message. */
const MINI_SWE_AGENT_1_FORMAT = 'mini-swe-agent-1';

/** A recording made in mini-swe-agent 1.x (`meta.scaffold` mini-swe-agent@1...), which replied in text, not tool calls. */
const recordedIn1x = (t: Trajectory) =>
  /^mini-swe-agent@1(\.|$)/.test(t.meta.scaffold ?? '') && !t.steps.some((s) => s.action.toolCallId !== undefined || s.calls);

/** How mini-swe-agent submits: a shell command whose first output line is the marker. */
const MINI_SUBMIT_COMMAND = 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached';

function commandOf(step: Step, k: number): string {
  const call = step.calls?.[k]?.action ?? step.action;
  if (call.tool === 'bash' && typeof call.args.command === 'string') return call.args.command;
  if (call.tool === 'submit') return MINI_SUBMIT_COMMAND;
  // mini-swe-agent has one tool, bash: another scaffold's tool call is written as the command text it was.
  return call.raw;
}

function preamble(t: Trajectory): unknown[] {
  const messages: unknown[] = [];
  if (t.meta.systemPrompt !== undefined) messages.push({ role: 'system', content: t.meta.systemPrompt });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined) messages.push({ role: 'user', content: instructions });
  return messages;
}

/**
 * mini-swe-agent 1.x's message list: the reply as the model wrote it (its thought, then the
 * command in a ```bash block) and the rendered observation as the next user message; the
 * submitting command's user message is the submission, as 1.x's Submitted exception adds it.
 */
function textMessagesOf(t: Trajectory): unknown[] {
  const messages = preamble(t);
  for (const step of t.steps) {
    const reply = step.action.tool === null ? step.action.raw || step.thought : `${step.thought.trimEnd()}\n\n\`\`\`bash\n${commandOf(step, 0)}\n\`\`\``;
    messages.push({ role: 'assistant', content: reply });
    messages.push({ role: 'user', content: step.observation, ...(step.action.tool === null ? { extra: { interrupt_type: 'FormatError' } } : {}) });
  }
  return messages;
}

const submitted = (t: Trajectory) => /^submitted$/i.test(t.outcome.exitStatus ?? '');

function messagesOf(t: Trajectory): unknown[] {
  const messages = preamble(t);
  const last = t.steps.at(-1);
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
      // Another scaffold's tool keeps its name and arguments in the call; the action holds its text.
      function: c.action.tool === 'bash' || c.action.tool === 'submit' || c.action.tool === null ? undefined : { name: c.action.tool, args: c.action.args },
      observation: step.calls ? c.observation : step.observation,
    }));
    messages.push({
      role: 'assistant',
      content: step.thought,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: c.function
          ? { name: c.function.name, arguments: JSON.stringify(c.function.args) }
          : { name: 'bash', arguments: JSON.stringify({ command: c.command }) },
      })),
      extra: {
        actions: calls.map((c) => ({ command: c.command, tool_call_id: c.id })),
        ...(step.tokens ? { usage: { prompt_tokens: step.tokens.prompt, completion_tokens: step.tokens.completion, total_tokens: step.tokens.total } } : {}),
        ...stamp,
      },
    });
    // A call whose result is the submission writes no tool message, as in 2.x: the exit message below is its result.
    const submitting = step === last && submitted(t) && calls.at(-1)!.observation === (t.outcome.submission ?? '') ? calls.at(-1) : undefined;
    for (const c of calls) {
      if (c === submitting) continue;
      messages.push({
        role: 'tool',
        tool_call_id: c.id,
        content: c.observation,
        extra: { raw_output: c.observation, ...(step.exitCode === undefined ? {} : { returncode: step.exitCode }), ...stamp },
      });
    }
  }
  messages.push({
    role: 'exit',
    content: t.outcome.submission ?? '',
    extra: { exit_status: t.outcome.exitStatus ?? null, submission: t.outcome.submission ?? '' },
  });
  return messages;
}

/**
 * A mini-swe-agent `.traj.json` as its `DefaultAgent.save` writes it: `info` (model stats, config,
 * exit status, submission), the message list with `extra.actions` on each assistant message and
 * one `tool` message per call, and a closing `exit` message; for a recording made in mini-swe-agent
 * 1.x, 1.x's text message list (`trajectory_format: "mini-swe-agent-1"`).
 */
export function toMiniSweAgentTraj(t: Trajectory): string {
  const stats = t.outcome.modelStats;
  const text = recordedIn1x(t);
  const declared = t.meta.scaffoldConfig?.mini_version;
  // A 1.x recording names its version only when it carried one; the format then says 1.x.
  const version = typeof declared === 'string' ? declared : text ? undefined : '2.0.0';
  const run = {
    info: {
      // Only what the recording counted: an unknown cost is left out, not 0.
      model_stats: defined({ instance_cost: stats?.instanceCost, api_calls: stats?.apiCalls }),
      config: { model: { model_name: t.meta.model ?? 'unknown' }, agent_type: 'minisweagent.agents.default.DefaultAgent' },
      ...(version === undefined ? {} : { mini_version: version }),
      // info is free-form: the scaffold that made the run rides there, so another family's run reopens as itself.
      ...(t.meta.scaffold ? { scaffold: t.meta.scaffold } : {}),
      // mini-swe-agent runs where the image already holds the base; the commit rides in info too, so a replay on a repository starts there.
      ...(t.task.baseCommit ? { base_commit: t.task.baseCommit } : {}),
      exit_status: t.outcome.exitStatus ?? null,
      submission: t.outcome.submission ?? '',
    },
    messages: text ? textMessagesOf(t) : messagesOf(t),
    trajectory_format: text ? MINI_SWE_AGENT_1_FORMAT : MINI_SWE_AGENT_FORMAT,
    ...(t.task.instanceId === undefined ? {} : { instance_id: t.task.instanceId }),
  };
  return JSON.stringify(run, null, 2) + '\n';
}
