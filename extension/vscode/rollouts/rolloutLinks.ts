import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Rollout } from '../../core/rollouts/record';
import { goldPatches } from '../../core/rollouts/recipeEvidence';
import type { PatchShown } from '../patch/activatePatch';
import type { RewardShown } from '../reward/activateReward';
import { configuredPath } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { withRecord } from '../trajectory/trajectoryDocument';
import { openRollout, type OpenedRollout } from './openRollout';
import { InstanceCatalog, patchSourceOf, rewardSourcesOf, rolloutFile } from './rolloutEvidence';
import type { RolloutsSource } from './rolloutFolder';

/** The setting naming the task instances, whose lists grade a rollout's test output and whose gold patches SWE-RL reads. */
const INSTANCES_SETTING = 'rollouts.instances';

/**
 * From an indexed rollout to the other views: the stepper at its entry step, its reward
 * breakdown, its patch, the compare view of its group. The rollout is named by its id in the
 * index the source holds now.
 */
export class RolloutLinks {
  private catalog: InstanceCatalog | undefined;

  constructor(
    private readonly source: RolloutsSource,
    private readonly editor: TrajectoryEditorApi,
  ) {}

  open(id: string): Promise<OpenedRollout> {
    const { root, rollout } = this.located(id);
    return openRollout(root, rollout, this.editor);
  }

  async showReward(id: string, recipe?: string): Promise<RewardShown | undefined> {
    const { root, rollout } = this.located(id);
    const sources = await rewardSourcesOf(root, rollout, this.instances());
    return vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.reward.show', recipe ? { ...sources, recipe } : sources);
  }

  async showPatch(id: string): Promise<PatchShown | undefined> {
    const { root, rollout } = this.located(id);
    return vscode.commands.executeCommand<PatchShown | undefined>('sweWorkbench.patch.show', await patchSourceOf(root, rollout, this.instances()));
  }

  /** The trajectories of the rollout's instance, each as the stepper opens it, in the compare view. */
  async compareGroup(id: string): Promise<unknown> {
    const { root, rollout } = this.located(id);
    const group = (this.source.index?.rollouts ?? []).filter((r) => r.instance === rollout.instance);
    if (group.length < 2) throw new Error(`${rollout.instance} has only this rollout: there is nothing to compare it with`);
    const uris = await Promise.all(
      group.map(async (r) => {
        const { file, record } = await rolloutFile(root, r);
        return record === undefined ? vscode.Uri.file(file) : withRecord(vscode.Uri.file(file), record);
      }),
    );
    return vscode.commands.executeCommand('sweWorkbench.compare.open', uris);
  }

  /** The gold patches of the configured instances, for SWE-RL; undefined when none are configured. */
  async goldPatches(): Promise<Map<string, string> | undefined> {
    const file = configuredPath(INSTANCES_SETTING);
    return file ? goldPatches(file) : undefined;
  }

  /** Where an export named in the table goes: a relative name is under the first workspace folder. */
  exportTarget(file: string): string {
    return path.resolve(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? this.source.folder ?? '.', file);
  }

  private located(id: string): { root: string; rollout: Rollout } {
    const rollout = this.source.rollout(id);
    const root = this.source.index?.root;
    if (!rollout || !root) throw new Error(`no rollout ${id} in the index`);
    return { root, rollout };
  }

  /** The configured instances, read again only when the setting names another file. */
  private instances(): InstanceCatalog | undefined {
    const file = configuredPath(INSTANCES_SETTING);
    if (this.catalog?.file !== file) this.catalog = file ? new InstanceCatalog(file) : undefined;
    return this.catalog;
  }
}
