import { z } from 'zod';
import { parseInput } from '../trajectory/inputSchema';
import type { Evaluation } from './record';

/**
 * Harbor writes one folder per trial, `jobs/<job>/<trial>/`, holding `result.json` (the
 * trial's outcome), `config.json`, `agent/trajectory.json` (ATIF) and `verifier/` (reward
 * file, test output). The job folder holds its own `config.json` and `result.json` (totals).
 * The trial's result is its evaluation: the verifier's rewards, the agent, and any exception.
 */

const RewardSchema = z.union([z.number(), z.boolean()]).transform((v) => Number(v));

const HarborTrialSchema = z.object({
  task_name: z.string(),
  trial_name: z.string(),
  agent_info: z
    .object({
      name: z.string(),
      version: z.string().nullish(),
      model_info: z.object({ name: z.string(), provider: z.string().nullish() }).nullish(),
    })
    .nullish(),
  verifier_result: z.object({ rewards: z.record(z.string(), RewardSchema).nullish() }).nullish(),
  exception_info: z
    .object({
      exception_type: z.string(),
      exception_message: z.string().nullish(),
    })
    .nullish(),
});

/** A trial's `result.json`: it names its trial and its task. */
export function isHarborTrialResult(fileName: string, v: Record<string, unknown>): boolean {
  return fileName === 'result.json' && 'trial_name' in v && 'task_name' in v;
}

/**
 * The other JSON files of a Harbor job: the job's totals and configuration, a trial's
 * configuration, and the verifier's reward file (whose rewards the trial's result repeats).
 * They hold no trajectory.
 */
export function isHarborSideFile(fileName: string, v: Record<string, unknown>): boolean {
  if (fileName === 'result.json') return 'n_total_trials' in v && 'stats' in v;
  if (fileName === 'config.json') return ('agent' in v && ('task' in v || 'trial_name' in v)) || ('agents' in v && 'orchestrator' in v);
  return fileName === 'reward.json' && Object.values(v).every((x) => typeof x === 'number');
}

/**
 * The trial's evaluation. The reward is the verifier's `reward` (or its only reward); a trial
 * with no verifier result is not graded, never reward 0. An exception the trial recorded is
 * why it failed: in the verifier, an evaluation error; elsewhere (agent, environment), an
 * infrastructure failure, with the exception's type and message as the evidence.
 */
export function harborTrialEvaluation(value: unknown, file: string): Evaluation {
  const t = parseInput(HarborTrialSchema, value, file);
  const e: Evaluation = { instanceId: t.task_name, file, source: 'harbor-trial', failingTests: [] };
  const rewards = t.verifier_result?.rewards ?? undefined;
  const reward = rewards ? (rewards.reward ?? (Object.keys(rewards).length === 1 ? Object.values(rewards)[0] : undefined)) : undefined;
  if (reward !== undefined) {
    e.reward = reward;
    e.resolved = reward > 0;
  }
  const agent = t.agent_info;
  if (agent) {
    const model = agent.model_info ? ` (${[agent.model_info.provider, agent.model_info.name].filter(Boolean).join('/')})` : '';
    e.agent = `${agent.name}${agent.version ? `@${agent.version}` : ''}${model}`;
  }
  const ex = t.exception_info;
  if (ex) {
    e.error = `${ex.exception_type}${ex.exception_message ? `: ${ex.exception_message}` : ''}`;
    if (!/Verifier|Reward/.test(ex.exception_type)) e.infra = true;
  }
  return e;
}
