import * as vscode from 'vscode';
import type { Rollout } from '../../core/rollouts/record';
import { loadTrajectory } from '../../core/trajectory/load';
import { withRecord } from '../trajectory/trajectoryDocument';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { entryStep, type EntryStep } from '../../views/entryStep';
import { rolloutFile } from './rolloutEvidence';

export interface OpenedRollout extends EntryStep {
  uri: vscode.Uri;
}

/** Opens a rollout's trajectory in the stepper on the step that matters (see entryStep). */
export async function openRollout(root: string, rollout: Rollout, editor: TrajectoryEditorApi): Promise<OpenedRollout> {
  const { file, record } = await rolloutFile(root, rollout);
  const loaded = await loadTrajectory(file, record === undefined ? {} : { record });
  const entry = entryStep(loaded.trajectory, rollout.evidence.step);
  const uri = record === undefined ? vscode.Uri.file(file) : withRecord(vscode.Uri.file(file), record);
  await editor.openAtStep(uri, entry.index);
  return { uri, ...entry };
}
