import '../helpers/families';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import * as vscode from 'vscode';
import { CHECK_NAMES, type CheckResult } from '../../extension/core/bugs/consistencyChecks';
import { toCanonicalJson } from '../../extension/core/trajectory/canonicalExport';
import { TrajectorySchema } from '../../extension/core/trajectory/model';
import { extensionInternals } from './internals';
import { recordedLaunch } from './recordedLaunch';
import type { BugsNode } from '../../extension/vscode/bugs/bugsTree';
import { bugsRoot, type BugFolder } from '../../extension/vscode/bugs/bugFolders';
import { BASE_IMAGE } from '../helpers/bugSandboxes';
import { sampleRepoAtHead } from '../helpers/bugWorkspace';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const VALID = 'valid-allocate-and-close';
/** The label every container the Bugs view starts carries (docker ps --filter label=...). */
const BUG_CONTAINER_LABEL = 'swe-workbench.vscode';

/** What `sweWorkbench.bugs.refresh` returns to its caller: the folders found and both views. */
interface BugsViewState {
  folders: BugFolder[];
  tree: vscode.TreeDataProvider<BugsNode>;
  tests: vscode.TestItemCollection;
}

describe('bug authoring in the extension host', () => {
  let workspace: string;
  let bugDir: string;
  let state: BugsViewState;

  const refresh = async () => (state = (await vscode.commands.executeCommand<BugsViewState>('sweWorkbench.bugs.refresh'))!);
  const childrenOf = async (node?: BugsNode) => (await state.tree.getChildren(node)) ?? [];

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    bugDir = path.join(workspace, 'bugs', VALID);
    await cp(path.join(extension.extensionPath, 'test/fixtures/bugs', VALID), bugDir, { recursive: true });
    const half = path.join(workspace, 'bugs', 'half-a-bug');
    await cp(path.join(extension.extensionPath, 'test/fixtures/bugs/variants/garbage-parser'), half, { recursive: true });
    await cp(path.join(bugDir, 'test_script.sh'), path.join(half, 'test_script.sh'));
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await rm(path.join(workspace, 'bugs'), { recursive: true, force: true });
  });

  it('lists the bug folders of the workspace, each with its five files, and one lacking files with what it lacks', async () => {
    await refresh();
    const bugs = (await childrenOf()).filter((n): n is Extract<BugsNode, { kind: 'bug' }> => n.kind === 'bug');
    assert.deepEqual(
      bugs.map((b) => [path.basename(b.folder.dir), b.folder.missing.length]),
      [
        ['half-a-bug', 3],
        [VALID, 0],
      ],
    );
    const valid = bugs.find((b) => b.folder.dir === bugDir)!;
    const files = await childrenOf(valid);
    assert.deepEqual(
      files.map((f) => (f.kind === 'file' ? f.name : f.kind)),
      ['test_script.sh', 'test_files.txt', 'test_parser.py', 'bug_inject.diff', 'test_weaken.diff'],
    );
    const open = (await state.tree.getTreeItem(files[3]!)).command;
    assert.equal(open?.command, 'vscode.open');
    assert.equal((open?.arguments?.[0] as vscode.Uri).fsPath, path.join(bugDir, 'bug_inject.diff'));
    assert.ok(state.tests.get(bugDir), 'the complete bug is in the Testing view');
    assert.equal(state.tests.get(path.join(workspace, 'bugs', 'half-a-bug')), undefined, 'an incomplete one is not');
    assert.deepEqual(
      [...collect(state.tests.get(bugDir)!.children)].map((i) => i.label),
      [...CHECK_NAMES],
    );
  });

  it('runs the seven checks of the valid sample bug in real containers: all pass, in the tree and the Testing view', async function () {
    this.timeout(8 * 60_000);
    const repo = await sampleRepoAtHead(await mkdtemp(path.join(tmpdir(), 'vscode-bug-repo-')));
    const results = await vscode.commands.executeCommand<CheckResult[] | undefined>('sweWorkbench.bugs.runChecks', { bug: bugDir, repo, image: BASE_IMAGE });
    assert.ok(results, 'the checks ran');
    assert.deepEqual(
      results.map((r) => [r.name, r.passed]),
      CHECK_NAMES.map((n) => [n, true]),
      results.map((r) => `${r.name}: ${r.detail}`).join('\n'),
    );

    await refresh();
    const valid = (await childrenOf()).find((n) => n.kind === 'bug' && n.folder.dir === bugDir)!;
    const checks = (await childrenOf(valid)).filter((n) => n.kind === 'check');
    assert.equal(checks.length, 7);
    for (const check of checks) assert.equal(((await state.tree.getTreeItem(check)).iconPath as vscode.ThemeIcon).id, 'pass');
    assert.equal((await state.tree.getTreeItem(valid)).description, '7 of 7 checks pass');

    const parser = state.tests.get(bugDir)!.children.get(`${bugDir}#parser-validity`)!;
    const tests = [...collect(parser.children)].map((i) => i.label);
    const parsed = results.find((r) => r.name === 'parser-validity')!.evidence.statuses!;
    assert.deepEqual(tests.sort(), Object.keys(parsed).sort(), 'the parsed map is in the Testing view');
    assert.ok(
      tests.some((t) => t.startsWith('tests/test_money.py::')),
      tests.join(', '),
    );

    const left = await new Docker().listContainers({ all: true, filters: { label: [BUG_CONTAINER_LABEL] } });
    assert.deepEqual(
      left.map((c) => c.Id),
      [],
      'no container is left behind',
    );
  });

  it('validates the valid sample bug as SWE-smith does in a container: valid, its broken tests FAIL_TO_PASS, no container left', async function () {
    this.timeout(8 * 60_000);
    const repo = await sampleRepoAtHead(await mkdtemp(path.join(tmpdir(), 'vscode-bug-repo-')));
    const verdict = await vscode.commands.executeCommand<{ valid: boolean; FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] } | undefined>(
      'sweWorkbench.bugs.validateSweSmith',
      { bug: bugDir, repo, image: BASE_IMAGE },
    );
    assert.ok(verdict, 'the validation ran');
    assert.equal(verdict.valid, true);
    assert.ok(verdict.FAIL_TO_PASS.length > 0 && verdict.FAIL_TO_PASS.every((t) => t.startsWith('tests/')), verdict.FAIL_TO_PASS.join(', '));
    assert.ok(verdict.PASS_TO_PASS.length > verdict.FAIL_TO_PASS.length, `${verdict.PASS_TO_PASS.length} tests still pass with the bug`);
    const left = await new Docker().listContainers({ all: true, filters: { label: [BUG_CONTAINER_LABEL] } });
    assert.deepEqual(
      left.map((c) => c.Id),
      [],
      'no container is left behind',
    );
  });

  it('a re-run named relative to the workspace that cannot read the bug shows where the file is wrong, and no verdict or test of the run before', async () => {
    const diff = path.join(bugDir, 'bug_inject.diff');
    const original = await readFile(diff, 'utf8');
    await writeFile(diff, original.replace(/^@@ -282,8 /m, '@@ -x282,8 '));
    try {
      const parser = state.tests.get(bugDir)!.children.get(`${bugDir}#parser-validity`)!;
      assert.ok(parser.children.size > 0, 'the run before parsed tests');
      const results = await vscode.commands.executeCommand('sweWorkbench.bugs.runChecks', {
        bug: path.join('bugs', VALID),
        repo: workspace,
        image: BASE_IMAGE,
      });
      assert.equal(results, undefined);
      assert.equal(parser.children.size, 0, 'the Testing view keeps no test of the run before');
      await refresh();
      const valid = (await childrenOf()).find((n) => n.kind === 'bug' && n.folder.dir === bugDir)!;
      assert.deepEqual(
        (await childrenOf(valid)).filter((n) => n.kind === 'check'),
        [],
        'the Bugs view keeps no verdict of the run before',
      );
      const item = await state.tree.getTreeItem(valid);
      assert.equal(item.description, `checks stopped after 0 of 7: ${diff}: line 5: malformed hunk header "@@ -x282,8 +282,6 @@ class Journal:"`);
      assert.equal((item.iconPath as vscode.ThemeIcon).id, 'error');
    } finally {
      await writeFile(diff, original);
    }
  });

  it('captures a fresh container of the repository as a bug, leaving out a bug folder saved in its working tree', async function () {
    this.timeout(3 * 60_000);
    const repo = await sampleRepoAtHead(await mkdtemp(path.join(tmpdir(), 'vscode-bug-repo-')));
    await cp(bugDir, path.join(repo, 'bugs', 'saved-before'), { recursive: true });
    await writeFile(path.join(repo, 'ledger/money.py'), `${await readFile(path.join(repo, 'ledger/money.py'), 'utf8')}\n# rounding drops a cent\n`);
    const target = path.join(workspace, 'bugs', 'from-container');
    try {
      assert.equal(await vscode.commands.executeCommand('sweWorkbench.bugs.capture', { from: 'container', repo, image: BASE_IMAGE, target }), target);
      const inject = await readFile(path.join(target, 'bug_inject.diff'), 'utf8');
      assert.deepEqual(
        inject.split('\n').filter((l) => l.startsWith('+++ ')),
        ['+++ b/ledger/money.py'],
      );
      assert.equal(await readFile(path.join(target, 'test_weaken.diff'), 'utf8'), '');
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
    const left = await new Docker().listContainers({ all: true, filters: { label: [BUG_CONTAINER_LABEL] } });
    assert.deepEqual(
      left.map((c) => c.Id),
      [],
      'the capture removed its container',
    );
  });

  it('captures the working tree of a running replay as a bug, and the session goes on in its untouched container', async function () {
    this.timeout(5 * 60_000);
    const api = await extensionInternals();
    const { controller } = api.session;
    const repo = await sampleRepoAtHead(await mkdtemp(path.join(tmpdir(), 'vscode-bug-repo-')));
    const recording = path.join(path.dirname(repo), `${path.basename(repo)}-edits.traj.json`);
    await writeFile(
      recording,
      editsRecording(['printf "\\n# rounding drops a cent\\n" >> ledger/money.py', 'printf "\\n# fewer checks\\n" >> tests/test_money.py', 'cd ledger']),
    );
    const target = path.join(workspace, 'bugs', 'from-session');
    try {
      await controller.start(await recordedLaunch('replay', vscode.Uri.file(recording), { image: BASE_IMAGE, repoDir: repo }));
      await controller.continue();
      const running = controller.current!;
      const saved = await vscode.commands.executeCommand<string | undefined>('sweWorkbench.bugs.capture', { from: 'session', target });
      assert.equal(saved, target);

      const inject = await readFile(path.join(target, 'bug_inject.diff'), 'utf8');
      assert.match(inject, /^\+\+\+ b\/ledger\/money\.py$/m);
      assert.match(inject, /^\+# rounding drops a cent$/m);
      assert.match(await readFile(path.join(target, 'test_weaken.diff'), 'utf8'), /^\+# fewer checks$/m);
      assert.match(await readFile(path.join(target, 'test_files.txt'), 'utf8'), /^tests\/test_money\.py$/m);

      assert.equal(controller.current, running, 'the same session still runs');
      // The replay ran out of recorded actions: finished, its container kept until the next launch.
      assert.equal(running.state, 'finished');
      const sandbox = running.aci.sandbox;
      assert.equal((await sandbox.exec('pwd')).output.trim(), '/repo/ledger', "the session's shell keeps its directory");
      assert.equal(
        (await sandbox.exec('git status --porcelain', { cwd: '/repo' })).output,
        ' M ledger/money.py\n M tests/test_money.py\n',
        'the index is as the session left it',
      );
      assert.equal(
        (await sandbox.exec('test -e /.swe-workbench-bug && echo left || echo gone')).output.trim(),
        'gone',
        'no scratch file is left in the container',
      );
      const captures = await new Docker().listContainers({ all: true, filters: { label: [BUG_CONTAINER_LABEL] } });
      assert.deepEqual(
        captures.map((c) => c.Id),
        [],
        'no fresh container was started',
      );
    } finally {
      await controller.stop();
      await rm(recording, { force: true });
      await rm(repo, { recursive: true, force: true });
    }
    assert.equal(
      await vscode.commands.executeCommand('sweWorkbench.bugs.capture', { from: 'session', target: `${target}-again` }),
      undefined,
      'with no session there is nothing to capture from',
    );
  });
  it('bugs are saved outside the repository by default, and the view lists those saved beside it', async () => {
    // The workspace folder is the repository: beside it, never inside.
    assert.equal(bugsRoot(workspace), path.join(path.dirname(workspace), `${path.basename(workspace)}-bugs`));
    // Another repository: the workspace folder is not it, so bugs go to its bugs/ folder.
    assert.equal(bugsRoot(path.join(path.dirname(workspace), 'another-repo')), path.join(workspace, 'bugs'));
    const beside = path.join(path.dirname(workspace), `${path.basename(workspace)}-bugs`);
    const configured = path.join(path.dirname(workspace), 'configured-bugs');
    await vscode.workspace.getConfiguration('sweWorkbench').update('bugs.folder', configured, vscode.ConfigurationTarget.Global);
    try {
      assert.equal(bugsRoot(workspace), configured);
    } finally {
      await vscode.workspace.getConfiguration('sweWorkbench').update('bugs.folder', undefined, vscode.ConfigurationTarget.Global);
    }
    const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
    await cp(path.join(extension.extensionPath, 'test/fixtures/bugs', VALID), path.join(beside, 'saved-beside'), { recursive: true });
    try {
      await refresh();
      const listed = (await childrenOf()).flatMap((n) => (n.kind === 'bug' ? [n.folder] : []));
      assert.deepEqual(
        listed.filter((f) => f.dir.startsWith(beside)).map((f) => [path.basename(f.dir), f.missing.length]),
        [['saved-beside', 0]],
      );
    } finally {
      await rm(beside, { recursive: true, force: true });
    }
  });
});

/** A replay recording of shell steps (what they print does not matter here). */
function editsRecording(commands: string[]): string {
  const steps = commands.map((raw, index) => ({ index, thought: `Step ${index + 1}.`, action: { raw, tool: null, args: {} }, observation: '' }));
  return toCanonicalJson(
    TrajectorySchema.parse({
      format: 'canonical',
      task: { image: BASE_IMAGE, repoPath: '/repo' },
      steps,
      outcome: {},
      meta: { parseFunction: 'thought_action' },
    }),
  );
}

function* collect(items: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const all: vscode.TestItem[] = [];
  items.forEach((i) => all.push(i));
  yield* all;
}
