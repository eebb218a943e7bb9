import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { loadBugArtifact, saveBugArtifact } from '../../core/bugs/bugArtifact';
import { bugFromSandbox } from '../../core/bugs/bugFromSandbox';
import { CHECK_NAMES, type CheckResult } from '../../core/bugs/consistencyChecks';
import { validateLikeSweSmith } from '../../core/bugs/sweSmithValidation';
import type { ValidationLists } from '../../core/reward/validationLists';
import { ReadonlyDocuments } from '../patch/readonlyDocuments';
import { BugTestController } from './bugTestController';
import { BugEnvironments, bugSandboxFactory, requireTrust, type BugEnvironment } from './bugEnvironment';
import type { SessionChoices } from '../session/sessionChoices';
import type { RunningSession } from '../session/sessionController';
import { chooseCaptureSource } from './captureSource';
import type { BugFolder } from './bugFolders';
import { BugsTreeProvider, type BugsNode } from './bugsTree';
import { CheckResults, describeCheck } from './checkResults';
import { command, parseArgument, registerCommands, whileNotCancelled, type CommandSpec, type Glue } from '../commands';

const BUGS_VIEW = 'sweWorkbench.bugs';

/** What `sweWorkbench.bugs.refresh` returns, so callers in the extension host can read both views. */
interface BugsViewState {
  folders: BugFolder[];
  tree: vscode.TreeDataProvider<BugsNode>;
  tests: vscode.TestItemCollection;
}

const Where = { repo: z.string().min(1).optional(), image: z.string().min(1).optional() };
/** A bug folder named relative to the workspace folder is the same bug the views show by absolute path. */
const BugDir = z
  .string()
  .min(1)
  .transform((dir) => path.resolve(vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '', dir));
const RunChecksArgs = z.strictObject({ bug: BugDir, ...Where });
const CaptureArgs = z.strictObject({ target: z.string().min(1).optional(), from: z.enum(['session', 'container']).optional(), ...Where });
const ShowCheckArgs = z.strictObject({ bug: BugDir, check: z.enum(CHECK_NAMES) });

/** A tree node, an explorer URI or named fields all name a bug folder. */
function bugArgs(arg: unknown): unknown {
  if (arg instanceof vscode.Uri) return { bug: arg.fsPath };
  if (arg && typeof arg === 'object' && 'kind' in arg && (arg as BugsNode).kind === 'bug')
    return { bug: (arg as Extract<BugsNode, { kind: 'bug' }>).folder.dir };
  return arg;
}

/** What `sweWorkbench.bugs.validateSweSmith` answers: the verdict and the four test lists. */
type SweSmithVerdict = { valid: boolean } & ValidationLists;

/** A bug to run and where: named by the argument or picked, in a trusted workspace, its repository and image resolved. */
type BugRun = z.infer<typeof RunChecksArgs> & { env: BugEnvironment; name: string };

/** The Bugs view, its Testing controller and its commands. */
class BugsFeature {
  readonly results: CheckResults;
  readonly tree: BugsTreeProvider;
  readonly testing: BugTestController;
  private readonly evidence = new ReadonlyDocuments('sweworkbench-evidence');
  private readonly environments: BugEnvironments;

  constructor(
    private readonly glue: Glue,
    private readonly session: { current: () => RunningSession | undefined; choices: SessionChoices },
  ) {
    this.results = new CheckResults(glue.context.workspaceState);
    this.tree = new BugsTreeProvider(this.results);
    this.environments = new BugEnvironments(session.choices);
    this.testing = new BugTestController(this.results, () => this.tree.bugFolders(), this.environments);
  }

  disposables(): vscode.Disposable[] {
    const view = vscode.window.createTreeView(BUGS_VIEW, { treeDataProvider: this.tree, showCollapseAll: true });
    return [this.results, this.tree, view, this.testing, this.evidence];
  }

