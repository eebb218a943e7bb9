import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { loadBugArtifact, saveBugArtifact } from '../../core/bugs/bugArtifact';
import { bugFromSandbox } from '../../core/bugs/bugFromSandbox';
import { CHECK_NAMES, type CheckResult } from '../../core/bugs/consistencyChecks';
import { CancelledError, errorText } from '../../core/errors';
import { validateLikeSweSmith } from '../../core/bugs/sweSmithValidation';
import type { ValidationLists } from '../../core/reward/validationLists';
import { ReadonlyDocuments } from '../patch/readonlyDocuments';
import { BugTestController } from './bugTestController';
import { bugSandboxFactory, requireTrust, resolveBugEnvironment } from './bugEnvironment';
import type { RunningSession } from '../session/sessionController';
import { chooseCaptureSource } from './captureSource';
import type { BugFolder } from './bugFolders';
import { BugsTreeProvider, type BugsNode } from './bugsTree';
import { CheckResults, describeCheck } from './checkResults';
import { showBugFileError } from './inputErrorLocation';
import { describeZodError } from '../../core/errors';

const BUGS_VIEW = 'sweWorkbench.bugs';

/** What `sweWorkbench.bugs.refresh` returns, so callers in the extension host can read both views. @internal */
export interface BugsViewState {
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

function parseArgs<T>(schema: z.ZodType<T>, arg: unknown, command: string): T | undefined {
  const parsed = schema.safeParse(arg ?? {});
  if (parsed.success) return parsed.data;
  void vscode.window.showErrorMessage(`SWE Workbench: ${command}: ${describeZodError('argument', parsed.error)}`);
  return undefined;
}

/** A tree node, an explorer URI or named fields all name a bug folder. */
function bugArgs(arg: unknown): unknown {
  if (arg instanceof vscode.Uri) return { bug: arg.fsPath };
  if (arg && typeof arg === 'object' && 'kind' in arg && (arg as BugsNode).kind === 'bug')
    return { bug: (arg as Extract<BugsNode, { kind: 'bug' }>).folder.dir };
  return arg;
}

/** What `sweWorkbench.bugs.validateSweSmith` answers: the verdict and the four test lists. */
type SweSmithVerdict = { valid: boolean } & ValidationLists;

export function activateBugs(
  context: vscode.ExtensionContext,
  log: vscode.LogOutputChannel,
  currentSession: () => RunningSession | undefined,
): vscode.Disposable[] {
  const results = new CheckResults(context.workspaceState);
  const tree = new BugsTreeProvider(results);
  const view = vscode.window.createTreeView(BUGS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  const testing = new BugTestController(results, () => tree.bugFolders());
  const evidence = new ReadonlyDocuments('sweworkbench-evidence');

  const runChecks = async (arg: unknown): Promise<CheckResult[] | undefined> => {
    const args = parseArgs(RunChecksArgs, bugArgs(arg) ?? (await pickBug(tree)), 'sweWorkbench.bugs.runChecks');
    if (!args || !requireTrust('Running the checks')) return undefined;
    const env = await resolveBugEnvironment(args);
    if (!env) return undefined;
    const name = path.basename(args.bug);
    if (testing.isRunning(args.bug)) {
      void vscode.window.showInformationMessage(`SWE Workbench: the checks of ${name} are already running.`);
      return undefined;
    }
    try {
      const checks = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Checking bug ${name}`, cancellable: true },
        (progress, token) => {
          progress.report({ message: 'starting containers' });
          return testing.runChecks(args.bug, env, {
            token,
            onCheck: (r) => progress.report({ message: `${r.name} ${r.passed ? 'passed' : 'failed'}`, increment: 100 / CHECK_NAMES.length }),
          });
        },
      );
      const failed = checks.filter((c) => !c.passed);
      const summary =
        failed.length === 0
          ? `Bug ${name}: all ${checks.length} checks pass.`
          : `Bug ${name}: ${failed.length} of ${checks.length} checks fail (${failed.map((c) => c.name).join(', ')}).`;
      void (failed.length === 0 ? vscode.window.showInformationMessage(summary) : vscode.window.showWarningMessage(summary));
      return checks;
    } catch (error) {
      if (error instanceof CancelledError) {
        void vscode.window.showInformationMessage(`SWE Workbench: the checks of ${name} were cancelled; their containers are removed.`);
        return undefined;
      }
      log.error(`the checks of ${args.bug} stopped`, error);
      void showBugFileError(`SWE Workbench: the checks of ${name} stopped: ${errorText(error)}`, error);
      return undefined;
    }
  };

  /** SWE-smith's validation of a bug (reference run, then the bug; nothing weakened), in one container. */
  const validateSweSmith = async (arg: unknown): Promise<SweSmithVerdict | undefined> => {
    const args = parseArgs(RunChecksArgs, bugArgs(arg) ?? (await pickBug(tree)), 'sweWorkbench.bugs.validateSweSmith');
    if (!args || !requireTrust('Validating a bug')) return undefined;
    const env = await resolveBugEnvironment(args);
    if (!env) return undefined;
    const name = path.basename(args.bug);
    try {
      const bug = await loadBugArtifact(args.bug);
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Validating bug ${name} as SWE-smith does`, cancellable: true },
        async (_progress, token) => {
          const abort = new AbortController();
          const cancel = token.onCancellationRequested(() => abort.abort('the validation was cancelled'));
          const sandbox = await bugSandboxFactory(env, 'swe-smith')(abort.signal);
          try {
            return await validateLikeSweSmith(sandbox, bug, { signal: abort.signal });
          } finally {
            cancel.dispose();
            await sandbox.dispose();
          }
        },
      );
      const { lists } = result;
      const summary = `Bug ${name} is ${result.valid ? '' : 'NOT '}a valid SWE-smith task: ${lists.FAIL_TO_PASS.length} FAIL_TO_PASS, ${lists.PASS_TO_PASS.length} PASS_TO_PASS.`;
      log.info(`${summary} FAIL_TO_PASS: ${lists.FAIL_TO_PASS.join(', ') || 'none'}`);
      void (result.valid ? vscode.window.showInformationMessage(`SWE Workbench: ${summary}`) : vscode.window.showWarningMessage(`SWE Workbench: ${summary}`));
      return { valid: result.valid, ...lists };
    } catch (error) {
      if (error instanceof CancelledError) return undefined;
      log.error(`the SWE-smith validation of ${args.bug} stopped`, error);
      void showBugFileError(`SWE Workbench: the SWE-smith validation of ${name} stopped: ${errorText(error)}`, error);
      return undefined;
    }
  };

