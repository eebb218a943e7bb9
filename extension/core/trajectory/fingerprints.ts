/** The shapes fingerprints (`formatRegistry.ts`) recognise a parsed trajectory file by, shared by every format's. */

export type Json = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The first object in a list, or undefined when `list` is not a list or holds none. */
export function firstObject(list: unknown): Json | undefined {
  return Array.isArray(list) ? list.find(isObject) : undefined;
}

/** Whether the object has every one of the keys. */
export const has = (o: Json, ...keys: string[]) => keys.every((k) => k in o);

/** The chat roles the scaffolds write (OpenAI's, plus mini-swe-agent's `exit`). */
export const CHAT_ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function', 'exit']);

/** A non-empty list of messages, each with a chat role: what every chat format's fingerprint starts from. */
export function isMessageList(list: unknown[]): boolean {
  return list.length > 0 && list.every((m) => isObject(m) && typeof m.role === 'string' && CHAT_ROLES.has(m.role));
}

/** The fields an rLLM step holds; a `steps` list whose items have none of them is something else (a build's steps). */
export const RLLM_STEP_KEYS = ['action', 'observation', 'model_response', 'thought', 'chat_completions', 'response_ids', 'done', 'info', 'reward'] as const;

/** Steps that each hold an rLLM step's field. */
export function isRllmStepList(steps: unknown[]): boolean {
  return steps.every((s) => isObject(s) && RLLM_STEP_KEYS.some((k) => k in s));
}
