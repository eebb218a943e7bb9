import type * as vscode from 'vscode';
import { replaySettings } from '../../extension/core/session/containerSession';
import type { SessionLaunch } from '../../extension/vscode/session/sessionLaunch';
import { loadRecording } from '../../extension/vscode/session/sessionStarter';

/**
 * The launch of the recording `uri` with the image and repository a person would have chosen
 * (the session commands ask for them), as plain data for `SessionApi.start` or the controller.
 */
export async function recordedLaunch(
  mode: SessionLaunch['mode'],
  uri: vscode.Uri,
  chosen: { image: string; repoDir: string; at?: number; then?: 'policy' | 'person' },
): Promise<SessionLaunch> {
  const recording = await loadRecording(uri);
  return {
    mode,
    recording,
    image: chosen.image,
    repoDir: chosen.repoDir,
    repoPath: replaySettings(recording.trajectory).repoPath ?? '/repo',
    ...(chosen.at !== undefined ? { at: chosen.at } : {}),
    ...(chosen.then ? { then: chosen.then } : {}),
  };
}
