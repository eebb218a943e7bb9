import * as vscode from 'vscode';
import { bugDirIn } from '../../core/bugs/bugTestRun';
import type { Sandbox } from '../../core/runtime/sandbox';
import { bashQuote } from '../../core/runtime/shellSession';
import type { RunningSession } from '../session/sessionController';
import { bugSandboxFactory, type BugEnvironments } from './bugEnvironment';
import { bugsRoot } from './bugFolders';

/** Where a capture reads the working tree: the running session's container, or a fresh one of the repository. */
export type CaptureFrom = 'session' | 'container';

/** A sandbox to capture from, and how to let go of it afterwards. */
export interface CaptureSource {
  /** What the progress notification names. */
  title: string;
  /** The folder new bugs go under by default, outside the repository (bugsRoot). */
  root: string;
  open(signal: AbortSignal): Promise<{ sandbox: Sandbox; release(): Promise<void> }>;
}

function sessionSource(session: RunningSession): CaptureSource {
  const sandbox = session.aci.sandbox;
  return {
    title: `Capturing the working tree of ${session.title} as a bug`,
    root: bugsRoot(session.launch.repoDir),
    // The session keeps its container: the capture reads the tree through a scratch index and
    // removes its scratch files, which live beside the repository. A session stopped meanwhile
    // took them with its container; the capture's own error is the one to show.
    open: async () => ({ sandbox, release: async () => void (await sandbox.exec(`rm -rf ${bashQuote(bugDirIn(sandbox))}`).catch(() => undefined)) }),
  };
}

async function containerSource(environments: BugEnvironments, given: { repo?: string; image?: string }): Promise<CaptureSource | undefined> {
  const env = await environments.resolve(given);
  if (!env) return undefined;
  return {
    title: 'Capturing the working tree as a bug',
    root: bugsRoot(env.repo),
    open: async (signal) => {
      const sandbox = await bugSandboxFactory(env, 'bug-capture')(signal);
      return { sandbox, release: () => sandbox.dispose() };
    },
  };
}

/**
 * The session when one runs and the caller or the person picks it, else a fresh container of
 * the repository. Naming a repository or an image means a fresh container.
 */
export async function chooseCaptureSource(
  currentSession: () => RunningSession | undefined,
  environments: BugEnvironments,
  given: { from?: CaptureFrom; repo?: string; image?: string },
): Promise<CaptureSource | undefined> {
  const running = currentSession();
  const session = running && running.state !== 'stopped' ? running : undefined;
  if (given.from === 'session') {
    if (session) return sessionSource(session);
    void vscode.window.showErrorMessage(
      'SWE Workbench: no session is running to capture from. Start a replay or a live run, or capture from a fresh container.',
    );
    return undefined;
  }
  if (!session || given.from === 'container' || given.repo || given.image) return containerSource(environments, given);
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: '$(debug-alt) The running session',
        description: `${session.title}, container ${session.aci.sandbox.id.slice(0, 12)}, ${session.aci.sandbox.repoPath}`,
        from: 'session' as const,
      },
      { label: '$(package) A fresh container of the workspace', description: 'the repository as it is on disk', from: 'container' as const },
    ],
    { title: 'Capture which working tree?' },
  );
  if (!picked) return undefined;
  return picked.from === 'session' ? sessionSource(session) : containerSource(environments, given);
}
