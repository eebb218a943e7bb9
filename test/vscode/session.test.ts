import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { extensionInternals } from './internals';
import type { SessionApi } from '../../extension/vscode/session/activateSession';
import type { SessionLaunch } from '../../extension/vscode/session/sessionLaunch';
import { containerUri } from '../../extension/vscode/container/containerFileSystem';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { startPolicyServer, type PolicyServer } from '../../extension/core/policy/scriptedPolicyServer';
import { LEDGER_EPISODE, thoughtAction } from '../helpers/ledgerAgentScript';

const IMAGE = 'swe-workbench/base:bookworm';
/** The `swe-workbench.role` label of containers started from VS Code (SESSION_ROLE). */
const SESSION_ROLE = 'vscode-session';
const repoRoot = path.resolve(__dirname, '../../..');
const sampleTree = path.join(repoRoot, 'test/fixtures/sample-repo/tree');

let session: SessionApi;
let server: PolicyServer;
let scratch: string;
let repoDir: string;
let recorded: vscode.Uri;

/** The sample repository as a one-commit git repository (the submit tool diffs against it). */
function sampleRepository(dir: string): string {
  cpSync(sampleTree, dir, { recursive: true, filter: (src) => !/(__pycache__|\.pytest_cache)$/.test(src) });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample');
  return dir;
}

/** Containers, running or not, that sessions started from VS Code left (the docker CLI keeps native modules out of the test bundle). */
function sessionContainers(): string[] {
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=swe-workbench.role=${SESSION_ROLE}`], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

/** The Session view's step rows as the person sees them: label and description. */
function viewRows(): { label: string; description: string }[] {
  const [root] = session.tree.getChildren();
  assert.ok(root, 'the Session view shows the session');
  return session.tree
    .getChildren(root)
    .filter((n) => n.kind === 'step')
    .map((n) => session.tree.getTreeItem(n))
    .map((item) => ({ label: String(item.label), description: String(item.description) }));
}

async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  for (let attempt = 0; !condition(); attempt++) {
    if (attempt > 600) assert.fail(`gave up waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Types the next action into the document Edit Next Action opens and saves it, as a person would. */
async function typeNextAction(text: string, stepsAfter: number): Promise<void> {
  await waitUntil('the session asks for the next action', () => session.controller.current?.asking === 'person');
  await vscode.commands.executeCommand('sweWorkbench.session.editNext');
  const editor = vscode.window.activeTextEditor;
  assert.equal(editor?.document.uri.scheme, 'swe-next-action');
  await editor.edit((e) => e.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), text));
  await editor.document.save();
  await waitUntil(`step ${stepsAfter} has run`, () => session.controller.current?.entries.length === stepsAfter);
}

async function launch(mode: SessionLaunch['mode'], extra: Partial<SessionLaunch> = {}): Promise<void> {
  const base = await session.launchFor(mode, recorded, { image: IMAGE, repoDir });
  await session.controller.start({ ...base, ...extra });
}

