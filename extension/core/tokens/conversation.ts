/**
 * The conversation as a trainer rebuilds it from a recording's text, up to each agent step:
 * the system prompt, the task, then each earlier step's reply and observation, worded as the
 * policy client words a history (`buildMessages`). Re-tokenizing it is what drift checks; the
 * tools' specs are not part of it (a recording does not keep them), so a function-calling
 * template that renders them shows drift at its tools section.
 */
import { buildMessages, type ContextOptions } from '../policy/context';
import type { ChatMessage } from '../policy/policyClient';
import type { Step, Trajectory } from '../trajectory/model';
import { messageRole } from '../trajectory/stepLabels';

/** A system or user message an importer kept as a step of its own (ATIF). */
function messageStep(step: Step): ChatMessage | undefined {
  const role = messageRole(step);
  return role ? { role, content: step.thought } : undefined;
}

export function isAgentStep(step: Step): boolean {
  return messageStep(step) === undefined;
}

/** Chat-native formats keep an observation as the tool's or user's message, with no wording around it. */
const CHAT_FORMATS: ReadonlySet<string> = new Set(['rllm', 'skyrl', 'openai-messages', 'atif']);

/** The recording's own reply format when it names one `buildMessages` words, else what its steps show. */
function replyFormat(trajectory: Trajectory): string {
  const declared = trajectory.meta.parseFunction;
  if (declared === 'function_calling' || declared === 'thought_action' || declared === 'xml_function_calling') return declared;
  return trajectory.steps.some((s) => s.action.toolCallId !== undefined) ? 'function_calling' : 'thought_action';
}

export type Conversation = { messages: ChatMessage[] } | { unknown: string };

/** The messages before each step of `trajectory` (by position in `steps`). */
export function conversations(trajectory: Trajectory): (position: number) => Conversation {
  const instructions = trajectory.meta.instructions ?? trajectory.task.problemStatement;
  const options: ContextOptions = {
    replyFormat: replyFormat(trajectory),
    systemPrompt: trajectory.meta.systemPrompt ?? '',
    instructions: instructions ?? '',
    ...(CHAT_FORMATS.has(trajectory.format) ? { observationTemplate: '{observation}' } : {}),
  };
  return (position) => {
    if (instructions === undefined) return { unknown: "the recording keeps neither the task's first message nor its problem statement" };
    const head = buildMessages([], options);
    const messages = head.filter((m) => !(m.role === 'system' && trajectory.meta.systemPrompt === undefined));
    for (const step of trajectory.steps.slice(0, position)) {
      const own = messageStep(step);
      // A step's own messages follow the head (system prompt, when there is one, and the task).
      messages.push(...(own ? [own] : buildMessages([step], options).slice(head.length)));
    }
    return { messages };
  };
}
