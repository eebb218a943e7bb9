import { defined } from '../../defined';
import type { Action, Step, Trajectory } from '../../trajectory/model';

const AGENT_CLASS = 'CodeActAgent';

/** The OpenHands action an agent step was, with its arguments (`openhands/events/action/*`). */
function actionEvent(step: Step, call: Action): { action: string; message: string; args: Record<string, unknown> } {
  const { tool, args, raw } = call;
  if (tool === 'bash' || tool === 'run') {
    const command = typeof args.command === 'string' ? args.command : raw;
    return {
      action: 'run',
      message: `Running command: ${command}`,
      args: { command, is_input: false, thought: step.thought, blocking: false, hidden: false, confirmation_state: 'confirmed' },
    };
  }
  if (tool === 'submit' || tool === 'finish') {
    // OpenHands' finish tool takes the closing words as `message`; its event keeps them as final_thought.
    const final = typeof args.message === 'string' ? args.message : step.thought;
    return { action: 'finish', message: final, args: { final_thought: final, outputs: {}, thought: step.thought } };
  }
  if (tool === null) return { action: 'message', message: raw, args: { content: raw, image_urls: null, wait_for_response: false, thought: step.thought } };
  return { action: tool, message: raw, args: { ...args, thought: step.thought } };
}

function observationEvent(step: Step, call: Action, action: string): { observation: string; extras: Record<string, unknown> } {
  if (action === 'run')
    return {
      observation: 'run',
      // An exit code nobody recorded is left out (OpenHands reads that as -1, unknown), never 0.
      extras: {
        command: (call.args.command as string | undefined) ?? call.raw,
        metadata: step.exitCode === undefined ? {} : { exit_code: step.exitCode },
        hidden: false,
      },
    };
  // What followed a reply that called nothing (another scaffold's feedback): OpenHands' NullObservation carries it.
  if (action === 'message') return { observation: 'null', extras: {} };
  return { observation: action, extras: {} };
}

/**
 * The events of a run as OpenHands serialises them (`event_to_dict`): the user's message, then
 * for each step the agent's action and the environment's observation caused by it.
 */
function openHandsEvents(t: Trajectory): unknown[] {
  const events: unknown[] = [];
  let id = 0;
  const stamp = (step?: Step) => step?.timestamp ?? t.meta.createdAt ?? null;
  if (t.meta.systemPrompt !== undefined)
    events.push({
      id: id++,
      timestamp: stamp(),
      source: 'agent',
      message: t.meta.systemPrompt,
      action: 'system',
      args: { content: t.meta.systemPrompt, tools: null, openhands_version: null, agent_class: AGENT_CLASS },
    });
  const instructions = t.meta.instructions ?? t.task.problemStatement;
  if (instructions !== undefined)
    events.push({
      id: id++,
      timestamp: stamp(),
      source: 'user',
      message: instructions,
      action: 'message',
      args: { content: instructions, image_urls: null, wait_for_response: false },
    });
  for (const step of t.steps) {
    // Several calls in one reply are an action event each, answered each by its own observation.
    const calls = step.calls ?? [{ action: step.action, observation: step.observation }];
    calls.forEach((call, k) => {
      const act = actionEvent(k === 0 ? step : { ...step, thought: '' }, call.action);
      const callId = call.action.toolCallId ?? (calls.length > 1 ? `toolu_${step.index}_${k}` : `toolu_${step.index}`);
      const metadata = {
        function_name: call.action.tool === 'bash' ? 'execute_bash' : (call.action.tool ?? 'message'),
        tool_call_id: callId,
        total_calls_in_response: calls.length,
      };
      const actionId = id++;
      events.push({
        id: actionId,
        timestamp: stamp(step),
        source: 'agent',
        message: act.message,
        action: act.action,
        tool_call_metadata: metadata,
        args: act.args,
        timeout: 120,
      });
      if (act.action === 'finish' || (act.action === 'message' && call.observation === '')) return;
      const obs = observationEvent(step, call.action, act.action);
      events.push({
        id: id++,
        timestamp: stamp(step),
        source: 'environment',
        message: obs.observation === 'null' ? '' : step.exitCode === undefined ? 'Command finished' : `Command finished with exit code ${step.exitCode}`,
        cause: actionId,
        observation: obs.observation,
        tool_call_metadata: metadata,
        content: call.observation,
        extras: obs.extras,
        ...(step.exitCode === undefined ? {} : { success: step.exitCode === 0 }),
      });
    });
  }
  return events;
}

/**
 * One line of an OpenHands evaluation `output.jsonl` (`EvalOutput`): instance, instruction,
 * the event history, the submitted patch in `test_result.git_patch`, metadata and metrics.
 */
export function toOpenHandsOutputLine(t: Trajectory): string {
  const line = {
    instance_id: t.task.instanceId ?? '',
    test_result: { git_patch: t.outcome.submission ?? '' },
    instruction: t.meta.instructions ?? t.task.problemStatement ?? '',
    metadata: {
      agent_class: AGENT_CLASS,
      llm_config: { model: t.meta.model ?? 'unknown' },
      max_iterations: t.steps.length,
      // EvalMetadata's free-form `details`: the scaffold that made the run, so another family's run reopens as itself.
      ...(t.meta.scaffold ? { details: { scaffold: t.meta.scaffold } } : {}),
    },
    history: openHandsEvents(t),
    metrics: defined({ accumulated_cost: t.outcome.modelStats?.instanceCost }),
    error: t.outcome.error ?? null,
    instance: {
      instance_id: t.task.instanceId ?? '',
      repo: t.task.repo ?? '',
      base_commit: t.task.baseCommit ?? '',
      problem_statement: t.task.problemStatement ?? '',
    },
  };
  return JSON.stringify(line) + '\n';
}