  /** The bug a checks or validation command is for; undefined when the person picked none or the workspace is not trusted. */
  private async bugRun(arg: unknown, command: string, what: string): Promise<BugRun | undefined> {
    const named = bugArgs(arg) ?? (await pickBug(this.tree));
    if (!named) return undefined;
    const args = parseArgument(RunChecksArgs, named, command);
    if (!requireTrust(what)) return undefined;
    const env = await this.environments.resolve(args);
    return env && { ...args, env, name: path.basename(args.bug) };
  }

  commands(): CommandSpec[] {
    return [
      command({ id: 'sweWorkbench.bugs.refresh', title: 'refresh the Bugs view', run: () => this.refresh() }),
      command({
        id: 'sweWorkbench.bugs.runChecks',
        title: (run: BugRun) => `run the checks of ${run.name}`,
        args: (arg) => this.bugRun(arg, 'sweWorkbench.bugs.runChecks', 'Running the checks'),
        run: (run) => this.runChecks(run),
      }),
      command({
        id: 'sweWorkbench.bugs.validateSweSmith',
        title: (run: BugRun) => `validate ${run.name} as SWE-smith does`,
        args: (arg) => this.bugRun(arg, 'sweWorkbench.bugs.validateSweSmith', 'Validating a bug'),
        run: (run) => this.validateSweSmith(run),
      }),
      command({
        id: 'sweWorkbench.bugs.capture',
        title: 'capture a bug',
        args: (arg) => parseArgument(CaptureArgs, arg, 'sweWorkbench.bugs.capture'),
        run: (args) => this.capture(args),
      }),
      command({
        id: 'sweWorkbench.bugs.showPatch',
        title: "show the bug's patch",
        args: (arg) => parseArgument(z.strictObject({ bug: z.string().min(1) }), bugArgs(arg), 'sweWorkbench.bugs.showPatch'),
        run: ({ bug }) => vscode.commands.executeCommand('sweWorkbench.patch.show', { bug }),
      }),
      command({
        id: 'sweWorkbench.bugs.showCheck',
        title: 'show a check',
        args: (arg) => parseArgument(ShowCheckArgs, arg, 'sweWorkbench.bugs.showCheck'),
        run: (args) => this.showCheck(args),
      }),
    ];
  }

  /** Both views read again; the answer lets callers in the extension host read them. */
  private async refresh(): Promise<BugsViewState> {
    const folders = await this.tree.refresh();
    await this.testing.sync();
    return { folders, tree: this.tree, tests: this.testing.controller.items };
  }

