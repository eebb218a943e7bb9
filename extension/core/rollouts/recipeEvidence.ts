/**
 * What a recipe compares that the rollout index does not keep: submitted patches read again from
 * their files, and the gold patches of a task-instance file. Apart from recipeRun.ts, which is
 * pure, so the presenters can use its types without Node.
 */
import { readTaskInstances } from '../reward/rewardFiles';
import type { Rollout } from './record';
import { forEachRolloutText } from './rolloutTexts';
import { importRolloutTrajectory } from './trajectoryImport';

/**
 * What SWE-RL compares, per rollout: its submitted patch (read again from its file: the index
 * keeps only its length) and its instance's gold patch. Only the rollouts whose instance has a
 * gold patch are read.
 */
export async function patchExtras(
  root: string,
  rollouts: readonly Rollout[],
  golds: ReadonlyMap<string, string>,
  signal?: AbortSignal,
): Promise<(r: Rollout) => { patch?: string; gold?: string }> {
  const patches = new Map<string, string>();
  await forEachRolloutText(
    root,
    rollouts.filter((r) => golds.has(r.instance)),
    (text, r) => {
      const submission = importRolloutTrajectory(JSON.parse(text), r.path, r.line).outcome.submission;
      if (submission !== undefined) patches.set(r.id, submission);
    },
    signal ? { signal } : {},
  );
  return (r) => {
    const gold = golds.get(r.instance);
    const patch = patches.get(r.id);
    return { ...(gold !== undefined ? { gold } : {}), ...(patch !== undefined ? { patch } : {}) };
  };
}

/** The gold patches of a task-instance file (SWE-bench / SWE-smith `patch`), by instance id. */
export async function goldPatches(instancesFile: string): Promise<Map<string, string>> {
  return new Map((await readTaskInstances(instancesFile)).flatMap((i) => (i.patch ? [[i.instance_id, i.patch] as const] : [])));
}
