/**
 * What the session commands read from their arguments (a stepper's step, a Session view row, an
 * explorer file) and, when the argument does not say, ask the person.
 */
import * as path from 'node:path';
import { tmpdir } from 'node:os';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { Breakpoint } from '../../core/session/breakpoints';
import { readSettings } from '../settings';
import type { RunningSession } from './sessionController';
import type { SessionNode } from './sessionTree';

/** A step of a trajectory file, as the stepper's buttons pass it: nothing is asked about either. */
const TrajectoryStepSchema = z.object({
  trajectory: z.custom<vscode.Uri>((v) => v instanceof vscode.Uri, 'expected a vscode.Uri'),
  step: z.number().int().nonnegative(),
});

export function trajectoryStepOf(argument: unknown): z.infer<typeof TrajectoryStepSchema> | undefined {
  const parsed = TrajectoryStepSchema.safeParse(argument);
  return parsed.success ? parsed.data : undefined;
}

/** The step (0-based) an argument names: a number, a stepper's step or a Session view row. */
export function stepIndexOf(argument: unknown): number | undefined {
  if (typeof argument === 'number') return argument;
  const target = trajectoryStepOf(argument);
  if (target) return target.step;
  const node = argument as SessionNode | undefined;
  return node?.kind === 'step' ? node.index : undefined;
}

/** The trajectory a command acts on: its argument (editor/title passes the file), the focused stepper, or a file asked for. */
export async function recordingUri(argument: unknown): Promise<vscode.Uri | undefined> {
  if (argument instanceof vscode.Uri) return argument;
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  if (input instanceof vscode.TabInputCustom) return input.uri;
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Replay', filters: { Trajectories: ['traj', 'json', 'jsonl'] } });
  return picked?.[0];
}

/** A 1-based step number from the person, returned 0-based. */
export async function askStep(title: string, suggested: number, max?: number): Promise<number | undefined> {
  const answer = await vscode.window.showInputBox({
    title,
    value: String(suggested),
    prompt: max ? `A step number from 1 to ${max}` : 'A step number (1 is the first step)',
    validateInput: (v) =>
      /^\d+$/.test(v) && Number(v) >= 1 && (!max || Number(v) <= max) ? undefined : max ? `Enter a number from 1 to ${max}` : 'Enter a step number from 1',
  });
  return answer === undefined ? undefined : Number(answer) - 1;
}

export async function chooseBreakpoint(session: RunningSession): Promise<Breakpoint | undefined> {
  const items: (vscode.QuickPickItem & { make: () => Promise<Breakpoint | undefined> })[] = [
    {
      label: 'At step…',
      description: 'stop before a step runs',
      make: async () => ((n) => (n === undefined ? undefined : { kind: 'step', index: n }))(await askStep('Break before step', session.index + 1)),
    },
    {
      label: 'Before a tool…',
      description: 'stop before the agent calls it',
      make: async () =>
        ((tool) => (tool ? { kind: 'tool', tool } : undefined))(
          await vscode.window.showQuickPick([...session.aci.tools.tools.keys()], { title: 'Break before the tool' }),
        ),
    },
    {
      label: 'Before an edit to a file…',
      make: async () =>
        ((p) => (p ? { kind: 'edit-file', path: p } : undefined))(
          await vscode.window.showInputBox({ title: 'Break before an edit to', prompt: 'A path in the repository, e.g. src/module.py' }),
        ),
    },
    { label: 'On a format error', description: 'an action the tools cannot read', make: async () => ({ kind: 'format-error' }) },
    { label: 'After a non-zero exit code', make: async () => ({ kind: 'exit-code' }) },
    { label: 'After a lint-rejected edit', make: async () => ({ kind: 'lint-rejected' }) },
    { label: 'After a divergence from the recording', make: async () => ({ kind: 'divergence' }) },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Add a breakpoint' });
  return picked?.make();
}

/** The policy URL was set by the person (the default alone is not a configured policy). */
function policyConfigured(): boolean {
  const url = vscode.workspace.getConfiguration('sweWorkbench').inspect<string>('policy.url');
  return [url?.globalValue, url?.workspaceValue, url?.workspaceFolderValue].some((v) => typeof v === 'string' && v.trim() !== '');
}

/**
 * Who gives a fork's actions after step `from` (0-based): the policy or the person. Choosing the
 * policy when none is configured opens its setting instead, and answers undefined.
 */
export async function askForkContinuation(from: number): Promise<'policy' | 'person' | undefined> {
  const configured = policyConfigured();
  const then = await vscode.window.showQuickPick(
    [
      {
        label: 'Continue with the policy',
        value: 'policy' as const,
        description: configured ? readSettings().policy.url : 'no policy server is configured: choose this to set sweWorkbench.policy.url',
      },
      { label: 'Continue by hand', value: 'person' as const, description: 'you type each action in the next-action editor' },
    ],
    { title: `Fork after step ${from + 1}` },
  );
  if (then?.value === 'policy' && !configured) {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'sweWorkbench.policy.url');
    return undefined;
  }
  return then?.value;
}

/** Where to save `session`'s trajectory: beside its recording, else in the workspace. */
export async function askSaveTarget(session: RunningSession): Promise<vscode.Uri | undefined> {
  const base = session.launch.recording ? path.dirname(session.launch.recording.uri.fsPath) : (vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? tmpdir());
  return vscode.window.showSaveDialog({
    defaultUri: vscode.Uri.file(path.join(base, 'session.traj')),
    filters: { 'SWE-agent trajectory': ['traj'], 'Canonical JSON': ['json'] },
  });
}
