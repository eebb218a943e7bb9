import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { askStepper, extensionInternals, openWatched } from './internals';
import { startPolicyServer, type PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { answerPolicy, answerTask, sampleRepositoryIn } from '../helpers/branchScenario';
import type { BranchStrip } from '../../extension/protocol/stepper';
import type { BranchRunResult } from '../../extension/core/branch/branchRun';
import { saveBranchIndex } from '../../extension/core/branch/branchFolder';
import { parseIndex } from '../../extension/core/rollouts/branchIndex';
import type { BranchNode } from '../../extension/vscode/branch/branchTree';
import type { CompareContent } from '../../extension/protocol/compare';
import type { SweWorkbenchInternals } from '../../extension/vscode/extension';

let internals: SweWorkbenchInternals;
let server: PolicyServer;
const repoRoot = path.resolve(__dirname, '../../..');

let work: string;
let recording: vscode.Uri;
let taskFile: string;
/** What Branch From Steps and Compare return (the folder written and the run; the panel and what it shows). */
type BranchRunShown = { folder: string; result: BranchRunResult };
type CompareShown = { panel: vscode.WebviewPanel; content: CompareContent };
/** The first test's branch run, which the Rollouts table's test reads the critical step of. */
let firstRun: BranchRunShown | undefined;
let nextRequest = 1;

/** What the Rollouts table answers its page's request `method`. */
async function askTable<T>(method: string, params: unknown): Promise<T> {
  const response = await internals.rollouts.table.show().messenger.receive({ kind: 'request', id: nextRequest++, method, params });
  assert.ok(response?.ok, `${method}: ${JSON.stringify(response)}`);
  return response.result as T;
}

/** The critical step as a person reads it in the table, written out here from the run's own summary. */
function criticalCell(summary: BranchRunResult['summary']): string {
  const c = summary.critical;
  if (!c) return 'none';
  const value = (at: number) => summary.values.find((v) => v.at === at)!.value!.toFixed(2);
  return `${c.to - c.from === 1 ? `step ${c.to}` : `steps ${c.from + 1}..${c.to}`} (V ${value(c.from)} -> ${value(c.to)})`;
}

/** Sandbox containers (running or not) this extension host owns. */
function containersLeft(): string[] {
  return execFileSync(
    'docker',
    ['ps', '-aq', '--filter', 'label=swe-workbench.sandbox=1', '--filter', `label=swe-workbench.owner=${hostname()}:${process.pid}`],
    {
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean);
}

async function stepperAnswer<T>(uri: vscode.Uri, method: string, params: unknown): Promise<T> {
  const response = await askStepper(internals, uri, method, params);
  assert.ok(response.ok, `${method}: ${JSON.stringify(response)}`);
  return response.result as T;
}

async function waitUntil(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let attempt = 0; !(await condition()); attempt++) {
    assert.ok(attempt < 600, `waited too long for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const row = (node: BranchNode) => {
  const item = internals.branch.tree.getTreeItem(node);
  return { label: String(item.label), description: String(item.description) };
};

describe('Branch From Steps: a branch run on the open trajectory, real Docker, a scripted policy with known values', function () {
  this.timeout(10 * 60_000);

  before(async () => {
    internals = await extensionInternals();
    server = await startPolicyServer(answerPolicy);
    work = mkdtempSync(path.join(tmpdir(), 'swb-vscode-branch-'));
    const repo = sampleRepositoryIn(path.join(work, 'repo'), repoRoot);
    const written = await answerTask(work, repo);
    taskFile = written.taskFile;
    recording = vscode.Uri.file(written.recordingFile);
    const settings = vscode.workspace.getConfiguration('sweWorkbench');
    await settings.update('policy.url', server.url, vscode.ConfigurationTarget.Global);
    await settings.update('policy.model', 'test-policy', vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const settings = vscode.workspace.getConfiguration('sweWorkbench');
    await settings.update('policy.url', undefined, vscode.ConfigurationTarget.Global);
    await settings.update('policy.model', undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the command runs the continuations beside the recording; the tree, the strip and the files say what the core measured', async () => {
    const page = await openWatched(internals, recording, () => vscode.commands.executeCommand('sweWorkbench.trajectory.open', recording));
    await waitUntil('the stepper to show the recording', () => page.shown() !== undefined);
    page.dispose();
    assert.deepEqual(await stepperAnswer(recording, 'branch/values', {}), { strip: null }, 'no branch run yet: no strip');

    // Every field given, so nothing is asked; the trajectory is the focused stepper's.
    const shown = await vscode.commands.executeCommand<BranchRunShown | undefined>('sweWorkbench.branch.run', {
      task: taskFile,
      steps: '0-2',
      samples: 4,
      concurrency: 2,
      maxSteps: 5,
      temperature: 1,
      seed: 1,
    });
    assert.ok(shown, 'the command finished');
    firstRun = shown;
    assert.equal(shown.folder, `${recording.fsPath}.branches`);
    assert.deepEqual(containersLeft(), [], 'no container left by the run');

    // The files: index.json and every continuation it names, in the recording's scaffold's format.
    const index = JSON.parse(readFileSync(path.join(shown.folder, 'index.json'), 'utf8')) as {
      points: Array<{ afterStep: number; continuations: Array<{ file: string; reward: number | null; mask: string | null }> }>;
    };
    assert.deepEqual(
      index.points.map((p) => [p.afterStep, p.continuations.length]),
      [
        [0, 4],
        [1, 4],
        [2, 4],
      ],
    );
    for (const c of index.points.flatMap((p) => p.continuations)) assert.ok(existsSync(path.join(shown.folder, c.file)), `${c.file} was written`);

    // The tree: the recording, its three branch points with V as the core measured it, each continuation.
    const [root, ...others] = internals.branch.tree.getChildren();
    assert.ok(root && others.length === 0, 'the Branches view shows the one recording');
    assert.equal(row(root).label, 'recording.json');
    const points = internals.branch.tree.getChildren(root);
    const values = shown.result.summary.values;
    assert.deepEqual(
      points.map((p) => row(p).label.replace(' (critical)', '')),
      ['start', 'after step 1', 'after step 2'],
    );
    for (const [i, p] of points.entries()) {
      const v = values[i]!;
      assert.match(row(p).description, new RegExp(`^V ${v.value!.toFixed(2)} \\[${v.interval!.low.toFixed(2)}, ${v.interval!.high.toFixed(2)}\\] n 4$`));
    }
    // After writing 42 every continuation submits it: V is 1 by construction.
    assert.match(row(points[1]!).description, /^V 1\.00 /);
    const critical = shown.result.summary.critical;
    assert.deepEqual(
      points.filter((p) => row(p).label.endsWith('(critical)')).map((p) => row(p).label),
      critical ? [critical.to === 0 ? 'start (critical)' : `after step ${critical.to} (critical)`] : [],
    );
    const continuations = internals.branch.tree.getChildren(points[2]!);
    assert.equal(continuations.length, 4);
    for (const [i, c] of continuations.entries()) {
      const recorded = index.points[2]!.continuations[i]!;
      const reward = recorded.mask !== null ? `masked: ${recorded.mask}` : String(recorded.reward);
      assert.equal(row(c).label, `continuation ${i + 1}`);
      assert.match(row(c).description, new RegExp(`^submitted, reward ${reward.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, \\d+ steps?$`));
    }

    // The strip on the open stepper's timeline: the same values, the critical step marked.
    const { strip } = await stepperAnswer<{ strip: BranchStrip | null }>(recording, 'branch/values', {});
    assert.ok(strip, 'the stepper finds the run beside the recording');
    assert.deepEqual(
      strip.cells.map((c) => [c.afterStep, c.value, c.n, c.masked, c.critical]),
      values.map((v) => [v.at, v.value!.toFixed(2), 4, 0, critical?.to === v.at]),
    );

    // A click on a continuation opens it in the stepper on its first step after the branch point.
    const continuation = continuations[0]! as Extract<BranchNode, { kind: 'continuation' }>;
    const item = internals.branch.tree.getTreeItem(continuation);
    assert.equal(item.command?.command, 'sweWorkbench.branch.openContinuation');
    const opened = vscode.Uri.file(path.join(shown.folder, continuation.continuation.file));
    const command = item.command;
    const continuationPage = await openWatched(internals, opened, () => vscode.commands.executeCommand(command.command, ...(command.arguments ?? [])));
    await waitUntil('the continuation to show on step 3', () => continuationPage.shown() === 2);
    continuationPage.dispose();

    // Compare with the recording from the branch point: the two steps before it folded as shared, the rows after it start at step 3.
    const compared = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.branch.compareWithRecording', continuation);
    assert.ok(compared, 'the Compare view opened');
    assert.deepEqual(
      compared.content.runs.map((r) => path.basename(r.path)),
      ['recording.json', path.basename(continuation.continuation.file)],
    );
    assert.deepEqual(compared.content.branchPoint, { afterStep: 2, sharedRows: 2 });
    assert.deepEqual(
      compared.content.rows.map((r) => r.shared === true),
      compared.content.rows.map((_, i) => i < 2),
    );
    assert.equal(compared.content.rows[2]!.cells[1]?.index, 2, "the first row after the branch point holds the continuation's step 3");
    compared.panel.dispose();
  });

  it("the Rollouts table of the recording's folder shows its critical step, and a new branch index on the next refresh", async () => {
    assert.ok(firstRun, 'the branch run of the test before');
    const folder = path.dirname(recording.fsPath);
    const opened = await vscode.commands.executeCommand<{ rollouts: Array<{ path: string }> } | undefined>('sweWorkbench.rollouts.openFolder', folder);
    assert.ok(opened, 'the folder was indexed');
    assert.ok(!opened.rollouts.some((r) => r.path.includes('.branches')), 'no continuation is a rollout of the folder');
    const query = { sort: { column: 'critical', descending: true }, filter: 'branched=yes', search: '' };
    const criticalShown = async () => {
      const result = await askTable<{ total: number; branched?: boolean }>('rollouts/query', query);
      const { rows } = await askTable<{ rows: Array<{ id: string; critical: string | null }> }>('rollouts/rows', { query, start: 0, end: 10 });
      return { branched: result.branched, rows: rows.map((r) => [r.id, r.critical]) };
    };
    assert.deepEqual(await criticalShown(), { branched: true, rows: [['recording.json', criticalCell(firstRun.result.summary)]] });

    // The branch run's index rewritten (as a later run would): V 1 until step 1, 0 after step 2.
    const file = path.join(firstRun.folder, 'index.json');
    const index = parseIndex(file, readFileSync(file, 'utf8'));
    for (const p of index.points) for (const c of p.continuations) Object.assign(c, { reward: p.afterStep < 2 ? 1 : 0, mask: null });
    await saveBranchIndex(firstRun.folder, index);
    let last: Awaited<ReturnType<typeof criticalShown>> | undefined;
    await waitUntil('the table to show the new critical step', async () => {
      last = await criticalShown();
      return last.rows[0]?.[1] === 'step 2 (V 1.00 -> 0.00)';
    }).catch((err: unknown) => {
      throw new Error(`${String(err)}; the table shows ${JSON.stringify(last)}`);
    });
  });
});
