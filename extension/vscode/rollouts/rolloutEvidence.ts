import { stat } from 'node:fs/promises';
import path from 'node:path';
import { withoutTerminalLineEnds } from '../../core/diff/unifiedDiff';
import { InputError } from '../../core/errors';
import { type TaskInstance } from '../../core/reward/instance';
import { readTaskInstances } from '../../core/reward/rewardFiles';
import { jsonlLines } from '../../core/rollouts/jsonlLines';
import type { Rollout } from '../../core/rollouts/record';
import { runEvidence } from '../../core/rollouts/recipeRun';
import { loadTrajectory } from '../../core/trajectory/load';
import type { RewardSources } from '../../protocol/reward';
import type { PatchSource } from '../patch/patchSources';

/** Where a rollout's trajectory is: its file and, for JSONL, the 0-based record the loader reads. */
export interface RolloutFile {
  file: string;
  record: number | undefined;
}

/** Which JSONL record (0-based, blank lines skipped as the loader skips them) a 1-based line holds. */
async function recordAtLine(file: string, line: number): Promise<number> {
  let record = 0;
  for await (const l of jsonlLines(file, 0, 1)) {
    if (l.line >= line) break;
    if (l.text.trim() !== '') record++;
  }
  return record;
}

/** The 1-based line of a JSONL file's 0-based record (blank lines skipped as the loader skips them); undefined past its end. */
async function lineOfRecord(file: string, record: number): Promise<number | undefined> {
  let seen = 0;
  for await (const l of jsonlLines(file, 0, 1)) {
    if (l.text.trim() === '') continue;
    if (seen++ === record) return l.line;
  }
  return undefined;
}

/** The indexed rollout a trajectory file (and, for JSONL, its 0-based record) is, if it is one of the folder's. */
export async function rolloutAt(root: string, rollouts: readonly Rollout[], file: string, record: number | undefined): Promise<Rollout | undefined> {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const rows = rollouts.filter((r) => r.path === relative.split(path.sep).join('/'));
  if (rows.length === 0) return undefined;
  if (record === undefined) return rows.find((r) => r.line === undefined);
  const line = await lineOfRecord(file, record);
  return line === undefined ? undefined : rows.find((r) => r.line === line);
}

export async function rolloutFile(root: string, rollout: Rollout): Promise<RolloutFile> {
  const file = path.join(root, ...rollout.path.split('/'));
  return { file, record: rollout.line === undefined ? undefined : await recordAtLine(file, rollout.line) };
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** SWE-bench and SWE-smith write each instance's raw test output beside its report.json. */
const TEST_OUTPUT_FILE = 'test_output.txt';

/**
 * Everything the index knows that grades a rollout: its trajectory (its own reward, R2E-Gym's
 * test output), its report (an instance's report.json with the test output beside it, or a run
 * report naming it), and the task instance when a dataset holding it is configured.
 */
export async function rewardSourcesOf(root: string, rollout: Rollout, instances: InstanceCatalog | undefined): Promise<RewardSources> {
  const { file, record } = await rolloutFile(root, rollout);
  const sources: RewardSources = {
    trajectory: file,
    instanceId: rollout.instance,
    title: `Reward: ${rollout.instance} #${rollout.attempt}`,
    run: runEvidence(rollout),
  };
  if (record !== undefined) sources.record = record;
  if (rollout.evaluation) {
    sources.report = path.join(root, ...rollout.evaluation.file.split('/'));
    const beside = path.join(path.dirname(sources.report), TEST_OUTPUT_FILE);
    if (rollout.evaluation.source === 'instance-report' && (await isFile(beside))) sources.testOutput = beside;
  }
  if (instances && (await instances.find(rollout.instance))) sources.instance = instances.file;
  return sources;
}

/**
 * A rollout's submission, beside the gold patch when the configured dataset holds its instance.
 * SWE-smith instances (an image name, no test patch) hold the bug as `patch`: the fix is its reverse.
 */
export async function patchSourceOf(root: string, rollout: Rollout, instances: InstanceCatalog | undefined): Promise<PatchSource> {
  const { file, record } = await rolloutFile(root, rollout);
  const instance = await instances?.find(rollout.instance);
  if (instances && instance) {
    const sweSmith = instance.image_name !== undefined && instance.test_patch === undefined;
    return {
      trajectory: file,
      ...(record === undefined ? {} : { record }),
      instance: instances.file,
      instanceId: rollout.instance,
      gold: sweSmith ? 'reverse-patch' : 'patch',
    };
  }
  const { trajectory } = await loadTrajectory(file, record === undefined ? {} : { record });
  return { diff: withoutTerminalLineEnds(trajectory.outcome.submission ?? ''), title: `Submission of ${rollout.id}` };
}

/** A task-instance dataset, read once and again only when the file changes. */
export class InstanceCatalog {
  private cache: { mtime: number; byId: Map<string, TaskInstance> } | undefined;

  constructor(readonly file: string) {}

  async find(instanceId: string): Promise<TaskInstance | undefined> {
    const { mtimeMs } = await stat(this.file).catch(() => {
      throw new InputError(this.file, undefined, 'the task instances named by sweWorkbench.rollouts.instances: file not found');
    });
    if (this.cache?.mtime !== mtimeMs) this.cache = { mtime: mtimeMs, byId: new Map((await readTaskInstances(this.file)).map((i) => [i.instance_id, i])) };
    return this.cache.byId.get(instanceId);
  }
}
