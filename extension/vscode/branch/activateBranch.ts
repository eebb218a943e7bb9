/**
 * Branch values in VS Code (core/branch): the command Branch From Steps, which runs a branch run
 * on the open trajectory into the folder beside it (`branchFolderOf`) with its progress in a
 * cancellable notification, the Branches view, and the stepper's value strip refreshed after.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { branchFolderOf, branchSteps, BranchStepsError, runBranches, type BranchRunResult } from '../../core/branch/branchRun';
import { defined } from '../../core/defined';
import { readTaskFile, runRequest } from '../../core/branch/taskFile';
import { loadTrajectory } from '../../core/trajectory/load';
import { branchProgressText } from '../../views/branchView';
import { command, parseArgument, registerCommands, whileNotCancelled, type Glue } from '../commands';
import { readApiKey, readSettings, sandboxSettings, SECTION } from '../settings';
import type { TrajectoryEditorApi } from '../trajectory/trajectoryEditor';
import { BranchTreeProvider, continuationFile, type BranchNode } from './branchTree';

const RUN_COMMAND = 'sweWorkbench.branch.run';

/** The command's named fields (a command link, a test); what is not given comes from the settings or is asked. */
const BranchArgsSchema = z.strictObject({
  trajectory: z.string().optional(),
  task: z.string().optional(),
  steps: z.string().optional(),
  samples: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  maxSteps: z.number().int().positive().optional(),
  temperature: z.number().nonnegative().optional(),
  seed: z.number().int().optional(),
});

interface BranchArgs {
  recording: string;
  task: string;
  steps: string;
  samples: number;
  concurrency: number;
  maxSteps: number | undefined;
  temperature: number | undefined;
  seed: number | undefined;
}

/** What the command returns: the folder it wrote and the run's result. */
interface BranchRunShown {
  folder: string;
  result: BranchRunResult;
}

/** The Branches feature's parts, for the extension's tests. */
export interface BranchApi {
  readonly tree: BranchTreeProvider;
}

/** `sweWorkbench.branch.*` settings: the CLI's options' defaults. */
function branchSettings(): { samples: number; concurrency: number; maxSteps: number | undefined; temperature: number; seed: number | undefined } {
  const c = vscode.workspace.getConfiguration(SECTION);
  const positive = (key: string, fallback: number) => {
    const v = c.get<unknown>(key);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new Error(`setting ${SECTION}.${key} must be a whole number of at least 1, got ${JSON.stringify(v)}`);
    return v;
  };
  const maxSteps = c.get<number | null>('branch.maxSteps');
  const seed = c.get<number | null>('branch.seed');
  return {
    samples: positive('branch.samples', 8),
    concurrency: positive('branch.concurrency', 2),
    maxSteps: typeof maxSteps === 'number' ? maxSteps : undefined,
    temperature: c.get<number>('branch.temperature') ?? 1,
    seed: typeof seed === 'number' ? seed : undefined,
  };
}

/** The command's arguments: the fields given, else the focused stepper's trajectory, the task file beside it or asked, the steps asked. */
async function branchArgs(editor: TrajectoryEditorApi, raw: unknown): Promise<BranchArgs | undefined> {
  const given = parseArgument(BranchArgsSchema, raw instanceof vscode.Uri ? { trajectory: raw.fsPath } : raw, RUN_COMMAND);
  const recording = given.trajectory ?? (editor.activeUri()?.scheme === 'file' ? editor.activeUri()!.fsPath : undefined);
  if (!recording) throw new Error('open a trajectory in the stepper first (Branch From Steps runs on the trajectory shown)');
  const settings = branchSettings();
  const beside = path.join(path.dirname(recording), 'task.json');
  const task =
    given.task ??
    (
      await vscode.window.showOpenDialog({
        title: `Task file of ${path.basename(recording)} (swe-workbench run's TASK.json: image, repository, test command)`,
        openLabel: 'Use this task',
        canSelectMany: false,
        filters: { 'Task file': ['json'] },
        defaultUri: vscode.Uri.file(existsSync(beside) ? beside : path.dirname(recording)),
      })
    )?.[0]?.fsPath;
  if (!task) return undefined;
  const steps =
    given.steps ??
    (await vscode.window.showInputBox({
      title: 'Branch from which states?',
      prompt: 'all, a list (1,3,5), a range (2-4), or both; after step t, counted from 1 (0: the task start)',
      value: 'all',
      ignoreFocusOut: true,
    }));
  if (steps === undefined) return undefined;
  return {
    recording,
    task,
    steps,
    samples: given.samples ?? settings.samples,
    concurrency: given.concurrency ?? settings.concurrency,
    maxSteps: given.maxSteps ?? settings.maxSteps,
    temperature: given.temperature ?? settings.temperature,
    seed: given.seed ?? settings.seed,
  };
}

