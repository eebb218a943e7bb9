import { InputError } from '../errors';
import type { ToolSet } from '../aci/toolRegistry';
import type { Trajectory, TrajectoryMeta } from '../trajectory/model';
import { RecordingSource, type ActionSource } from './actionSources';

/**
 * A fork at `at`: steps 0..at-1 replayed from the recording, then `live` takes over. The new
 * trajectory's `meta.parent` names the recording and the last step taken from it.
 */
export function forkOf(
  recording: Trajectory,
  recordingRef: string,
  at: number,
  tools: ToolSet,
  live: ActionSource,
): { sources: ActionSource[]; parent: NonNullable<TrajectoryMeta['parent']> } {
  if (!Number.isInteger(at) || at < 0 || at > recording.steps.length) {
    throw new InputError(
      recordingRef,
      undefined,
      `cannot fork at step ${at}: the recording has ${recording.steps.length} steps (fork at 0..${recording.steps.length})`,
    );
  }
  return {
    sources: [new RecordingSource(recording.steps, tools, at), live],
    parent: { id: recording.meta.id ?? recordingRef, forkStep: at - 1 },
  };
}
