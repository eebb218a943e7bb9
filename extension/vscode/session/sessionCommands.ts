import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeBreakpoint } from '../../core/session/breakpoints';
import { command, reportFailure, type CommandSpec, type Glue } from '../commands';
import { containerUri } from '../container/containerFileSystem';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import type { NextActionEditor } from './nextActionEditor';
import type { RunningSession, SessionController } from './sessionController';
import { askForkContinuation, askSaveTarget, askStep, chooseBreakpoint, recordingUri, stepIndexOf, trajectoryStepOf } from './sessionQuestions';
import { loadRecording, type SessionStarter } from './sessionStarter';
import type { SessionNode } from './sessionTree';

/** A trajectory a replay or fork acts on, and the step it was started from (a stepper's button), if any. */
interface Target {
  uri: vscode.Uri;
  step?: number;
}

const named = (target: Target) => path.basename(target.uri.fsPath);

/** The session's commands: start a replay, live run or fork, drive it, and show what it did. */
export class SessionCommands {
  constructor(
    private readonly glue: Glue,
    private readonly controller: SessionController,
    private readonly starter: SessionStarter,
    private readonly nextAction: NextActionEditor,
    private readonly trajectoryEditor: TrajectoryEditorApi,
  ) {}

  commands(): CommandSpec[] {
    const controller = this.controller;
    return [
      command({
        id: 'sweWorkbench.session.replay',
        title: (target: Target) => `replay ${named(target)}`,
        args: async (argument) => {
          const target = trajectoryStepOf(argument);
          const uri = target?.trajectory ?? (await recordingUri(argument));
          return uri && { uri, ...(target ? { step: target.step } : {}) };
        },
        run: (target) => this.replay(target),
      }),
      command({ id: 'sweWorkbench.session.runLive', title: 'start a live run', run: () => this.runLive() }),
      command({
        id: 'sweWorkbench.session.fork',
        title: (target: Target) => `fork ${named(target)}`,
        args: async (argument) => {
          const fromStepper = trajectoryStepOf(argument)?.trajectory ?? (argument instanceof vscode.Uri ? argument : undefined);
          const uri = fromStepper ?? controller.current?.launch.recording?.uri ?? (await recordingUri(undefined));
          const step = stepIndexOf(argument);
          return uri && { uri, ...(step !== undefined ? { step } : {}) };
        },
        run: (target) => this.fork(target),
      }),
      // Each answers nothing: what it did shows in the Session view, and a command's answer crosses to the workbench.
      command({ id: 'sweWorkbench.session.step', title: 'run the next step', run: async () => void (await controller.step()) }),
      command({ id: 'sweWorkbench.session.continue', title: 'continue the session', run: async () => void (await controller.continue()) }),
      command({ id: 'sweWorkbench.session.pause', title: 'pause the session', run: () => controller.pause() }),
      command({
        id: 'sweWorkbench.session.runTo',
        title: 'run to a step',
        run: async (argument) => {
          const index = stepIndexOf(argument) ?? (await askStep('Run until step', (controller.current?.index ?? 0) + 2));
          if (index !== undefined) await controller.runTo(index);
        },
      }),
      command({ id: 'sweWorkbench.session.addBreakpoint', title: 'add a breakpoint', run: (argument) => this.addBreakpoint(argument) }),
      command({
        id: 'sweWorkbench.session.removeBreakpoint',
        title: 'remove the breakpoint',
        run: (node?: SessionNode) => {
          if (node?.kind === 'breakpoint') controller.removeBreakpoint(node.index);
        },
      }),
      command({ id: 'sweWorkbench.session.editNext', title: 'open the next action', run: () => this.nextAction.open() }),
      command({ id: 'sweWorkbench.session.stop', title: 'stop the session', run: async () => void (await controller.stop()) }),
      command({ id: 'sweWorkbench.session.releaseSnapshots', title: 'remove the kept snapshots', run: async () => void (await controller.releaseSnapshots()) }),
      command({ id: 'sweWorkbench.session.save', title: 'save the session', run: () => this.save() }),
      command({
        id: 'sweWorkbench.session.openInStepper',
        title: 'open the session in the stepper',
        // The stepper follows the session from here: each step is shown as it is done.
        run: () => this.openStep((session) => Math.max(0, session.entries.length - 1), 'replay a trajectory or start a live run first'),
      }),
      command({ id: 'sweWorkbench.session.revealStep', title: 'show the step in the stepper', run: (index: number) => this.openStep(() => index) }),
      command({ id: 'sweWorkbench.container.addToWorkspace', title: "add the container's folder to the workspace", run: () => this.addToWorkspace() }),
    ];
  }