/** Runs the branch run `args` asks for into the folder beside the recording, its progress in a cancellable notification; then the view and the stepper show it. */
async function runBranchCommand(glue: Glue, editor: TrajectoryEditorApi, tree: BranchTreeProvider, args: BranchArgs): Promise<BranchRunShown> {
  if (!vscode.workspace.isTrusted) throw new Error('a branch run starts containers, so it needs a trusted workspace');
  const settings = readSettings();
  const { trajectory } = await loadTrajectory(args.recording);
  let steps: number[];
  try {
    steps = branchSteps(args.steps, trajectory, args.recording);
  } catch (err) {
    if (err instanceof BranchStepsError) throw new Error(`steps: ${err.message}`);
    throw err;
  }
  const task = await readTaskFile(args.task);
  const base = runRequest(task, args.task, { fork: { trajectory, ref: args.recording, at: 0 } });
  const apiKey = await readApiKey(glue.context.secrets);
  const folder = branchFolderOf(args.recording);
  const recordingUri = vscode.Uri.file(args.recording);
  const refresh = async () => {
    await tree.add(args.recording);
    await editor.branchesChanged(recordingUri);
  };
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `SWE Workbench: branching ${path.basename(args.recording)}`, cancellable: true },
      (progress, token) =>
        whileNotCancelled(token, 'branch run cancelled', (signal) =>
          runBranches({
            request: { ...base, recording: { trajectory, ref: args.recording } },
            steps,
            samples: args.samples,
            concurrency: args.concurrency,
            policy: {
              baseUrl: settings.policy.url,
              ...defined({ model: settings.policy.model || undefined, apiKey }),
              sampling: defined({ temperature: args.temperature, seed: args.seed }),
            },
            out: folder,
            signal,
            onProgress: (p) => progress.report({ message: branchProgressText(p) }),
            ...defined({ maxSteps: args.maxSteps, ...sandboxSettings(settings) }),
          }),
        ),
    );
    return { folder, result };
  } finally {
    // What finished is in the folder, a cancelled run's too.
    await refresh();
  }
}

/** Adds to the view each stepper tab's recording that has a branch run beside it and is not shown yet. */
function showBranched(tree: BranchTreeProvider, tabs: readonly vscode.Tab[]): void {
  for (const tab of tabs) {
    const uri = tab.input instanceof vscode.TabInputCustom ? tab.input.uri : undefined;
    if (uri?.scheme !== 'file' || tree.shows(uri.fsPath)) continue;
    void BranchTreeProvider.hasRun(uri.fsPath).then((has) => (has ? tree.add(uri.fsPath) : undefined));
  }
}

export function activateBranch(glue: Glue, editor: TrajectoryEditorApi): { disposables: vscode.Disposable[]; api: BranchApi } {
  const tree = new BranchTreeProvider();
  const run = (args: BranchArgs) => runBranchCommand(glue, editor, tree, args);
  const continuationOf = (node: unknown): Extract<BranchNode, { kind: 'continuation' }> => {
    if (typeof node === 'object' && node !== null && (node as BranchNode).kind === 'continuation') return node as Extract<BranchNode, { kind: 'continuation' }>;
    throw new Error('choose a continuation in the Branches view');
  };
  showBranched(
    tree,
    vscode.window.tabGroups.all.flatMap((g) => g.tabs),
  );
  const disposables = [
    tree,
    vscode.window.registerTreeDataProvider('sweWorkbench.branches', tree),
    // A recording open in the stepper with a branch run beside it shows in the view: those opened
    // later, and those open already (the stepper that activated the extension opened before it listened).
    vscode.window.tabGroups.onDidChangeTabs(({ opened, changed }) => showBranched(tree, [...opened, ...changed])),
    ...registerCommands(glue, [
      command({ id: RUN_COMMAND, title: 'branch from steps', args: (raw: unknown) => branchArgs(editor, raw), run }),
      command({ id: 'sweWorkbench.branch.refresh', title: 'refresh the branches', run: () => tree.refresh() }),
      command({
        id: 'sweWorkbench.branch.openContinuation',
        title: 'open the continuation',
        args: continuationOf,
        // On its first step of its own: the one after the branch point.
        run: (node) => editor.openAtStep(vscode.Uri.file(continuationFile(node)), node.afterStep),
      }),
      command({
        id: 'sweWorkbench.branch.compareWithRecording',
        title: 'compare the continuation with the recording',
        args: continuationOf,
        // From the branch point: the shared prefix folded, the rows after it aligned from there.
        run: (node) =>
          vscode.commands.executeCommand('sweWorkbench.compare.open', {
            runs: [vscode.Uri.file(node.recording), vscode.Uri.file(continuationFile(node))],
            afterStep: node.afterStep,
          }),
      }),
    ]),
  ];
  return { disposables, api: { tree } };
}