  const capture = async (arg: unknown): Promise<string | undefined> => {
    const args = parseArgs(CaptureArgs, arg, 'sweWorkbench.bugs.capture');
    if (!args || !requireTrust('Capturing a bug')) return undefined;
    const source = await chooseCaptureSource(currentSession, args);
    if (!source) return undefined;
    const target = args.target ?? (await askTarget(source.root));
    if (!target) return undefined;
    try {
      const bug = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: source.title, cancellable: true },
        async (_progress, token) => {
          const abort = new AbortController();
          const cancel = token.onCancellationRequested(() => abort.abort('the capture was cancelled'));
          const { sandbox, release } = await source.open(abort.signal);
          try {
            return await bugFromSandbox(sandbox, { excludeSavedBugs: true, signal: abort.signal });
          } finally {
            cancel.dispose();
            await release();
          }
        },
      );
      await saveBugArtifact(target, bug);
      await tree.refresh();
      void vscode.window.showInformationMessage(`SWE Workbench: bug saved to ${vscode.workspace.asRelativePath(target)}.`);
      return target;
    } catch (error) {
      log.error('capture failed', error);
      void vscode.window.showErrorMessage(`SWE Workbench: cannot capture the bug: ${errorText(error)}`);
      return undefined;
    }
  };

  return [
    results,
    tree,
    view,
    testing,
    evidence,
    vscode.commands.registerCommand('sweWorkbench.bugs.refresh', async (): Promise<BugsViewState> => {
      const folders = await tree.refresh();
      await testing.sync();
      return { folders, tree, tests: testing.controller.items };
    }),
    vscode.commands.registerCommand('sweWorkbench.bugs.runChecks', runChecks),
    vscode.commands.registerCommand('sweWorkbench.bugs.capture', capture),
    vscode.commands.registerCommand('sweWorkbench.bugs.validateSweSmith', validateSweSmith),
    vscode.commands.registerCommand('sweWorkbench.bugs.showPatch', (arg: unknown) => {
      const args = parseArgs(z.strictObject({ bug: z.string().min(1) }), bugArgs(arg), 'sweWorkbench.bugs.showPatch');
      return args ? vscode.commands.executeCommand('sweWorkbench.patch.show', { bug: args.bug }) : undefined;
    }),
    vscode.commands.registerCommand('sweWorkbench.bugs.showCheck', async (arg: unknown) => {
      const args = parseArgs(ShowCheckArgs, arg, 'sweWorkbench.bugs.showCheck');
      const result = args && results.get(args.bug).find((r) => r.name === args.check);
      if (!args || !result) return undefined;
      const uri = evidence.add(path.basename(args.bug), `${result.name}.md`, describeCheck(result, true));
      return vscode.window.showTextDocument(uri, { preview: true });
    }),
  ];
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
