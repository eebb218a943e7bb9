import * as path from 'node:path';
import * as vscode from 'vscode';
import { jsonlLines } from '../../core/rollouts/jsonlLines';
import type { Rollout } from '../../core/rollouts/record';
import { loadTrajectory } from '../../core/trajectory/load';
import { withRecord } from '../trajectory/trajectoryDocument';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { entryStep, type EntryStep } from './entryStep';

export interface OpenedRollout extends EntryStep {
  uri: vscode.Uri;
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

/** Opens a rollout's trajectory in the stepper on the step that matters (see entryStep). */
export async function openRollout(root: string, rollout: Rollout, editor: TrajectoryEditorApi): Promise<OpenedRollout> {
  const file = path.join(root, ...rollout.path.split('/'));
  const record = rollout.line === undefined ? undefined : await recordAtLine(file, rollout.line);
  const loaded = await loadTrajectory(file, record === undefined ? {} : { record });
  const entry = entryStep(loaded.trajectory, rollout.evidence.step);
  const uri = record === undefined ? vscode.Uri.file(file) : withRecord(vscode.Uri.file(file), record);
  await editor.openAtStep(uri, entry.index);
  return { uri, ...entry };
}
