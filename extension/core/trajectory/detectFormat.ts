import type { TrajectoryFormat } from './model';
import { describeJsonType } from './inputSchema';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function firstObject(list: unknown): Json | undefined {
  return Array.isArray(list) ? list.find(isObject) : undefined;
}

const has = (o: Json, ...keys: string[]) => keys.every((k) => k in o);

/** OpenHands events carry an id, a source and either an action or an observation. */
function isEventList(list: unknown[]): boolean {
  const first = firstObject(list);
  return !!first && has(first, 'id', 'source') && ('action' in first || 'observation' in first);
}

/** The chat roles the scaffolds write (OpenAI's, plus mini-swe-agent's `exit`). */
const CHAT_ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function', 'exit']);

function isMessageList(list: unknown[]): boolean {
  return list.length > 0 && list.every((m) => isObject(m) && typeof m.role === 'string' && CHAT_ROLES.has(m.role));
}

/** Messages with a role each, some of them not a chat role: what a refusal names. */
function foreignRoles(list: unknown[]): string[] | undefined {
  if (list.length === 0 || !list.every((m) => isObject(m) && typeof m.role === 'string')) return undefined;
  const unknown = [...new Set(list.map((m) => (m as Json).role as string))].filter((r) => !CHAT_ROLES.has(r));
  return unknown.length > 0 ? unknown : undefined;
}

/** The fields an rLLM step holds; a `steps` list whose items have none of them is something else (a build's steps). */
const RLLM_STEP_KEYS = ['action', 'observation', 'model_response', 'thought', 'chat_completions', 'response_ids', 'done', 'info', 'reward'] as const;

function isRllmStepList(steps: unknown[]): boolean {
  return steps.every((s) => isObject(s) && RLLM_STEP_KEYS.some((k) => k in s));
}

const FENCED_COMMAND = /```(?:bash|mswea_bash_command)[ \t]*\n/;

/** A bare message list is mini-swe-agent's legacy form when the assistant writes fenced commands and never calls tools. */
function messageListFormat(list: Json[]): TrajectoryFormat {
  const assistant = list.filter((m) => m.role === 'assistant');
  const callsTools = list.some((m) => m.role === 'tool' || (Array.isArray(m.tool_calls) && m.tool_calls.length > 0));
  const fenced = assistant.some((m) => typeof m.content === 'string' && FENCED_COMMAND.test(m.content));
  return !callsTools && fenced ? 'mini-swe-agent' : 'openai-messages';
}

/** ATIF names its version (`ATIF-v1.6`); Harbor's models let it be left out, so a session, an agent and steps say it too. */
const isAtif = (o: Json) =>
  (typeof o.schema_version === 'string' && o.schema_version.startsWith('ATIF-')) || (Array.isArray(o.steps) && isObject(o.agent) && 'session_id' in o);

function objectFormat(o: Json): TrajectoryFormat | undefined {
  if (isAtif(o)) return 'atif';
  if (typeof o.trajectory_format === 'string' && o.trajectory_format.startsWith('mini-swe-agent')) return 'mini-swe-agent';
  if (Array.isArray(o.trajectory_steps)) return 'r2e-gym';
  if (Array.isArray(o.history) && isEventList(o.history)) return 'openhands';
  if (Array.isArray(o.trajectory) || Array.isArray(o.attempts)) return 'swe-agent';
  if (Array.isArray(o.history) && isMessageList(o.history)) return 'swe-agent';
  if (
    Array.isArray(o.trajectories) &&
    isObject(firstObject(o.trajectories)) &&
    Array.isArray(firstObject(o.trajectories)!.steps) &&
    isRllmStepList(firstObject(o.trajectories)!.steps as unknown[])
  )
    return 'rllm';
  if (Array.isArray(o.steps) && isObject(o.task) && isObject(o.outcome) && isObject(o.meta)) return 'canonical';
  if (Array.isArray(o.steps) && ('uid' in o || 'reward' in o) && isRllmStepList(o.steps)) return 'rllm';
  if (Array.isArray(o.messages)) {
    if ('trajectory_id' in o || 'finish_reason' in o) return 'skyrl';
    if (isObject(o.info) && ('mini_version' in o.info || 'config' in o.info)) return 'mini-swe-agent';
    if (isMessageList(o.messages)) return 'openai-messages';
  }
  return undefined;
}

/** The trajectory format a parsed JSON value is in, or undefined when it is none of them. */
export function detectFormat(value: unknown): TrajectoryFormat | undefined {
  if (Array.isArray(value)) {
    if (isEventList(value)) return 'openhands';
    if (isMessageList(value)) return messageListFormat(value as Json[]);
    return undefined;
  }
  return isObject(value) ? objectFormat(value) : undefined;
}

/** Why a value that is almost a trajectory is not one: the closest format and what it lacks. */
export interface NearMiss {
  closest: TrajectoryFormat;
  missing: string;
}

/** The format a refused value came closest to, for the error that refuses it. */
export function nearestFormat(value: unknown): NearMiss | undefined {
  const list = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.history)
      ? value.history
      : isObject(value) && Array.isArray(value.messages)
        ? value.messages
        : undefined;
  const roles = list && foreignRoles(list);
  if (roles) {
    const closest: TrajectoryFormat = isObject(value) && Array.isArray(value.history) ? 'swe-agent' : 'openai-messages';
    return { closest, missing: `messages with chat roles (${[...CHAT_ROLES].join(', ')}); found role ${roles.map((r) => JSON.stringify(r)).join(', ')}` };
  }
  if (isObject(value)) {
    const steps = Array.isArray(value.steps)
      ? value.steps
      : Array.isArray(value.trajectories) && isObject(firstObject(value.trajectories))
        ? firstObject(value.trajectories)!.steps
        : undefined;
    if (Array.isArray(steps) && !isRllmStepList(steps)) {
      return { closest: 'rllm', missing: `steps holding any of ${RLLM_STEP_KEYS.join(', ')}; the first step has ${describeKeys(firstObject(steps))}` };
    }
  }
  return undefined;
}

function describeKeys(o: Json | undefined): string {
  if (!o) return 'no object';
  const keys = Object.keys(o);
  return keys.length === 0 ? 'no keys' : `keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;
}