describe('Session: replay, breakpoints, fork and the container in VS Code', function () {
  this.timeout(300_000);

  before(async () => {
    session = (await extensionInternals()).session;
    scratch = mkdtempSync(path.join(tmpdir(), 'swb-vscode-session-'));
    repoDir = sampleRepository(path.join(scratch, 'repo'));
    server = await startPolicyServer(LEDGER_EPISODE);
    await vscode.workspace.getConfiguration('sweWorkbench').update('policy.url', server.url, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await session.controller.stop();
    await server.close();
    await vscode.workspace.getConfiguration('sweWorkbench').update('policy.url', undefined, vscode.ConfigurationTarget.Global);
    rmSync(scratch, { recursive: true, force: true });
  });

  afterEach(async () => {
    await session.controller.stop();
  });

  it('a live run against the policy server records the episode, saved as canonical JSON that loads back', async () => {
    await session.controller.start({ mode: 'live', image: IMAGE, repoDir, repoPath: '/repo', problemStatement: 'Money.allocate must keep every cent.' });
    const stop = await session.controller.continue();
    assert.equal(stop.reason, 'submitted');
    assert.deepEqual(
      viewRows().map((r) => r.label),
      ['1  bash', '2  open', '3  bash', '4  submit'],
    );
    recorded = vscode.Uri.file(path.join(scratch, 'live.json'));
    await session.controller.save(recorded);
    const { trajectory } = await loadTrajectory(recorded.fsPath);
    assert.equal(trajectory.steps.length, 4);
    assert.deepEqual(trajectory.steps[1]?.action.args, { path: 'ledger/money.py', line_number: 75 });
    assert.equal(trajectory.meta.parseFunction, 'thought_action');
    assert.match(trajectory.steps[0]?.observation ?? '', /^75:    def allocate\(self, ratios\):$/m);
    assert.equal(session.controller.current?.state, 'stopped');
  });

  it('replays the recording with every step matched in the Session view; the container files are served', async () => {
    await launch('replay');
    const stop = await session.controller.continue();
    assert.equal(stop.reason, 'submitted');
    const rows = viewRows();
    assert.equal(rows.length, 4);
    for (const row of rows) assert.match(row.description, /exit 0 · [\d.]+ m?s · matched$/, `${row.label}: ${row.description}`);
    assert.match(session.status.sandboxText, /paused before step 5/);

    const sandbox = session.controller.current!.aci.sandbox;
    const root = containerUri(sandbox, '/repo');
    const entries = new Map(await vscode.workspace.fs.readDirectory(root));
    assert.equal(entries.get('ledger'), vscode.FileType.Directory);
    assert.equal(entries.get('setup.cfg'), vscode.FileType.File);
    const money = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, 'ledger/money.py'));
    assert.equal(Buffer.from(money).toString('utf8'), readFileSync(path.join(repoDir, 'ledger/money.py'), 'utf8'));
    const bytes = new Uint8Array([0, 255, 10, 13, 128, 65]);
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(root, 'notes/binary.bin'), bytes);
    assert.deepEqual([...(await sandbox.readFileBytes('/repo/notes/binary.bin'))], [...bytes]);
    const stat = await vscode.workspace.fs.stat(vscode.Uri.joinPath(root, 'notes/binary.bin'));
    assert.equal(stat.size, bytes.length);
    await assert.rejects(Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, 'no/such.py'))), /EntryNotFound/);
  });

  it('go to definition in a swe-container: Python file lands on the class in the container', async () => {
    await launch('replay');
    const sandbox = session.controller.current!.aci.sandbox;
    const testFile = containerUri(sandbox, '/repo/tests/test_money.py');
    const document = await vscode.workspace.openTextDocument(testFile);
    assert.equal(document.languageId, 'python');
    const line = document
      .getText()
      .split('\n')
      .findIndex((l) => l.includes('return Money(amount'));
    const position = new vscode.Position(line, document.lineAt(line).text.indexOf('Money') + 1);
    let locations: (vscode.Location | vscode.LocationLink)[] = [];
    for (let attempt = 0; attempt < 60 && locations.length === 0; attempt++) {
      locations =
        (await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>('vscode.executeDefinitionProvider', testFile, position)) ?? [];
      if (locations.length === 0) await new Promise((r) => setTimeout(r, 1000));
    }
    const target = locations[0];
    assert.ok(target, 'Pyright answered the definition');
    const uri = 'targetUri' in target ? target.targetUri : target.uri;
    const range = 'targetUri' in target ? (target.targetSelectionRange ?? target.targetRange) : target.range;
    assert.equal(uri.scheme, 'swe-container');
    assert.equal(uri.path, '/repo/ledger/money.py');
    const classLine = readFileSync(path.join(repoDir, 'ledger/money.py'), 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith('class Money'));
    assert.equal(range.start.line, classLine);
  });

  it('a breakpoint before a tool stops the replay there', async () => {
    await launch('replay', { breakpoints: [{ kind: 'tool', tool: 'open' }] });
    const stop = await session.controller.continue();
    assert.deepEqual([stop.reason, stop.index], ['breakpoint', 1]);
    assert.deepEqual(
      viewRows().map((r) => r.label),
      ['1  bash'],
    );
    assert.equal(session.controller.current?.state, 'paused');
    assert.equal((await session.controller.nextActionText()).trim(), 'open "ledger/money.py" 75');
  });

  it('a fork after step 2 replays two steps, then continues against the policy server', async () => {
    server.setScript([thoughtAction('Count the tests again.', 'grep -c "def test_" tests/test_money.py'), thoughtAction('Done.', 'submit')]);
    const before = server.chatRequests.length;
    await launch('fork', { at: 2, then: 'policy' });
    const stop = await session.controller.continue();
    assert.equal(stop.reason, 'submitted');
    const rows = viewRows();
    assert.deepEqual(
      rows.map((r) => r.label),
      ['1  bash', '2  open', '3  bash', '4  submit'],
    );
    assert.match(rows[0]!.description, /matched/);
    assert.doesNotMatch(rows[2]!.description, /matched/);
    assert.equal(server.chatRequests.length - before, 2);
    // The policy saw the system prompt, the task and the two replayed exchanges.
    assert.equal(server.chatRequests[before]!.messages.length, 2 + 2 * 2);
    const trajectory = await session.controller.stop();
    assert.equal(trajectory?.meta.parent?.forkStep, 1);
    assert.equal(trajectory?.steps[2]?.action.raw.trim(), 'grep -c "def test_" tests/test_money.py');
  });

  it('by hand: an action saved in the next-action document runs; a lint-rejected edit shows in Problems', async () => {
    await launch('fork', { at: 0, then: 'person' });
    const running = session.controller.continue();
    await typeNextAction('open ledger/money.py 75', 1);
    await typeNextAction('edit 75:75\n    def allocate(self, ratios:\nend_of_edit', 2);
    const [opened, edit] = session.controller.current!.entries.map((e) => e.step);
    assert.equal(opened?.action.tool, 'open');
    assert.deepEqual([edit?.action.tool, edit?.exitCode, edit?.flags], ['edit', 1, ['lint-rejected']]);
    const problems = vscode.languages.getDiagnostics(containerUri(session.controller.current!.aci.sandbox, '/repo/ledger/money.py'));
    assert.ok(problems.length > 0, 'the rejected edit left problems on the file');
    assert.equal(problems[0]?.source, 'flake8');
    assert.equal(problems[0]?.code, 'E999');
    assert.equal(problems[0]?.range.start.line, 74);
    await session.controller.stop();
    await running;
  });

  it('leaves no container behind once stopped', async () => {
    await session.controller.stop();
    // Docker may still be tearing down the last container; one that stays is a leak.
    await waitUntil(`no container is labelled ${SESSION_ROLE} (left: ${sessionContainers().join(', ')})`, () => sessionContainers().length === 0);
  });
});
