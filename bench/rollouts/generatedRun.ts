import {
  miniSweAgentTraj,
  patchFor,
  predsJson,
  r2eGymRecord,
  runReport,
  sweAgentTraj,
  workSteps,
  writeJson,
  writeJsonl,
} from '../../test/fixtures/rollouts/runWriter';

/** Deterministic spread of sizes: the same run every time. */
function spread(i: number, a: number, min: number, span: number): number {
  return min + ((i * 7919 + a * 104729) % span);
}

/**
 * `full`: files the size real ones are (about 250 KB a rollout); `light`: the same formats and
 * layout with 3-12 short steps and no model inputs (about 5 KB a rollout), so a run of 100,000
 * rollouts fits a disk and measures what grows with the number of rollouts, not with their size.
 */
export type RunSize = 'full' | 'light';

/**
 * A training run as the benchmark indexes it: `instances` x `attempts` rollouts; attempts 1-4
 * SWE-agent `.traj` (1-2 in the 1.0.x style with the model input in every step: the megabyte
 * files), 5-7 mini-swe-agent `.traj.json`, 8-10 one R2E-Gym JSONL file each; preds and a run
 * report beside the SWE-agent and mini-swe-agent attempts.
 */
export function writeGeneratedRun(root: string, instances: number, attempts: number, size: RunSize = 'full'): void {
  const patch = patchFor('src/widgets/resize.py');
  const light = size === 'light';
  for (let a = 1; a <= attempts; a++) {
    const ids = Array.from({ length: instances }, (_, i) => `acme__widgets-${1000 + i}`);
    const resolved = ids.filter((_, i) => (i + a) % 3 === 0);
    const r2e: unknown[] = [];
    ids.forEach((instance, i) => {
      const steps = light ? workSteps(spread(i, a, 3, 10), 2) : workSteps(spread(i, a, 8, 52), spread(i, a, 10, 40));
      const spec = { instance, steps, exit: 'submitted', patch, cost: 0.3, tokensSent: 40000, tokensReceived: 1500 };
      if (a <= 4) writeJson(root, `attempt_${a}/${instance}/${instance}.traj`, sweAgentTraj({ ...spec, withQueries: !light && a <= 2 }));
      else if (a <= 7) writeJson(root, `attempt_${a}/${instance}/${instance}.traj.json`, miniSweAgentTraj({ ...spec, exit: 'Submitted' }));
      else r2e.push(r2eGymRecord({ ...spec, exit: 'agent', reward: resolved.includes(instance) ? 1 : 0 }));
    });
    if (r2e.length > 0) writeJsonl(root, `attempt_${a}/deepswe.jsonl`, r2e);
    else {
      writeJson(root, `attempt_${a}/preds.json`, predsJson(ids.map((instance) => ({ instance, patch }))));
      writeJson(root, `attempt_${a}/acme-coder-7b.attempt_${a}.json`, runReport({ resolved, unresolved: ids.filter((id) => !resolved.includes(id)) }));
    }
  }
}
