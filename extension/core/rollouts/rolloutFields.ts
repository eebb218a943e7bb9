import { InputError } from '../errors';
import { FAILURE_CLASSES, type Rollout } from './record';

type FieldType = 'number' | 'string' | 'boolean' | 'list';

export interface Field {
  type: FieldType;
  get(r: Rollout): number | string | boolean | string[] | null | undefined;
  /** The values a string or list field may take, when the set is closed. */
  values?: readonly string[];
  help: string;
}

/** The fields a filter, a sort and the table know, by the names a person types. */
export const ROLLOUT_FIELDS: Record<string, Field> = {
  id: { type: 'string', get: (r) => r.id, help: 'path, or path:line for a JSONL record' },
  path: { type: 'string', get: (r) => r.path, help: 'file, relative to the indexed folder' },
  line: { type: 'number', get: (r) => r.line, help: 'JSONL line (1-based)' },
  instance: { type: 'string', get: (r) => r.instance, help: 'task instance id' },
  attempt: { type: 'number', get: (r) => r.attempt, help: 'attempt number within the instance, from 1' },
  format: { type: 'string', get: (r) => r.format, help: 'trajectory format' },
  agent: { type: 'string', get: (r) => r.evaluation?.agent, help: "the agent, name@version (model), from a Harbor trial's result" },
  steps: { type: 'number', get: (r) => r.steps, help: 'number of steps' },
  exit: { type: 'string', get: (r) => r.exitStatus, help: "the agent's exit status / finish reason" },
  resolved: { type: 'boolean', get: (r) => r.resolved, help: 'yes, no or none (not evaluated), as the table shows it; true and false too' },
  submitted: { type: 'boolean', get: (r) => r.submitted, help: 'a non-empty patch was submitted: yes or no (true, false)' },
  reward: { type: 'number', get: (r) => r.reward, help: "reward (the trajectory's own, else 1/0 from the evaluation)" },
  failure: { type: 'string', get: (r) => r.failure, values: FAILURE_CLASSES, help: 'failure class' },
  tag: { type: 'list', get: (r) => r.tags, values: FAILURE_CLASSES, help: 'any class whose rule matched' },
  test: { type: 'list', get: (r) => r.evidence.tests ?? [], help: 'a failing test' },
  evidence: { type: 'string', get: (r) => r.evidence.detail, help: 'why the class was chosen' },
  tokens: { type: 'number', get: (r) => r.tokens, help: 'tokens sent + received' },
  cost: { type: 'number', get: (r) => r.cost, help: 'model cost' },
  duration: { type: 'number', get: (r) => r.duration, help: 'seconds' },
  // From a re-score (`swe-workbench tokens DIR --save`): unknown for a rollout not re-scored.
  maxdiff: { type: 'number', get: (r) => r.mismatch?.maxAbsDiff, help: 'largest |logprob difference| of a re-scored token (tokens DIR --save)' },
  outside: { type: 'number', get: (r) => r.mismatch?.outside, help: 're-scored tokens whose ratio is outside the bounds' },
  kl: { type: 'number', get: (r) => r.mismatch?.kl, help: 'mean k3 estimate of KL(rollout || trainer) per re-scored token' },
  // From the recording's branch run (`swe-workbench branch`, RECORDING.branches/index.json).
  branched: { type: 'boolean', get: (r) => r.critical !== undefined, help: 'the recording was branched (swe-workbench branch): yes or no' },
  critical: {
    type: 'number',
    get: (r) => r.critical?.to,
    help: "the critical step (from 1) of the recording's branch run, where V fell most (the last step of a span); none when not branched or V never falls",
  },
  drift: {
    type: 'number',
    get: (r) => (r.mismatch?.firstDrift ? r.mismatch.firstDrift.step + 1 : undefined),
    help: 'the first agent step (from 1) whose re-tokenized prompt differs; none when none does or it was not re-scored',
  },
};

export function fieldNamed(name: string, where: string): Field {
  const field = ROLLOUT_FIELDS[name.toLowerCase()];
  if (!field) throw new InputError(undefined, where, `unknown field '${name}'; fields: ${Object.keys(ROLLOUT_FIELDS).join(', ')}`);
  return field;
}

/**
 * Sorts by a field, ascending; `-field` or `field:desc` sorts descending. Missing values go
 * last either way; ties keep path and line order.
 */
export function sortRollouts(rollouts: readonly Rollout[], spec: string): Rollout[] {
  const m = /^(-?)([a-z]+)(?::(asc|desc))?$/i.exec(spec.trim());
  if (!m) throw new InputError(undefined, 'sort', `expected FIELD, -FIELD or FIELD:desc, got '${spec}'`);
  const field = fieldNamed(m[2]!, 'sort');
  const sign = m[1] === '-' || m[3]?.toLowerCase() === 'desc' ? -1 : 1;
  const key = (r: Rollout) => {
    const v = field.get(r);
    return Array.isArray(v) ? v.join(',') : v;
  };
  return [...rollouts].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === y) return 0;
    if (x === undefined || x === null) return 1;
    if (y === undefined || y === null) return -1;
    return (x < y ? -1 : 1) * sign;
  });
}
