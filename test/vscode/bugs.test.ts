import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import * as vscode from 'vscode';
import { CHECK_NAMES, type CheckResult } from '../../extension/core/bugs/consistencyChecks';
import type { BugsViewState } from '../../extension/vscode/bugs/activateBugs';
import type { BugsNode } from '../../extension/vscode/bugs/bugsTree';
import { BUG_CONTAINER_LABEL } from '../../extension/vscode/bugs/bugEnvironment';
import { BASE_IMAGE } from '../helpers/bugSandboxes';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const VALID = 'valid-allocate-and-close';

describe('bug authoring in the extension host', () => {
  let root: string;
  let workspace: string;
  let bugDir: string;
  let state: BugsViewState;

  const refresh = async () => (state = (await vscode.commands.executeCommand<BugsViewState>('sweWorkbench.bugs.refresh'))!);
  const childrenOf = async (node?: BugsNode) => (await state.tree.getChildren(node)) ?? [];

  before(async () => {
    const extension = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(extension);
    await extension.activate();
    root = extension.extensionPath;
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
    assert.deepEqual(bugs.map((b) => [path.basename(b.folder.dir), b.folder.missing.length]), [['half-a-bug', 3], [VALID, 0]]);
    const valid = bugs.find((b) => b.folder.dir === bugDir)!;
    const files = await childrenOf(valid);
    assert.deepEqual(files.map((f) => (f.kind === 'file' ? f.name : f.kind)), ['test_script.sh', 'test_files.txt', 'test_parser.py', 'bug_inject.diff', 'test_weaken.diff']);
    const open = (await state.tree.getTreeItem(files[3]!)).command;
    assert.equal(open?.command, 'vscode.open');
    assert.equal((open?.arguments?.[0] as vscode.Uri).fsPath, path.join(bugDir, 'bug_inject.diff'));
    assert.ok(state.tests.get(bugDir), 'the complete bug is in the Testing view');
    assert.equal(state.tests.get(path.join(workspace, 'bugs', 'half-a-bug')), undefined, 'an incomplete one is not');
    assert.deepEqual([...collect(state.tests.get(bugDir)!.children)].map((i) => i.label), [...CHECK_NAMES]);
  });

  it('runs the seven checks of the valid sample bug in real containers: all pass, in the tree and the Testing view', async function () {
    this.timeout(8 * 60_000);
    const repo = await sampleRepoAtHead(root);
    const results = await vscode.commands.executeCommand<CheckResult[] | undefined>('sweWorkbench.bugs.runChecks', { bug: bugDir, repo, image: BASE_IMAGE });
    assert.ok(results, 'the checks ran');
    assert.deepEqual(results.map((r) => [r.name, r.passed]), CHECK_NAMES.map((n) => [n, true]), results.map((r) => `${r.name}: ${r.detail}`).join('\n'));

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
    assert.ok(tests.some((t) => t.startsWith('tests/test_money.py::')), tests.join(', '));

    const left = await new Docker().listContainers({ all: true, filters: { label: [BUG_CONTAINER_LABEL] } });
    assert.deepEqual(left.map((c) => c.Id), [], 'no container is left behind');
  });
});

function* collect(items: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const all: vscode.TestItem[] = [];
  items.forEach((i) => all.push(i));
  yield* all;
}

/** The sample repository's final tree as one commit: what the bug's diffs apply to (HEAD). */
async function sampleRepoAtHead(root: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vscode-bug-repo-'));
  await cp(path.join(root, 'test/fixtures/sample-repo/tree'), dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=Sample', '-c', 'user.email=sample@example.invalid', ...args], { cwd: dir });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'sample repository');
  return dir;
}
