import * as vscode from 'vscode';
import { createSandbox } from '../../core/runtime/createSandbox';
import type { Sandbox } from '../../core/runtime/sandbox';
import { readSettings, sandboxSettings } from '../settings';
import type { SessionChoices } from '../session/sessionChoices';

/** Every container the Bugs view starts carries this label, so leftovers can be found. */
const BUG_CONTAINER_LABEL = 'swe-workbench.vscode';

/** Where bug checks and captures run: the repository copied into containers of an image. */
export interface BugEnvironment {
  repo: string;
  image: string;
  repoPath: string;
}

/**
 * Containers only, never the local fallback: bug scripts are code from the artifact, and run
 * only behind the container's limits with the network cut.
 */
export function bugSandboxFactory(env: BugEnvironment, purpose: string): (signal?: AbortSignal) => Promise<Sandbox> {
  const { limits, docker } = sandboxSettings(readSettings());
  return async (signal) =>
    (
      await createSandbox({
        image: env.image,
        repoDir: env.repo,
        repoPath: env.repoPath,
        limits,
        labels: { [BUG_CONTAINER_LABEL]: purpose },
        docker,
        prefer: 'docker',
        signal,
      })
    ).sandbox;
}

/**
 * The repository and image a bug command runs on: the ones the command names, else the session's
 * remembered or configured ones, asked once (never the first of several workspace folders silently).
 */
export class BugEnvironments {
  constructor(private readonly choices: SessionChoices) {}

  async resolve(given: { repo?: string; image?: string }): Promise<BugEnvironment | undefined> {
    const repo = given.repo ?? (await this.choices.repository({ key: 'bugs', purpose: 'the repository the bug belongs to' }));
    if (!repo) {
      void vscode.window.showErrorMessage('SWE Workbench: choose the repository the bug belongs to (or set sweWorkbench.session.repository).');
      return undefined;
    }
    const image = given.image || (await this.choices.image());
    return image ? { repo, image, repoPath: '/testbed' } : undefined;
  }
}

/** Scripts of a bug run only in a trusted workspace; says so when it is not. */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window
    .showWarningMessage(
      `SWE Workbench: ${what} runs the bug's scripts in a container, which needs a trusted workspace. Trust this folder to continue.`,
      'Manage Workspace Trust',
    )
    .then((choice) => choice && vscode.commands.executeCommand('workbench.trust.manage'));
  return false;
}
