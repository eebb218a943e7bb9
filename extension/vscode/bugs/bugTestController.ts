import path from 'node:path';
import * as vscode from 'vscode';
import { loadBugArtifact } from '../../core/bugs/bugArtifact';
import { CHECK_NAMES, runConsistencyChecks, type CheckResult } from '../../core/bugs/consistencyChecks';
import { CancelledError, errorText } from '../../core/errors';
import type { TestStatus } from '../../core/reward/testStatus';
import { Disposable } from '../dispose';
import { bugSandboxFactory, requireTrust, type BugEnvironment, type BugEnvironments } from './bugEnvironment';
import type { BugFolder } from './bugFolders';
import { describeCheck, type CheckResults } from './checkResults';
import { inputErrorLocation } from '../commands';

const BUG_CHECKS_CONTROLLER = 'sweWorkbench.bugChecks';

const PASSING: ReadonlySet<TestStatus> = new Set(['PASSED', 'XFAIL']);

/**
 * The Testing view's side of bugs: one item per bug folder, its seven checks beneath, and under
 * each check the tests of the map it parsed. The run profile and the Bugs commands run the
 * checks through the same method, so both views show the same run.
 */
export class BugTestController extends Disposable {
  readonly controller: vscode.TestController;
  private readonly running = new Set<string>();

  constructor(
    private readonly results: CheckResults,
    private readonly folders: () => Promise<BugFolder[]>,
    private readonly environments: BugEnvironments,
  ) {
    super();
    this.controller = this._register(vscode.tests.createTestController(BUG_CHECKS_CONTROLLER, 'Bug consistency checks'));
    this.controller.resolveHandler = async () => void (await this.sync());
    this.controller.refreshHandler = async () => void (await this.sync());
    this.controller.createRunProfile('Run the seven checks', vscode.TestRunProfileKind.Run, (request, token) => this.runRequest(request, token), true);
  }

  /** Matches the items to the bug folders found; returns the items by folder. */
  async sync(): Promise<Map<string, vscode.TestItem>> {
    const complete = (await this.folders()).filter((f) => f.missing.length === 0);
    const items = complete.map((f) => this.bugItem(f.dir));
    this.controller.items.replace(items);
    return new Map(items.map((i) => [i.id, i]));
  }

  private bugItem(dir: string): vscode.TestItem {
    const existing = this.controller.items.get(dir);
    if (existing) return existing;
    const item = this.controller.createTestItem(dir, path.basename(dir), vscode.Uri.file(dir));
    const kept = new Map(this.results.get(dir).map((r) => [r.name, r]));
    for (const name of CHECK_NAMES) {
      const check = this.controller.createTestItem(`${dir}#${name}`, name);
      // The tests of a run from before a reload, so the results VS Code kept find their items.
      const result = kept.get(name);
      if (result) this.addParsedTests(check, result);
      item.children.add(check);
    }
    return item;
  }

  private async runRequest(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    if (!requireTrust('Running the checks')) return;
    const env = await this.environments.resolve({});
    if (!env) return;
    const bugs = new Set((request.include ?? [...(await this.sync()).values()]).map((item) => item.id.split('#')[0]!));
    for (const dir of bugs) {
      if (token.isCancellationRequested) break;
      if (this.isRunning(dir)) continue;
      await this.runChecks(dir, env, { token, request }).catch(() => undefined);
    }
  }

  isRunning(dir: string): boolean {
    return this.running.has(dir);
  }

  /**
   * Runs the seven checks of one bug as a Testing run: each check is started, then passed or
   * failed with its evidence as it ends; a cancelled run leaves the rest skipped.
   */
  async runChecks(
    dir: string,
    env: BugEnvironment,
    options: { token: vscode.CancellationToken; request?: vscode.TestRunRequest; onCheck?: (result: CheckResult) => void },
  ): Promise<CheckResult[]> {
    // Two runs of one bug would mix their verdicts in one list.
    if (this.running.has(dir)) throw new Error(`the checks of ${path.basename(dir)} are already running`);
    this.running.add(dir);
    const bugItem = (await this.sync()).get(dir) ?? this.bugItem(dir);
    const run = this.controller.createTestRun(options.request ?? new vscode.TestRunRequest([bugItem]), `Checks of ${path.basename(dir)}`, true);
    const abort = new AbortController();
    const cancel = options.token.onCancellationRequested(() => abort.abort('the checks were cancelled'));
    const checkItem = (name: string) => bugItem.children.get(`${dir}#${name}`)!;
    // The tests a check parsed last time go until it reports again: a re-run shows no stale verdicts.
    bugItem.children.forEach((c) => {
      c.children.replace([]);
      run.enqueued(c);
    });
    this.results.start(dir);
    let pending: string[] = [...CHECK_NAMES];
    try {
      const bug = await loadBugArtifact(dir);
      if (pending[0]) run.started(checkItem(pending[0]));
      return await runConsistencyChecks(bug, {
        createSandbox: bugSandboxFactory(env, 'bug-checks'),
        signal: abort.signal,
        onCheck: (result) => {
          pending = pending.filter((n) => n !== result.name);
          this.report(run, checkItem(result.name), result);
          this.results.add(dir, result);
          options.onCheck?.(result);
          if (pending[0]) run.started(checkItem(pending[0]));
        },
      });
    } catch (error) {
      const text = errorText(error);
      const message = new vscode.TestMessage(text);
      message.location = inputErrorLocation(error);
      this.results.stop(dir, abort.signal.aborted ? 'cancelled' : text);
      for (const name of pending) {
        if (error instanceof CancelledError || abort.signal.aborted) run.skipped(checkItem(name));
        else run.errored(checkItem(name), message);
      }
      throw abort.signal.aborted && !(error instanceof CancelledError) ? new CancelledError('the checks were cancelled') : error;
    } finally {
      this.running.delete(dir);
      cancel.dispose();
      run.end();
    }
  }

  private report(run: vscode.TestRun, item: vscode.TestItem, result: CheckResult): void {
    if (result.passed) run.passed(item, result.durationMs);
    else run.failed(item, new vscode.TestMessage(new vscode.MarkdownString(describeCheck(result, false))), result.durationMs);
    const broken = brokenByTheBug(result);
    for (const [test, id, status] of this.addParsedTests(item, result)) {
      if (PASSING.has(status) || broken.has(id)) run.passed(test);
      else if (status === 'SKIPPED') run.skipped(test);
      else run.failed(test, new vscode.TestMessage(`${id}: ${status}`));
    }
  }

  /** Puts the tests of the map the check parsed under its item; returns them with their id and status. */
  private addParsedTests(check: vscode.TestItem, result: CheckResult): Array<[vscode.TestItem, string, TestStatus]> {
    const broken = brokenByTheBug(result);
    // In the label, not the description: the Test Explorer reads a description instead of the label to screen readers.
    const tests = Object.entries(result.evidence.statuses ?? {}).map(([id, status]): [vscode.TestItem, string, TestStatus] => [
      this.controller.createTestItem(`${check.id}::${id}`, broken.has(id) ? `${id} (fails with the bug)` : id),
      id,
      status,
    ]);
    check.children.replace(tests.map(([test]) => test));
    return tests;
  }
}

/**
 * Bug validity wants the tests it lists to fail with the bug: their failure is the check's
 * evidence, so under it they show as met, labelled as failing with the bug, and the bug does
 * not turn red in the Testing view while all seven checks pass.
 */
function brokenByTheBug(result: CheckResult): ReadonlySet<string> {
  return new Set(result.name === 'bug-validity' && result.passed ? result.evidence.failing : []);
}