  private async replay(target: Target): Promise<void> {
    const launch = await this.starter.ask('replay', target.uri);
    if (!launch || !(await this.starter.start(launch, 'Replay'))) return;
    // From a stepper's step: replay up to and including that step, then pause.
    if (target.step !== undefined) await this.controller.runTo(target.step + 1);
    else await this.controller.continue();
  }

  private async runLive(): Promise<void> {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    const launch = await this.starter.ask('live', input instanceof vscode.TabInputCustom ? input.uri : undefined);
    if (!launch || !(await this.starter.start({ ...launch, mode: launch.recording ? 'fork' : 'live', at: 0, then: 'policy' }, 'Run Live'))) return;
    await this.controller.continue();
  }

  private async fork(target: Target): Promise<void> {
    const steps = (await loadRecording(target.uri)).trajectory.steps.length;
    const from = target.step ?? (await askStep('Fork after step (steps 1..N are replayed)', this.controller.current?.index ?? 1, steps));
    if (from === undefined) return;
    const then = await askForkContinuation(from);
    if (!then) return;
    const launch = await this.starter.ask('fork', target.uri, { at: from + 1, then });
    if (!launch || !(await this.starter.start(launch, 'Fork'))) return;
    const stop = await this.controller.runTo(from + 1);
    // By hand: the session asks for the first action at once (the next-action editor opens).
    if (then === 'person' && stop.reason === 'run-to')
      void this.controller.continue().catch((error: unknown) => void reportFailure(this.glue.log, `continue ${named(target)} by hand`, error));
  }

  private async addBreakpoint(argument: unknown): Promise<void> {
    const session = this.controller.current;
    if (!session) throw new Error('no session is running');
    const index = stepIndexOf(argument);
    const breakpoint = index !== undefined ? ({ kind: 'step', index } as const) : await chooseBreakpoint(session);
    if (!breakpoint) return;
    this.controller.addBreakpoint(breakpoint);
    this.glue.log.info(`breakpoint added: ${describeBreakpoint(breakpoint)}`);
  }

  private async save(): Promise<void> {
    const session = this.controller.current;
    if (!session) throw new Error('no session has run yet');
    const target = await askSaveTarget(session);
    if (!target) return;
    await this.controller.save(target);
    const open = await vscode.window.showInformationMessage(`SWE Workbench: saved ${path.basename(target.fsPath)}`, 'Open in Stepper');
    if (open) await vscode.commands.executeCommand('sweWorkbench.trajectory.open', target);
  }

  /** Opens the session's trajectory in the stepper on the step `index` picks (0-based), once the steps so far are on disk. */
  private async openStep(index: (session: RunningSession) => number, hint?: string): Promise<void> {
    const session = this.controller.current;
    if (!session) throw new Error(`no session has run yet${hint ? `: ${hint}` : ''}`);
    await session.trajectoryFile.settled();
    await this.trajectoryEditor.openAtStep(session.trajectoryUri, index(session));
  }

  private addToWorkspace(): void {
    const session = this.controller.current;
    if (!session || session.state === 'stopped') throw new Error('no session is running');
    const uri = containerUri(session.aci.sandbox, session.launch.repoPath);
    const count = vscode.workspace.workspaceFolders?.length ?? 0;
    vscode.workspace.updateWorkspaceFolders(count, 0, { uri, name: `${session.launch.repoPath} (container ${uri.authority})` });
  }
}
