import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { ResponseMessage } from '../../extension/protocol/ipc';
import type { SweWorkbenchInternals } from '../../extension/vscode/extension';
import { askStepper, extensionInternals } from './internals';
import type { PatchShown } from '../../extension/vscode/patch/activatePatch';
import type { RewardShown } from '../../extension/vscode/reward/activateReward';
import { ROLLOUTS_TABLE_VIEW } from '../../extension/vscode/rollouts/rolloutsTablePanel';
import type { RolloutsNode } from '../../extension/vscode/rollouts/rolloutsTree';
import { rllmEpisode, workSteps } from '../fixtures/rollouts/runWriter';
import { FAILING_TEST, G7, S3, W101, W202, makeRolloutFolder } from '../fixtures/rollouts/trainingRun';
import { mochaThirdParty } from '../helpers/mochaShared';
/** Files written by other projects (../shared/fixtures/third-party): the tests reading them are skipped and counted without it. */
const thirdParty = mochaThirdParty();

const EXTENSION_ID = 'swe-workbench.swe-workbench';

describe('the Rollouts view in the extension host', () => {
  let api: SweWorkbenchInternals;
  let folder: ReturnType<typeof makeRolloutFolder>;
  let nextId = 1;

  const tree = () => api.rollouts.tree as vscode.TreeDataProvider<RolloutsNode>;
  const roots = async () => (await tree().getChildren()) ?? [];
  async function group(instance: string): Promise<{ item: vscode.TreeItem; children: vscode.TreeItem[] }> {
    const node = (await roots()).find((n) => n.kind === 'group' && n.group.instance === instance);
    assert.ok(node, `a group for ${instance}`);
    const children = (await tree().getChildren(node)) ?? [];
    return { item: await tree().getTreeItem(node), children: await Promise.all(children.map((c) => tree().getTreeItem(c))) };
  }
  const iconOf = (item: vscode.TreeItem) => (item.iconPath as vscode.ThemeIcon).id;
  const tooltipOf = (item: vscode.TreeItem) => String(item.tooltip);
  /** The tab model follows the panels it lists a moment later. */
  async function tabShown(label: string): Promise<void> {
    const labels = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
    const deadline = Date.now() + 10_000;
    while (!labels().includes(label) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.ok(labels().includes(label), `${label} in ${labels().join(', ')}`);
  }
  /** What the table answers its page's request `method` (the table is shown first, as the page asks from it). */
  async function table(method: string, params: unknown): Promise<ResponseMessage> {
    const response = await api.rollouts.table.show().messenger.receive({ kind: 'request', id: nextId++, method, params });
    assert.ok(response, `${method} was answered`);
    return response;
  }

  thirdParty.before(async () => {
    api = await extensionInternals();
    folder = makeRolloutFolder();
    const index = await vscode.commands.executeCommand<{ rollouts: unknown[] } | undefined>('sweWorkbench.rollouts.openFolder', folder.root);
    assert.ok(index, 'the folder was indexed');
  });

  thirdParty.after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    folder?.cleanup();
  });

  it('contributes the Rollouts view and its commands', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of ['sweWorkbench.rollouts.openFolder', 'sweWorkbench.rollouts.showTable', 'sweWorkbench.rollouts.open']) assert.ok(registered.has(c), c);
    const views = vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON.contributes.views.sweWorkbench as { id: string }[];
    assert.ok(views.some((v) => v.id === 'sweWorkbench.rollouts'));
  });

  it('shows one group per instance, the unreadable inputs first', async () => {
    const top = await roots();
    assert.equal(top[0]?.kind, 'errors');
    assert.equal((await tree().getTreeItem(top[0]!)).label, '2 unreadable inputs');
    const instances = top.flatMap((n) => (n.kind === 'group' ? [n.group.instance] : []));
    for (const i of [W101, W202, G7, S3]) assert.ok(instances.includes(i), `${i} in ${instances.join(', ')}`);
  });

  it('describes a group by solve rate, pass@k and whether it is mixed', async () => {
    const s3 = await group(S3);
    assert.equal(s3.item.description, '2/3 solved · pass@1 67% · pass@3 100% · mixed');
    assert.equal(iconOf(s3.item), 'split-horizontal');
    const w202 = await group(W202);
    assert.doesNotMatch(String(w202.item.description), /mixed/);
  });

  it('gives each group the icon of what its rollouts did: none solved, mixed, none evaluated', async () => {
    const w202 = await group(W202);
    assert.match(String(w202.item.description), /^0\/4 solved/);
    assert.equal(iconOf(w202.item), 'circle-slash');
    assert.equal(iconOf((await group(S3)).item), 'split-horizontal');
    assert.equal(iconOf((await group('basic')).item), 'folder');
  });

  it('marks each rollout resolved, failed or infra with its failure class in the tooltip', async () => {
    const w101 = await group(W101);
    assert.deepEqual(
      w101.children.map((c) => c.label),
      ['#1 resolved', '#2 submitted-wrong', '#3 budget-exceeded', '#4 resolved'],
    );
    assert.deepEqual(w101.children.map(iconOf), ['pass-filled', 'error', 'error', 'pass-filled']);
    assert.deepEqual(tooltipOf(w101.children[1]!).split('\n').slice(0, 3), [
      'submitted-wrong',
      `run/attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b/${W101}/report.json: not resolved`,
      'failing: tests/test_widgets.py::test_resize_keeps_ratio',
    ]);
    const g7 = await group(G7);
    const infra = g7.children.find((c) => String(c.label).includes('infra-error'));
    assert.ok(infra, `G7 rollouts: ${g7.children.map((c) => c.label).join(', ')}`);
    assert.equal(iconOf(infra), 'warning');
    assert.match(tooltipOf(infra), /RuntimeError/);
    assert.equal(w101.children[0]?.command?.command, 'sweWorkbench.rollouts.open');
  });

  it('opens a rollout in the stepper on its first format error', async () => {
    const id = `run/attempt_3/${W202}/${W202}.traj.json`;
    const opened = await vscode.commands.executeCommand<{ uri: vscode.Uri; index: number; reason: string }>('sweWorkbench.rollouts.open', id);
    assert.deepEqual({ index: opened.index, reason: opened.reason }, { index: 2, reason: 'error' });
    assert.equal(opened.uri.fsPath, path.join(folder.root, id));
    const response = await askStepper(api, opened.uri, 'steps/details', { start: 2, end: 3 });
    assert.ok(response.ok, 'the stepper answers for the opened file');
    const step = (response.result as { steps: { formatError?: string }[] }).steps[0];
    assert.ok(step?.formatError, 'step 3 is the format error');
  });

  it('opens a submitted rollout on its submission', async () => {
    const opened = await vscode.commands.executeCommand<{ index: number; reason: string }>('sweWorkbench.rollouts.open', `run/attempt_1/${W101}/${W101}.traj`);
    assert.deepEqual({ index: opened.index, reason: opened.reason }, { index: 5, reason: 'submission' });
  });

  it("opens a JSONL rollout on its own record, not the file's first", async () => {
    const opened = await vscode.commands.executeCommand<{ uri: vscode.Uri }>('sweWorkbench.rollouts.open', 'run/rllm/episodes.jsonl:2');
    assert.equal(opened.uri.query, 'record=1');
    const response = await askStepper(api, opened.uri, 'trajectory/open', {});
    assert.ok(response.ok, 'the stepper answers for the second record');
    const header = response.result as { stepCount: number; instanceId?: string };
    assert.deepEqual({ stepCount: header.stepCount, instanceId: header.instanceId }, { stepCount: 6, instanceId: S3 }, 'record 1 has 6 steps, record 0 has 4');
    const firstRecord = vscode.Uri.file(path.join(folder.root, 'run/rllm/episodes.jsonl'));
    assert.equal(api.steppers.forUri(firstRecord), undefined, "no stepper shows the file's first record");
  });

  it('serves the table by query and range, and says why a filter is invalid', async () => {
    const query = { sort: { column: 'steps', descending: true }, filter: 'format=swe-agent and instance~acme', search: '' };
    const result = await table('rollouts/query', query);
    assert.ok(result.ok);
    const { total, indexed } = result.result as { total: number; indexed: number };
    assert.equal(total, 6);
    assert.ok(indexed > total);
    const rows = await table('rollouts/rows', { query, start: 0, end: 2 });
    assert.ok(rows.ok);
    assert.deepEqual(
      (rows.result as { rows: { steps: number }[] }).rows.map((r) => r.steps),
      [30, 9],
    );
    const bad = await table('rollouts/query', { ...query, filter: 'steps>' });
    assert.equal(bad.ok, false);
    assert.ok(!bad.ok && bad.error.code === 'invalid-input' && /expected a value/.test(bad.error.message), JSON.stringify(bad));
    const tooMany = await table('rollouts/rows', { query, start: 0, end: 10_000 });
    assert.ok(!tooMany.ok && tooMany.error.code === 'invalid-request');
  });

  it("searches the run's thoughts, actions and observations, case aside", async () => {
    // Only the stuck run's observations hold the traceback; the index's text store answers.
    const query = { sort: null, filter: '', search: 'valueerror: ODD width' };
    const found = await table('rollouts/query', query);
    assert.equal(found.ok && (found.result as { total: number }).total, 1);
    const rows = await table('rollouts/rows', { query, start: 0, end: 1 });
    assert.deepEqual(rows.ok && (rows.result as { rows: { id: string }[] }).rows.map((r) => r.id), [`run/attempt_2/${W202}/${W202}.traj`]);
    const none = await table('rollouts/query', { ...query, search: 'no step says this' });
    assert.equal(none.ok && (none.result as { total: number }).total, 0);
  });

  it("shows a failed rollout's reward breakdown from the tree, its failing test first", async () => {
    const w101 = (await roots()).find((n) => n.kind === 'group' && n.group.instance === W101)!;
    const second = ((await tree().getChildren(w101)) ?? []).find((n) => n.kind === 'rollout' && n.rollout.attempt === 2);
    assert.ok(second, 'attempt 2 of W101');
    const shown = await vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.rollouts.showReward', second);
    assert.ok(shown, 'the reward view opened');
    assert.equal(shown.panel.panel.title, `Reward: ${W101} #2`);
    assert.deepEqual({ resolution: shown.breakdown.resolution, value: shown.breakdown.value }, { resolution: 'NO', value: 0 });
    assert.deepEqual(
      shown.breakdown.lists.find((l) => l.name === 'FAIL_TO_PASS')?.tests.map((t) => [t.id, t.passed]),
      [[FAILING_TEST, false]],
    );
    const load = await shown.panel.messenger.receive({ kind: 'request', id: nextId++, method: 'reward/load', params: {} });
    assert.ok(load?.ok && (load.result as { terms: { name: string; value: number }[] }).terms.some((t) => t.name === 'resolution NO'), JSON.stringify(load));
  });

  it('says what is missing when a rollout has no evaluation report', async () => {
    const shown = await vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.rollouts.showReward', 'run/attempt_4/deepswe.jsonl:2');
    assert.ok(shown);
    assert.deepEqual(
      shown.breakdown.terms.map((t) => [t.name, t.value]),
      [['recorded reward', 0]],
    );
    assert.deepEqual(shown.breakdown.missing, [
      `No evaluation report of ${W202} was found (report.json or a run report): FAIL_TO_PASS and PASS_TO_PASS are not graded.`,
    ]);
  });

  it("shows a rollout's submitted patch from the tree", async () => {
    const id = 'third-party/swe-agent/marshmallow-1867.function_calling.traj';
    const shown = await vscode.commands.executeCommand<PatchShown | undefined>('sweWorkbench.rollouts.showPatch', id);
    assert.ok(shown, 'the patch view opened');
    assert.equal(shown.content.title, `Submission of ${id}`);
    assert.equal(shown.content.sections.length, 1);
    assert.equal(shown.content.sections[0]?.problem, null);
    assert.match(shown.content.sections[0]?.diff ?? '', /^\+        return int\(round\(value\.total_seconds\(\) \/ base_unit\.total_seconds\(\)\)\)$/m);
  });

  it('shows a submission beside its gold patch when sweWorkbench.rollouts.instances holds the instance', async () => {
    const gold = 'diff --git a/src/gadgets/core.py b/src/gadgets/core.py\n--- a/src/gadgets/core.py\n+++ b/src/gadgets/core.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n';
    const dataset = path.join(folder.root, 'instances.json');
    writeFileSync(dataset, JSON.stringify([{ instance_id: G7, repo: 'acme/gadgets', patch: gold, test_patch: '', FAIL_TO_PASS: '[]', PASS_TO_PASS: '[]' }]));
    const settings = vscode.workspace.getConfiguration('sweWorkbench');
    await settings.update('rollouts.instances', dataset, vscode.ConfigurationTarget.Global);
    try {
      const shown = await vscode.commands.executeCommand<PatchShown | undefined>('sweWorkbench.rollouts.showPatch', `run/attempt_1/${G7}/${G7}.traj`);
      assert.ok(shown);
      assert.deepEqual(
        shown.content.sections.map((s) => s.label),
        ['Submission', 'Gold patch'],
      );
      assert.deepEqual({ diff: shown.content.sections[1]?.diff, problem: shown.content.sections[1]?.problem }, { diff: gold, problem: null });
      assert.match(shown.content.sections[0]?.diff ?? '', /^\+    return w, round\(w \/ ratio\)$/m);
    } finally {
      await settings.update('rollouts.instances', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("opens a row's reward breakdown and patch from the table", async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const reward = await table('rollouts/showReward', { id: `run/attempt_2/${W101}/${W101}.traj` });
    assert.deepEqual(reward.ok && reward.result, { shown: true });
    await tabShown(`Reward: ${W101} #2`);
    const patch = await table('rollouts/showPatch', { id: `run/attempt_1/${W101}/${W101}.traj` });
    assert.deepEqual(patch.ok && patch.result, { shown: true });
    await tabShown(`Submission of run/attempt_1/${W101}/${W101}.traj`);
    const located = await table('rollouts/locate', {
      query: { sort: { column: 'steps', descending: true }, filter: `instance=${W101}`, search: '' },
      id: `run/attempt_3/${W101}/${W101}.traj.json`,
    });
    assert.deepEqual(located.ok && located.result, { index: 0 }, 'its 12 steps are the most of W101');
  });

  it('names a rollout nothing graded "not graded" as the table does, not "unknown"', async () => {
    const basic = await group('basic');
    assert.deepEqual(
      basic.children.map((c) => c.label),
      ['#1 not graded'],
    );
    assert.equal(iconOf(basic.children[0]!), 'question');
  });

  it('lists each unreadable input and opens it as text at the place it broke', async () => {
    const errors = (await roots())[0]!;
    const items = await Promise.all(((await tree().getChildren(errors)) ?? []).map((n) => tree().getTreeItem(n)));
    const broken = items.find((i) => i.label === 'run/attempt_2/broken.traj');
    assert.ok(broken, items.map((i) => i.label).join(', '));
    assert.equal(broken.description, 'line 6: unexpected end of JSON: the file looks truncated');
    await vscode.commands.executeCommand(broken.command!.command, ...(broken.command!.arguments ?? []));
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, path.join(folder.root, 'run/attempt_2/broken.traj'));
    assert.deepEqual([editor?.selection.active.line, editor?.selection.active.character], [5, 63]);
  });

  it('a table restored after a reload comes back on its folder, or says the folder is gone', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const gone = path.join(folder.root, 'deleted-run');
    await api.rollouts.table.restore(vscode.window.createWebviewPanel(ROLLOUTS_TABLE_VIEW, 'Rollouts', vscode.ViewColumn.Active), {
      query: { sort: null, filter: '', search: '' },
      scrollTop: 0,
      folder: gone,
    });
    const header = await table('rollouts/header', {});
    assert.ok(header.ok);
    const { problem } = header.result as { problem: string | null };
    assert.equal(problem, `The rollouts folder this table showed is gone: ${gone}. Open another with “SWE Workbench: Open Rollouts Folder…”.`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    const thirdParty = path.join(folder.root, 'third-party');
    await api.rollouts.table.restore(vscode.window.createWebviewPanel(ROLLOUTS_TABLE_VIEW, 'Rollouts', vscode.ViewColumn.Active), {
      query: { sort: null, filter: 'format=openhands', search: '' },
      scrollTop: 0,
      folder: thirdParty,
    });
    const restored = await table('rollouts/header', {});
    assert.deepEqual(restored.ok && restored.result, { folder: thirdParty, indexErrors: 0, problem: null });
    const rows = await table('rollouts/query', { sort: null, filter: 'format=openhands', search: '' });
    assert.equal(rows.ok && (rows.result as { total: number }).total, 3);
    await vscode.commands.executeCommand('sweWorkbench.rollouts.openFolder', folder.root);
  });

  it('refreshes while the run writes: an appended episode joins its group', async () => {
    const line = JSON.stringify(rllmEpisode({ instance: S3, episodeId: `${S3}:3`, steps: workSteps(3), exit: 'ENV_DONE', patch: 'diff', isCorrect: false }));
    appendFileSync(path.join(folder.root, 'run/rllm/episodes.jsonl'), line + '\n');
    const deadline = Date.now() + 20_000;
    let description = '';
    while (Date.now() < deadline) {
      description = String((await group(S3)).item.description);
      if (description.startsWith('2/4')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(description, '2/4 solved · pass@1 50% · pass@4 100% · mixed');
  });
});
