import * as path from 'node:path';
import * as vscode from 'vscode';
import { replaySettings } from '../../core/session/containerSession';
import { MissingImageError, missingImageOf } from '../../core/runtime/images';
import { neededImageOf } from '../../core/runtime/neededImage';
import { recordingImage } from '../../core/scaffolds/registry';
import { loadTrajectory } from '../../core/trajectory/load';
import type { Trajectory } from '../../core/trajectory/model';
import { recordOf } from '../trajectory/trajectoryDocument';
import type { SessionChoices } from './sessionChoices';
import type { RunningSession, SessionController } from './sessionController';
import type { SessionLaunch } from './sessionLaunch';

type Recording = { trajectory: Trajectory; uri: vscode.Uri };

export async function loadRecording(uri: vscode.Uri): Promise<Recording> {
  return { trajectory: (await loadTrajectory(uri.fsPath, { record: recordOf(uri) })).trajectory, uri };
}

/**
 * How every session command gets its session: the launch asked of the person (image, repository,
 * task) and started, asking before a running session is stopped and offering a way forward when
 * the image is missing or lacks what the recording's tools need.
 */
export class SessionStarter {
  constructor(
    private readonly controller: SessionController,
    private readonly choices: SessionChoices,
  ) {}

  /** The launch for `mode` of the recording `uri` (none: a live run), asked once; undefined when the person declined a question. */
  async ask(mode: SessionLaunch['mode'], uri: vscode.Uri | undefined, fork?: { at: number; then: 'policy' | 'person' }): Promise<SessionLaunch | undefined> {
    if (!vscode.workspace.isTrusted) throw new Error('replays and live runs start containers, so they need a trusted workspace');
    const recording = uri ? await loadRecording(uri) : undefined;
    const image = await this.choices.image(recording?.trajectory.task.image);
    if (!image) return undefined;
    const repoDir = await this.choices.repository({ ...(uri ? { key: uri.toString() } : {}), ...(recording ? { task: recording.trajectory.task } : {}) });
    if (!repoDir) return undefined;
    const repoPath = (recording && replaySettings(recording.trajectory).repoPath) ?? '/repo';
    let problemStatement: string | undefined;
    if (mode === 'live' && !recording?.trajectory.task.problemStatement) {
      problemStatement = await vscode.window.showInputBox({
        title: 'Task for the agent',
        prompt: 'The problem statement the policy is given',
        ignoreFocusOut: true,
      });
      if (!problemStatement) return undefined;
    }
    return { mode, image, repoDir, repoPath, ...(recording ? { recording } : {}), ...(fork ?? {}), ...(problemStatement ? { problemStatement } : {}) };
  }

  /**
   * Starts `first` as the commands do (`verb` names the command: "Replay", "Fork"): asks before
   * stopping a running session, and offers choices when the image is missing. Undefined when the
   * person declined.
   */
  async start(first: SessionLaunch, verb: string): Promise<RunningSession | undefined> {
    const running = this.controller.current;
    if (running?.inProgress && !(await this.choices.prompts.confirmStop(running.title, verb))) return undefined;
    let launch = first;
    for (const tried = new Set<string>(); ;) {
      try {
        // Asked first, so no "starting a container" notification shows for an image that is not there.
        if (await this.choices.imageMissing(launch.image)) throw new MissingImageError(launch.image);
        return await this.startWithProgress(launch);
      } catch (error) {
        const what = launch.recording ? `${verb === 'Fork' ? 'a fork of' : 'a replay of'} ${path.basename(launch.recording.uri.fsPath)}` : 'the session';
        // Tools on an image without what they need (R2E-Gym's, its interpreter): the way forward is the image that has it.
        const needed = neededImageOf(error);
        if (needed && !tried.has(`needs:${launch.image}`)) {
          tried.add(`needs:${launch.image}`);
          const instead = await this.choices.replaceForNeededImage(launch.image, what, needed, launch.recording?.trajectory.task.image);
          if (!instead) return undefined;
          launch = { ...launch, image: instead };
          continue;
        }
        const missing = missingImageOf(error);
        if (!missing || tried.has(missing.image)) throw error;
        tried.add(missing.image);
        const instead = await this.choices.replaceMissingImage(missing.image, what, launch.recording && recordingImage(launch.recording.trajectory));
        if (!instead) return undefined;
        launch = { ...launch, image: instead };
      }
    }
  }

  private startWithProgress(launch: SessionLaunch): Thenable<RunningSession> {
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SWE Workbench: starting a container of ${launch.image}`, cancellable: true },
      (_, token) => this.controller.start(launch, token),
    );
  }
}
