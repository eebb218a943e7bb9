import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CheckResult } from '../../extension/core/doctor/doctor';
import { PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';

const EXTENSION_ID = 'swe-workbench.swe-workbench';

describe('SWE Workbench: Check Setup in the extension host', () => {
  let server: PolicyServer;
  const settings = () => vscode.workspace.getConfiguration('sweWorkbench');

  before(async () => {
    await vscode.extensions.getExtension(EXTENSION_ID)?.activate();
    server = await new PolicyServer([], { models: ['demo-policy'] }).listen();
    await settings().update('policy.url', server.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await settings().update('policy.url', undefined, vscode.ConfigurationTarget.Global);
    await settings().update('policy.model', undefined, vscode.ConfigurationTarget.Global);
    await server.close();
  });

  it('checks the engine, the image, Pyright and the policy server the settings name', async () => {
    await settings().update('policy.model', 'demo-policy', vscode.ConfigurationTarget.Global);
    const results = await vscode.commands.executeCommand<CheckResult[]>('sweWorkbench.checkSetup');
    assert.deepEqual(
      results.slice(0, 5).map((r) => r.id),
      ['docker', 'image', 'code-server', 'pyright', 'policy'],
    );
    const byId = (id: CheckResult['id']) => results.find((r) => r.id === id)!;
    assert.equal(byId('docker').status, 'ok', byId('docker').detail);
    assert.equal(byId('image').title, 'image swe-workbench/base:bookworm');
    assert.equal(byId('pyright').status, 'ok', byId('pyright').detail);
    assert.deepEqual([byId('policy').status, byId('policy').detail], ['ok', `${server.url} serves demo-policy (context 32768 tokens)`]);
  });

  it('a model the server does not serve is reported with the setting that fixes it', async () => {
    await settings().update('policy.model', 'gpt-4o', vscode.ConfigurationTarget.Global);
    const policy = (await vscode.commands.executeCommand<CheckResult[]>('sweWorkbench.checkSetup')).find((r) => r.id === 'policy')!;
    assert.equal(policy.status, 'fail');
    assert.match(policy.detail, /does not serve model 'gpt-4o'; it serves: demo-policy/);
    assert.match(policy.fix ?? '', /sweWorkbench\.policy\.model/);
  });
});
