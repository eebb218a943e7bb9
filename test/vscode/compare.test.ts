import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import type { CompareContent } from '../../extension/protocol/compare';
import { mochaThirdParty } from '../helpers/mochaShared';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const repoRoot = path.resolve(__dirname, '../../..');
const thirdParty = mochaThirdParty();
/** What `sweWorkbench.compare.open` returns to its caller: the panel and what it shows. */
type CompareShown = { panel: vscode.WebviewPanel; content: CompareContent };
const fixture = (p: string) => vscode.Uri.file(thirdParty.path(p));
const WINDOWED = fixture('swe-agent/marshmallow-1867.windowed.traj');
const FUNCTION_CALLING = fixture('swe-agent/marshmallow-1867.function_calling.traj');
const PANDAS = fixture('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj');
const TRUNCATED = vscode.Uri.file(path.resolve(repoRoot, 'test/fixtures/trajectories/malformed/truncated.traj'));

const compareTabs = () =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('sweWorkbench.compare'));

describe('Compare Trajectories…', () => {
  before(async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)!.activate();
  });
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  thirdParty.it('opens two runs of one task in one view, aligned, with where they part', async () => {
    const shown = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', [WINDOWED, FUNCTION_CALLING]);
    assert.ok(shown, 'the view opened');
    assert.equal(shown.panel.title, 'Compare marshmallow-1867.windowed.traj, marshmallow-1867.function_calling.traj of marshmallow-code__marshmallow-1867');
    assert.deepEqual(
      shown.content.runs.map((r) => r.label),
      ['marshmallow-1867.windowed.traj', 'marshmallow-1867.function_calling.traj'],
    );
    assert.equal(shown.content.firstDivergence, 6);
    // The tab model learns of the new panel from the workbench a moment later.
    for (let i = 0; i < 50 && compareTabs().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      compareTabs().map((t) => t.label),
      ['Compare marshmallow-1867.windowed.traj, marshmallow-1867.function_calling.traj of marshmallow-code__marshmallow-1867'],
    );
  });

  thirdParty.it('the same runs compared again: one view, read afresh, not a second tab of the same title', async () => {
    const first = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', [WINDOWED, FUNCTION_CALLING]);
    const again = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', [WINDOWED, FUNCTION_CALLING]);
    assert.ok(first && again, 'both opened');
    assert.notEqual(again.panel, first.panel);
    // The first view is gone once the second is made: disposing it fires at once, so its title can no longer be read.
    assert.throws(() => first.panel.title, /disposed/i);
    const other = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', [FUNCTION_CALLING, WINDOWED]);
    assert.ok(other, 'the runs in another order are another comparison');
    assert.equal(again.panel.title, 'Compare marshmallow-1867.windowed.traj, marshmallow-1867.function_calling.traj of marshmallow-code__marshmallow-1867');
    assert.doesNotThrow(() => again.panel.title);
  });

  thirdParty.it('the explorer hands over the clicked file and the selection: the selection is compared', async () => {
    const shown = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', PANDAS, [WINDOWED, PANDAS]);
    assert.deepEqual(
      shown?.content.runs.map((r) => r.label),
      ['marshmallow-1867.windowed.traj', 'pandas-dev__pandas.95280573.pr_53856.traj'],
    );
    assert.match(shown?.content.warning ?? '', /^These runs are of different tasks/);
  });

  thirdParty.it('a file that does not read opens nothing: no half-filled view', async () => {
    const shown = await vscode.commands.executeCommand<CompareShown | undefined>('sweWorkbench.compare.open', [WINDOWED, TRUNCATED]);
    assert.equal(shown, undefined);
    assert.equal(compareTabs().length, 0);
  });
});
