import type { TrajectoryFormat } from './model';
import { describeJsonType } from './inputSchema';
import { trajectoryFormats } from './formatRegistry';
import { CHAT_ROLES, firstObject, has, isObject, isRllmStepList, RLLM_STEP_KEYS, type Json } from './fingerprints';
import './formats';

/** Messages with a role each, some of them not a chat role: what a refusal names. */
function foreignRoles(list: unknown[]): string[] | undefined {
  if (list.length === 0 || !list.every((m) => isObject(m) && typeof m.role === 'string')) return undefined;
  const unknown = [...new Set(list.map((m) => (m as Json).role as string))].filter((r) => !CHAT_ROLES.has(r));
  return unknown.length > 0 ? unknown : undefined;
}

/** The trajectory format a parsed JSON value is in (the first registered fingerprint that matches), or undefined when it is none of them. */
export function detectFormat(value: unknown): TrajectoryFormat | undefined {
  const fingerprints = trajectoryFormats()
    .flatMap((format) => format.fingerprints.map((fingerprint) => ({ format: format.name, fingerprint })))
    .sort((a, b) => a.fingerprint.rank - b.fingerprint.rank);
  return fingerprints.find(({ fingerprint }) => fingerprint.matches(value))?.format;
}

/** Why a value that is almost a trajectory is not one: the closest format and what it lacks. */
export interface NearMiss {
  closest: TrajectoryFormat;
  missing: string;
}

/** The format a refused value came closest to, for the error that refuses it. */
export function nearestFormat(value: unknown): NearMiss | undefined {
  const owner = isObject(value) ? trajectoryFormats().find((f) => f.messagesKey !== undefined && Array.isArray(value[f.messagesKey])) : undefined;
  const list = Array.isArray(value)
    ? value
    : owner && isObject(value)
      ? (value[owner.messagesKey!] as unknown[])
      : isObject(value) && Array.isArray(value.messages)
        ? value.messages
        : undefined;
  const roles = list && foreignRoles(list);
  if (roles) {
    const closest: TrajectoryFormat = owner ? owner.name : 'openai-messages';
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
