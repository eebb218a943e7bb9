import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SweWorkbenchApi } from '../../extension/vscode/extension';
import type { ResponseMessage } from '../../extension/protocol/ipc';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const repoRoot = path.resolve(__dirname, '../../..');
const marshmallow = path.resolve(repoRoot, '../shared/fixtures/third-party/swe-agent/marshmallow-1867.windowed.traj');
const openhands = path.resolve(repoRoot, '../shared/fixtures/third-party/openhands/basic.json');

let api: SweWorkbenchApi;
let nextId = 1;

/** Sends a request as the stepper's webview would; retries while the editor is still resolving. */
async function request(uri: vscode.Uri, method: string, params: unknown): Promise<ResponseMessage> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await api.trajectoryEditor.request(uri, { kind: 'request', id: nextId++, method, params });
      assert.ok(response, `${method} was answered`);
      return response;
    } catch (error) {
      if (attempt >= 50 || !String(error).includes('no stepper is open')) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

function result<T>(response: ResponseMessage): T {
  if (!response.ok) assert.fail(`request failed: ${response.error.code}: ${response.error.message}`);
  return response.result as T;
}

describe('SWE Workbench in the extension host', () => {
  before(async () => {
    const extension = vscode.extensions.getExtension<SweWorkbenchApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('activates and registers every command it contributes', async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.equal(extension?.isActive, true);
    const contributed = (extension?.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    assert.ok(contributed.includes('sweWorkbench.trajectory.open'));
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(contributed.filter((c) => !registered.has(c)), []);
  });

  it('reads its settings with the documented defaults', () => {
    const config = vscode.workspace.getConfiguration('sweWorkbench');
    assert.equal(config.get('policy.url'), 'http://127.0.0.1:8000/v1');
    assert.equal(config.get('limits.memoryMb'), 4096);
  });

  it('opens a SWE-agent trajectory in the stepper and serves its steps by range', async () => {
    const uri = vscode.Uri.file(marshmallow);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const source = JSON.parse(readFileSync(marshmallow, 'utf8')) as { trajectory: { action: string; observation: string }[] };
    const header = result<{ stepCount: number; format: string; fileName: string; tools: string[] }>(await request(uri, 'trajectory/open', {}));
    assert.equal(header.format, 'swe-agent');
    assert.equal(header.fileName, 'marshmallow-1867.windowed.traj');
    assert.equal(header.stepCount, source.trajectory.length);
    assert.ok(header.tools.includes('create') && header.tools.includes('edit'), `tools: ${header.tools.join(', ')}`);

    const { summaries } = result<{ summaries: { index: number; tool: string | null; label: string }[] }>(await request(uri, 'steps/summaries', { start: 0, end: 3 }));
    assert.deepEqual(summaries.map((s) => s.index), [0, 1, 2]);
    assert.equal(summaries[0]?.tool, 'create');
    assert.equal(summaries[0]?.label, 'create reproduce.py');
    assert.equal(summaries[1]?.label, 'edit 1:1');

    const { steps } = result<{ steps: { index: number; action: { raw: string }; observation: string }[] }>(await request(uri, 'steps/details', { start: 2, end: 3 }));
    assert.equal(steps[0]?.index, 2);
    assert.equal(steps[0]?.action.raw.trim(), 'python reproduce.py');
    assert.equal(steps[0]?.observation.trim(), source.trajectory[2]?.observation.trim());

    const { indices } = result<{ indices: number[] }>(await request(uri, 'steps/search', { query: 'REPRODUCE.PY', caseSensitive: false }));
    assert.ok(indices.includes(0) && indices.includes(2), `matches: ${indices.join(', ')}`);
  });

  it('answers a bad request with an error that names the field', async () => {
    const uri = vscode.Uri.file(marshmallow);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const response = await request(uri, 'steps/details', { start: 5, end: 2 });
    assert.equal(response.ok, false);
    assert.match(response.ok ? '' : response.error.message, /end must not be before start/);
  });

  it('opens any JSON trajectory through "Open With" and the raw JSON of a step in an editor', async () => {
    const uri = vscode.Uri.file(openhands);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectoryAnyJson');
    const header = result<{ format: string; stepCount: number }>(await request(uri, 'trajectory/open', {}));
    assert.equal(header.format, 'openhands');
    assert.ok(header.stepCount > 0);
    result(await request(uri, 'steps/openRaw', { index: 0 }));
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'swe-workbench-raw');
    assert.ok(editor, 'the raw record opened in an editor');
    assert.equal(editor.document.languageId, 'json');
    assert.equal(path.basename(editor.document.uri.path), 'basic.json step 1.json');
    const raw = JSON.parse(editor.document.getText()) as unknown;
    const events = JSON.parse(readFileSync(openhands, 'utf8')) as unknown[];
    assert.ok(events.some((e) => JSON.stringify(e) === JSON.stringify(Array.isArray(raw) ? raw[0] : raw)), 'the raw JSON is a record of the file');
  });

  it('a malformed file gets a located error and the extension keeps working', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-bad-'));
    const bad = path.join(dir, 'broken.traj');
    writeFileSync(bad, '{\n  "trajectory": [\n    {"action": "ls",\n');
    const uri = vscode.Uri.file(bad);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const response = await request(uri, 'trajectory/open', {});
    assert.equal(response.ok, false);
    if (response.ok) return;
    assert.equal(response.error.code, 'invalid-input');
    assert.ok(response.error.message.includes(bad), response.error.message);
    assert.match(response.error.message, /line \d+/);

    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(marshmallow), 'sweWorkbench.trajectory');
    const header = result<{ stepCount: number }>(await request(vscode.Uri.file(marshmallow), 'trajectory/open', {}));
    assert.equal(header.stepCount, 11);
  });
});
