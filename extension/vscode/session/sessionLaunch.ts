import type * as vscode from 'vscode';
import type { Breakpoint } from '../../core/session/breakpoints';
import type { LaunchRequest } from '../../core/session/launcher';
import type { Trajectory } from '../../core/trajectory/model';

/** What the session commands ask for: a mode, a recording, an image and a host folder. */
export interface SessionLaunch {
  /** `replay`: the recording's actions; `live`: the policy's; `fork`: the recording's up to `at`, then `then`. */
  mode: 'replay' | 'live' | 'fork';
  recording?: { trajectory: Trajectory; uri: vscode.Uri };
  /** Fork: steps 0..at-1 come from the recording. */
  at?: number;
  /** Fork: who gives the actions after the recording's. */
  then?: 'policy' | 'person';
  image: string;
  /** Host folder copied into the container. */
  repoDir: string;
  repoPath: string;
  /** Live run without a recording: the task told to the policy. */
  problemStatement?: string;
  breakpoints?: Breakpoint[];
  maxSteps?: number;
}

/** The launcher's request for a launch (no VS Code needed, so tests compare it with the CLI's). */
export function launchRequest(launch: SessionLaunch): LaunchRequest {
  return {
    mode: launch.mode,
    ...(launch.recording ? { recording: { trajectory: launch.recording.trajectory, ref: launch.recording.uri.fsPath } } : {}),
    ...(launch.mode !== 'replay' && launch.at !== undefined ? { at: launch.at } : {}),
    ...(launch.mode === 'fork' && launch.then ? { by: launch.then } : {}),
    image: launch.image,
    repoDir: launch.repoDir,
    repoPath: launch.repoPath,
    ...(launch.problemStatement !== undefined ? { task: { problemStatement: launch.problemStatement } } : {}),
    ...(launch.breakpoints ? { breakpoints: launch.breakpoints } : {}),
    ...(launch.maxSteps ? { maxSteps: launch.maxSteps } : {}),
  };
}
