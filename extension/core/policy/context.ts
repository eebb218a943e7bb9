/**
 * The chat history a policy sees before its next step, rebuilt from the steps so far: the full
 * history by default, or with SWE-agent's `last_n_observations` window, which folds older
 * observations to one line to keep long episodes inside the context.
 */
import type { Step } from '../trajectory/model';
import type { ChatMessage } from './policyClient';

export interface ContextOptions {
  /**
   * How the model writes its action, by the scaffold's name for it, which decides how a step's
   * reply is put back: `function_calling` as native tool calls, `thought_action` in a ``` block
   * after the thought, any other as written after the thought.
   */
  replyFormat: string;
  systemPrompt: string;
  /** The first user message: the task as the agent reads it. */
  instructions: string;
  /** Keep this many most recent observations whole; older ones are folded. Default: keep all. */
  observationWindow?: number;
  /** How an observation is worded to the model; `{observation}` is replaced. */
  observationTemplate?: string;
  /** How a step's reply is shown back to the model, when the scaffold words it its own way (mini-swe-agent's fenced block). */
  assistantText?: (step: Step) => string;
}

export const DEFAULT_OBSERVATION_TEMPLATE = 'OBSERVATION:\n{observation}';

/** SWE-agent's wording for a folded observation. */
function foldedObservation(observation: string): string {
  return `Old environment output: (${observation.split('\n').length} lines omitted)`;
}

export function buildMessages(steps: readonly Step[], options: ContextOptions): ChatMessage[] {
  // A scaffold without a system prompt (Terminus-2) starts the chat with the user's message.
  const messages: ChatMessage[] = [
    ...(options.systemPrompt === '' ? [] : [{ role: 'system' as const, content: options.systemPrompt }]),
    { role: 'user', content: options.instructions },
  ];
  const keepFrom = options.observationWindow === undefined ? 0 : steps.length - options.observationWindow;
  const template = options.observationTemplate ?? DEFAULT_OBSERVATION_TEMPLATE;
  for (const [i, step] of steps.entries()) {
    const observation = step.formatError === undefined && i < keepFrom ? foldedObservation(step.observation) : step.observation;
    const text = template.replace('{observation}', () => observation);
    const call = nativeCall(step, options.replyFormat);
    if (call && step.calls && step.calls.length > 1) {
      // One reply that made several calls: one assistant message with all of them, then each result in call order.
      const calls = step.calls.map((c, k) => nativeCall({ ...step, action: c.action, index: step.index }, options.replyFormat, k) ?? call);
      messages.push({ role: 'assistant', content: step.thought || null, tool_calls: calls });
      for (const [k, c] of calls.entries()) {
        const result = step.calls[k]!.observation;
        messages.push({ role: 'tool', tool_call_id: c.id, content: template.replace('{observation}', () => result) });
      }
    } else if (call) {
      messages.push({ role: 'assistant', content: step.thought || null, tool_calls: [call] });
      messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    } else {
      messages.push({ role: 'assistant', content: options.assistantText ? options.assistantText(step) : assistantText(step, options.replyFormat) });
      messages.push({ role: 'user', content: step.formatError === undefined ? text : step.observation });
    }
  }
  return messages;
}

function nativeCall(step: Step, replyFormat: string, k = 0) {
  if (replyFormat !== 'function_calling' || step.formatError !== undefined || !step.action.tool) return undefined;
  const id = step.action.toolCallId ?? (k === 0 ? `call_${step.index}` : `call_${step.index}_${k}`);
  return { id, type: 'function' as const, function: { name: step.action.tool, arguments: argumentsOf(step) } };
}

/**
 * The arguments as the model wrote them when the step kept that text (a live step), else the
 * parsed arguments as JSON (an imported step keeps the command line as its raw text).
 */
function argumentsOf(step: Step): string {
  const raw = step.action.raw.trim();
  if (raw.startsWith('{')) {
    try {
      if (typeof JSON.parse(raw) === 'object') return step.action.raw;
    } catch {
      // not JSON: fall through to the parsed arguments
    }
  }
  return JSON.stringify(step.action.args);
}

/** The assistant's words as the model wrote them, the action put back where its reply format keeps it. */
function assistantText(step: Step, replyFormat: string): string {
  if (!step.action.raw) return step.thought;
  if (replyFormat === 'thought_action') return `${step.thought.trimEnd()}\n\n\`\`\`\n${step.action.raw}\n\`\`\`\n`;
  return `${step.thought.trimEnd()}\n\n${step.action.raw}`;
}