  private async runChecks(run: BugRun): Promise<CheckResult[] | undefined> {
    if (this.testing.isRunning(run.bug)) {
      void vscode.window.showInformationMessage(`SWE Workbench: the checks of ${run.name} are already running.`);
      return undefined;
    }
    const checks = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Checking bug ${run.name}`, cancellable: true },
      (progress, token) => {
        progress.report({ message: 'starting containers' });
        return this.testing.runChecks(run.bug, run.env, {
          token,
          onCheck: (r) => progress.report({ message: `${r.name} ${r.passed ? 'passed' : 'failed'}`, increment: 100 / CHECK_NAMES.length }),
        });
      },
    );
    const failed = checks.filter((c) => !c.passed);
    const summary =
      failed.length === 0
        ? `Bug ${run.name}: all ${checks.length} checks pass.`
        : `Bug ${run.name}: ${failed.length} of ${checks.length} checks fail (${failed.map((c) => c.name).join(', ')}).`;
    void (failed.length === 0 ? vscode.window.showInformationMessage(summary) : vscode.window.showWarningMessage(summary));
    return checks;
  }

  /** SWE-smith's validation of a bug (reference run, then the bug; nothing weakened), in one container. */
  private async validateSweSmith(run: BugRun): Promise<SweSmithVerdict> {
    const bug = await loadBugArtifact(run.bug);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Validating bug ${run.name} as SWE-smith does`, cancellable: true },
      (_progress, token) =>
        whileNotCancelled(token, 'the validation was cancelled', async (signal) => {
          const sandbox = await bugSandboxFactory(run.env, 'swe-smith')(signal);
          try {
            return await validateLikeSweSmith(sandbox, bug, { signal });
          } finally {
            await sandbox.dispose();
          }
        }),
    );
    const { lists } = result;
    const summary = `Bug ${run.name} is ${result.valid ? '' : 'NOT '}a valid SWE-smith task: ${lists.FAIL_TO_PASS.length} FAIL_TO_PASS, ${lists.PASS_TO_PASS.length} PASS_TO_PASS.`;
    this.glue.log.info(`${summary} FAIL_TO_PASS: ${lists.FAIL_TO_PASS.join(', ') || 'none'}`);
    void (result.valid ? vscode.window.showInformationMessage(`SWE Workbench: ${summary}`) : vscode.window.showWarningMessage(`SWE Workbench: ${summary}`));
    return { valid: result.valid, ...lists };
  }

  private async capture(args: z.infer<typeof CaptureArgs>): Promise<string | undefined> {
    if (!requireTrust('Capturing a bug')) return undefined;
    const source = await chooseCaptureSource(this.session.current, this.environments, args);
    if (!source) return undefined;
    const target = args.target ?? (await askTarget(source.root));
    if (!target) return undefined;
    const bug = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: source.title, cancellable: true },
      (_progress, token) =>
        whileNotCancelled(token, 'the capture was cancelled', async (signal) => {
          const { sandbox, release } = await source.open(signal);
          try {
            return await bugFromSandbox(sandbox, { excludeSavedBugs: true, signal });
          } finally {
            await release();
          }
        }),
    );
    await saveBugArtifact(target, bug);
    await this.tree.refresh();
    void vscode.window.showInformationMessage(`SWE Workbench: bug saved to ${vscode.workspace.asRelativePath(target)}.`);
    return target;
  }

  private async showCheck(args: z.infer<typeof ShowCheckArgs>) {
    const result = this.results.get(args.bug).find((r) => r.name === args.check);
    if (!result) return undefined;
    const uri = this.evidence.add(path.basename(args.bug), `${result.name}.md`, describeCheck(result, true));
    return vscode.window.showTextDocument(uri, { preview: true });
  }
}

/** The Bugs view runs in the session's containers' settings and captures from its running session. */
export function activateBugs(glue: Glue, session: { current: () => RunningSession | undefined; choices: SessionChoices }): vscode.Disposable[] {
  const bugs = new BugsFeature(glue, session);
  return [...bugs.disposables(), ...registerCommands(glue, bugs.commands())];
}

async function pickBug(tree: BugsTreeProvider): Promise<{ bug: string } | undefined> {
  const folders = (await tree.bugFolders()).filter((f) => f.missing.length === 0);
  const picked = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: path.basename(f.dir), description: vscode.workspace.asRelativePath(f.dir), dir: f.dir })),
    { title: 'Check which bug?' },
  );
  return picked ? { bug: picked.dir } : undefined;
}

/** Asks for the new bug's folder; warns, before it is too late, that an existing bug would be replaced. */
async function askTarget(root: string): Promise<string | undefined> {
  const name = await vscode.window.showInputBox({
    title: 'New bug folder',
    prompt: `Relative to ${root}`,
    value: `bug-${new Date().toISOString().slice(0, 10)}`,
    ignoreFocusOut: true,
    validateInput: (value) => {
      if (!value.trim()) return 'Name a folder for the bug.';
      const dir = path.resolve(root, value.trim());
      return existsSync(dir) && readdirSync(dir).length > 0
        ? { message: `${value.trim()} exists: capturing replaces this folder and everything in it.`, severity: vscode.InputBoxValidationSeverity.Warning }
        : undefined;
    },
  });
  return name?.trim() ? path.resolve(root, name.trim()) : undefined;
}
