import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import type { RewardShown } from '../../extension/vscode/reward/activateReward';
import { mochaThirdParty } from '../helpers/mochaShared';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const PYARROW_SERIES = 'pandas/tests/indexing/test_datetime.py::TestDatetimeIndex::test_getitem_pyarrow_index[Series]';

/** Files written by other projects (../shared/fixtures/third-party): the tests reading them are skipped and counted without it. */
const thirdParty = mochaThirdParty();

describe('the reward view in the extension host', () => {
  let instanceDir: string;

  thirdParty.before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    instanceDir = thirdParty.path('swe-smith/run_evaluation/pandas-dev__pandas.95280573.pr_53652');
  });

  thirdParty.after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it("grades SWE-smith's pandas test output as its report.json does, and opens the output at a test's line", async () => {
    const testOutput = path.join(instanceDir, 'test_output.txt');
    const shown = await vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.reward.show', {
      testOutput,
      report: path.join(instanceDir, 'report.json'),
    });
    assert.ok(shown);
    const b = shown.breakdown;
    assert.equal(b.resolution, 'FULL');
    assert.equal(b.report?.agrees, true, b.report?.detail);
    assert.deepEqual(
      b.terms.map((t) => t.name),
      ['FAIL_TO_PASS passing', 'PASS_TO_PASS passing', 'resolution FULL'],
    );
    const series = b.lists.find((l) => l.name === 'FAIL_TO_PASS')?.tests.find((t) => t.id === PYARROW_SERIES);
    assert.deepEqual(series, { id: PYARROW_SERIES, passed: true, line: 154 });

    const response = await shown.panel.messenger.receive({ kind: 'request', id: 1, method: 'reward/openOutput', params: { line: 154 } });
    assert.deepEqual(response && response.ok && response.result, { opened: true });
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, testOutput);
    assert.equal(editor?.selection.active.line, 153);
    assert.ok(editor?.document.lineAt(153).text.startsWith(`${PYARROW_SERIES} PASSED`));
  });

  it('a request with a wrong field is answered with an error naming it', async () => {
    const shown = await vscode.commands.executeCommand<RewardShown | undefined>('sweWorkbench.reward.show', { report: path.join(instanceDir, 'report.json') });
    const response = await shown!.panel.messenger.receive({ kind: 'request', id: 2, method: 'reward/openOutput', params: { line: 'first' } });
    assert.equal(response?.ok, false);
    assert.match(!response?.ok ? response!.error.message : '', /params\.line/);
  });
});
