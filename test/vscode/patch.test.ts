import assert from 'node:assert/strict';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PatchShown } from '../../extension/vscode/patch/activatePatch';

const EXTENSION_ID = 'swe-workbench.swe-workbench';

describe('the patch view in the extension host', () => {
  let root: string;
  const bug = () => path.join(root, 'test/fixtures/bugs/valid-allocate-and-close');
  const show = (arg: unknown) => vscode.commands.executeCommand<PatchShown | undefined>('sweWorkbench.patch.show', arg);

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    root = extension.extensionPath;
  });

  after(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));

  it("opens a sample bug's two diffs and answers the webview's load request with them", async () => {
    const shown = await show({ bug: bug() });
    assert.ok(shown);
    assert.deepEqual(
      shown.content.sections.map((s) => [s.label, s.problem]),
      [
        ['bug_inject.diff', null],
        ['test_weaken.diff', null],
      ],
    );
    assert.match(shown.content.sections[0]!.diff, /^diff --git a\/ledger\/journal\.py/);
    const response = await shown.panel.messenger.receive({ kind: 'request', id: 1, method: 'patch/load', params: {} });
    assert.ok(response?.ok);
    assert.equal((response.result as { title: string }).title, 'Bug valid-allocate-and-close');
    assert.equal(shown.panel.panel.title, 'Bug valid-allocate-and-close');
  });

  it("opens money.py in VS Code's diff editor: the repository file against the bug applied to it", async () => {
    const shown = await show({ bug: bug(), repo: path.join(root, 'test/fixtures/sample-repo/tree') });
    assert.ok(shown);
    const response = await shown.panel.messenger.receive({ kind: 'request', id: 2, method: 'patch/openDiff', params: { section: 0, file: 'ledger/money.py' } });
    assert.deepEqual(response && response.ok && response.result, { opened: true });
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    assert.ok(input instanceof vscode.TabInputTextDiff, 'a diff editor is active');
    assert.equal(input.original.fsPath, path.join(root, 'test/fixtures/sample-repo/tree/ledger/money.py'));
    const patched = await vscode.workspace.openTextDocument(input.modified);
    assert.equal(input.modified.scheme, 'sweworkbench-patch');
    assert.ok(!patched.getText().includes('leftover = total.amount - sum(parts)'), 'the remainder loop is gone on the patched side');
    assert.ok(patched.getText().includes('return [Money(part, self.currency) for part in parts]'));
  });

  it('an empty patch and a diff that climbs out of the repository say what is wrong', async () => {
    const empty = await show({ diff: '', title: 'step 4' });
    assert.match(empty?.content.sections[0]?.problem ?? '', /empty: it holds no change/);
    const escaping = await show({ diff: 'diff --git a/../etc/passwd b/../etc/passwd\n--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n' });
    assert.match(escaping?.content.sections[0]?.problem ?? '', /climbs out of the repository/);
    const refused = await escaping!.panel.messenger.receive({
      kind: 'request',
      id: 3,
      method: 'patch/openDiff',
      params: { section: 0, file: '../etc/passwd' },
    });
    assert.equal(refused?.ok, false);
  });
});