const isSweBenchReport = (v: unknown) => isObject(v) && has(v, 'resolved') && ('tests_status' in v || 'patch_successfully_applied' in v);
const isInstance = (v: unknown) => isObject(v) && has(v, 'instance_id') && ('patch' in v || 'problem_statement' in v || 'FAIL_TO_PASS' in v);

/** What a JSON value that is not a trajectory looks like, for the error that rejects it. */
export function describeForeignJson(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return 'an empty JSON array';
    if (isInstance(value[0])) return `a list of ${value.length} SWE-bench task instances`;
    if (isObject(value[0]) && 'model_patch' in value[0]) return 'a list of predictions (instance_id, model_patch)';
    return `a JSON array of ${describeJsonType(value[0])}s`;
  }
  if (!isObject(value)) return `a JSON ${describeJsonType(value)}`;
  const values = Object.values(value);
  if (isSweBenchReport(value) || (values.length > 0 && values.every(isSweBenchReport))) return 'a SWE-bench evaluation report.json (per-instance test results)';
  if ('total_instances' in value || 'resolved_ids' in value || 'ids_resolved' in value) return 'a SWE-bench run report (instance counts and ids)';
  if ('FAIL_TO_PASS' in value && 'PASS_TO_PASS' in value && !('instance_id' in value)) return 'a SWE-smith validation report (test lists)';
  if (isInstance(value)) return 'a SWE-bench task instance';
  if ('model_patch' in value) return 'a prediction (instance_id, model_patch)';
  if (has(value, 'name', 'version') && ('dependencies' in value || 'scripts' in value || 'devDependencies' in value)) return 'an npm package.json';
  if ('compilerOptions' in value) return 'a tsconfig.json';
  const keys = Object.keys(value);
  if (keys.length === 0) return 'an empty JSON object';
  return `a JSON object with keys ${keys.slice(0, 6).join(', ')}${keys.length > 6 ? ', ...' : ''}`;
}
