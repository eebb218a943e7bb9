import { readInputText } from '../../core/input/readInput';
import path from 'node:path';
import { z } from 'zod';
import { BUG_FILES } from '../../core/bugs/bugArtifact';
import { parseUnifiedDiff, reverseDiff, withoutTerminalLineEnds } from '../../core/diff/unifiedDiff';
import { InputError } from '../../core/errors';
import { readTaskInstance } from '../../core/reward/rewardFiles';
import { loadTrajectory } from '../../core/trajectory/load';
import type { PatchContent } from '../../protocol/patch';
import { patchSection } from '../../views/patchSides';

/**
 * What `sweWorkbench.patch.show` can open, by named field: diff text, a diff file, a step's
 * diff, a trajectory's submission beside its gold patch, or a bug folder's two diffs. `repo`
 * names the repository the patch applies to, so the diff editor can show whole files.
 */
export const PatchSourceSchema = z.union([
  z.strictObject({ diff: z.string(), title: z.string().optional(), repo: z.string().optional() }),
  z.strictObject({ file: z.string().min(1), repo: z.string().optional() }),
  z.strictObject({ trajectory: z.string().min(1), step: z.number().int().nonnegative(), repo: z.string().optional() }),
  z.strictObject({
    trajectory: z.string().min(1),
    /** For a JSONL file: which record (0-based). */
    record: z.number().int().nonnegative().optional(),
    instance: z.string().min(1),
    instanceId: z.string().optional(),
    /** SWE-smith instances hold the bug as `patch`: the gold fix is its reverse. */
    gold: z.enum(['patch', 'reverse-patch']).optional(),
    repo: z.string().optional(),
  }),
  z.strictObject({ bug: z.string().min(1), repo: z.string().optional() }),
]);
export type PatchSource = z.infer<typeof PatchSourceSchema>;

async function readText(file: string): Promise<string> {
  return (await readInputText(file)).text;
}

export async function loadPatchContent(source: PatchSource, signal?: AbortSignal): Promise<PatchContent> {
  if ('diff' in source)
    return { title: source.title ?? 'Patch', origin: 'diff text', sections: [patchSection('Patch', source.diff, source.title ?? 'the patch')] };
  if ('file' in source)
    return { title: path.basename(source.file), origin: source.file, sections: [patchSection('Patch', await readText(source.file), source.file)] };
  if ('bug' in source) {
    const read = async (name: string) => patchSection(name, await readText(path.join(source.bug, name)), path.join(source.bug, name));
    return {
      title: `Bug ${path.basename(source.bug)}`,
      origin: source.bug,
      sections: [await read(BUG_FILES.bugInjectDiff), await read(BUG_FILES.testWeakenDiff)],
    };
  }
  const { trajectory } = await loadTrajectory(source.trajectory, {
    signal,
    ...('record' in source && source.record !== undefined ? { record: source.record } : {}),
  });
  const name = path.basename(source.trajectory);
  if ('step' in source) {
    const step = trajectory.steps.find((s) => s.index === source.step);
    if (!step) throw new InputError(source.trajectory, undefined, `no step ${source.step + 1}: the trajectory has steps 1 to ${trajectory.steps.length}`);
    return {
      title: `${name}: step ${source.step + 1}`,
      origin: source.trajectory,
      sections: [patchSection('Diff', step.state?.diff, `step ${source.step + 1}`)],
    };
  }
  const instance = await readTaskInstance(source.instance, source.instanceId ?? trajectory.task.instanceId);
  const gold =
    instance.patch === undefined || source.gold !== 'reverse-patch' ? instance.patch : reverseDiff(parseUnifiedDiff(instance.patch, source.instance));
  return {
    title: `${name}: submission and gold patch`,
    origin: `${source.trajectory} + ${source.instance} (${instance.instance_id})`,
    sections: [
      patchSection('Submission', trajectory.outcome.submission === undefined ? undefined : withoutTerminalLineEnds(trajectory.outcome.submission), name),
      patchSection('Gold patch', gold, `${source.instance} (${instance.instance_id})`),
    ],
  };
}
