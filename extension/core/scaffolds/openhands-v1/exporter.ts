/**
 * A trajectory as a JSON list of OpenHands V1 events: the system prompt, the task as the user's
 * message, then per step its token ids, its action events (one per tool call, sharing the
 * response id) and their observations, each event the parent of the next (one branch). The
 * importer reads it back to the same steps.
 *
 * The SDK's events refuse unknown fields, so the scaffold that made the run (`meta.scaffold`)
 * rides in the one free-text field that says where a message came from: the task message's
 * `sender`, as `SCAFFOLD_SENDER` + `NAME@VERSION`.
 */
import type { Step, Trajectory } from '../../trajectory/model';

export const SCAFFOLD_SENDER = 'swe-workbench scaffold ';

/** A stable id per event, in the SDK's UUID shape (and its event file names' hex pattern). */
const eventId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** `file_editor` -> `FileEditor`: the SDK names a tool's action and observation classes after it. */
const className = (tool: string) => tool.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

function text(t: string) {
  return { type: 'text', text: t };
}

export function toOpenHandsV1Events(t: Trajectory): string {
  const events: Array<Record<string, unknown>> = [];
  const timestamp = (step?: Step) => step?.timestamp ?? t.meta.createdAt ?? '';
  const push = (event: Record<string, unknown>) => {
    const id = eventId(events.length);
    const parent = events.length === 0 ? {} : { parent_id: events[events.length - 1]!.id };
    events.push({ id, ...parent, ...event });
  };
  if (t.meta.systemPrompt !== undefined)
    push({ timestamp: timestamp(), source: 'agent', system_prompt: text(t.meta.systemPrompt), tools: [], kind: 'SystemPromptEvent' });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined)
    push({
      timestamp: timestamp(),
      source: 'user',
      llm_message: { role: 'user', content: [text(instructions)] },
      activated_skills: [],
      extended_content: [],
      ...(t.meta.scaffold ? { sender: SCAFFOLD_SENDER + t.meta.scaffold } : {}),
      kind: 'MessageEvent',
    });
  for (const step of t.steps) {
    if (step.tokenIds)
      push({
        timestamp: timestamp(step),
        source: 'agent',
        prompt_token_ids: step.tokenIds.prompt ?? [],
        response_token_ids: step.tokenIds.completion ?? [],
        kind: 'TokenEvent',
      });
    const calls = step.calls ?? [{ action: step.action, observation: step.observation }];
    // A reply that called no tool is the agent's message; what followed it, the user's answer.
    if (!step.calls && !step.formatError && (step.action.tool === null || step.action.tool === 'message')) {
      push({
        timestamp: timestamp(step),
        source: 'agent',
        llm_message: { role: 'assistant', content: [text(step.action.raw || step.thought)], ...(step.reasoning ? { reasoning_content: step.reasoning } : {}) },
        activated_skills: [],
        extended_content: [],
        kind: 'MessageEvent',
      });
      if (step.observation !== '')
        push({
          timestamp: timestamp(step),
          source: 'user',
          llm_message: { role: 'user', content: [text(step.observation)] },
          activated_skills: [],
          extended_content: [],
          kind: 'MessageEvent',
        });
      continue;
    }
    const responseId = `response-${step.index}`;
    const actions: Array<{ id: string; tool: string; callId: string; observation: string; parsed: boolean }> = [];
    calls.forEach((call, c) => {
      const tool = call.action.tool ?? 'unknown';
      const callId = call.action.toolCallId ?? `call-${step.index}-${c}`;
      const parsed = call.action.tool !== null && !step.formatError;
      push({
        timestamp: timestamp(step),
        source: 'agent',
        thought: c === 0 && step.thought ? [text(step.thought)] : [],
        ...(c === 0 && step.reasoning ? { reasoning_content: step.reasoning } : {}),
        action: parsed ? { ...call.action.args, kind: `${className(tool)}Action` } : null,
        tool_name: tool,
        tool_call_id: callId,
        tool_call: { id: callId, name: tool, arguments: JSON.stringify(call.action.args), origin: 'completion' },
        llm_response_id: responseId,
        kind: 'ActionEvent',
      });
      actions.push({ id: eventId(events.length - 1), tool, callId, observation: call.observation, parsed });
    });
    actions.forEach((a, c) => {
      if (!a.parsed) {
        push({
          timestamp: timestamp(step),
          source: 'agent',
          tool_name: a.tool,
          tool_call_id: a.callId,
          error: step.formatError ?? a.observation,
          kind: 'AgentErrorEvent',
        });
        return;
      }
      const exit = c === 0 && step.exitCode !== undefined ? { exit_code: step.exitCode } : {};
      push({
        timestamp: timestamp(step),
        source: 'environment',
        tool_name: a.tool,
        tool_call_id: a.callId,
        observation: { content: [text(a.observation)], is_error: false, ...exit, kind: `${className(a.tool)}Observation` },
        action_id: a.id,
        kind: 'ObservationEvent',
      });
    });
  }
  return JSON.stringify(events, null, 2) + '\n';
}
