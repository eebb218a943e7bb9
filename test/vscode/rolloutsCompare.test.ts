import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ResponseMessage } from '../../extension/protocol/ipc';
import type { SweWorkbenchInternals } from '../../extension/vscode/extension';
import { W101, makeRolloutFolder } from '../fixtures/rollouts/trainingRun';
import { extensionInternals } from './internals';
import { mochaThirdParty } from '../helpers/mochaShared';
/** Files written by other projects (../shared/fixtures/third-party): the tests reading them are skipped and counted without it. */
const thirdParty = mochaThirdParty();

describe("the rollouts table's Compare Group", () => {
  let api: SweWorkbenchInternals;
  let folder: ReturnType<typeof makeRolloutFolder>;

  thirdParty.before(async () => {
    api = await extensionInternals();
    folder = makeRolloutFolder();
    assert.ok(await vscode.commands.executeCommand('sweWorkbench.rollouts.openFolder', folder.root), 'the folder was indexed');
    await vscode.commands.executeCommand('sweWorkbench.rollouts.showTable');
  });

  thirdParty.after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    folder?.cleanup();
  });

  it("opens every rollout of the row's instance (SWE-agent files, a mini-swe-agent file and an R2E-Gym JSONL record) in one compare view", async () => {
    let response: ResponseMessage | undefined;
    for (let i = 0; i < 50 && !response; i++) {
      response = await api.rollouts.table
        .show()
        .messenger.receive({ kind: 'request', id: 1000 + i, method: 'rollouts/compareGroup', params: { id: `run/attempt_1/${W101}/${W101}.traj` } })
        .catch(() => undefined);
      if (!response) await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(response && response.ok ? response.result : response, { shown: true });
    const labels = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
    for (let i = 0; i < 100 && !labels().some((l) => l.startsWith('Compare ')); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(labels().includes(`Compare attempts 1, 2, 3, 4 of ${W101}`), labels().join(', '));
  });
});
