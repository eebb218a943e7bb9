import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { askStepper, extensionInternals, openWatched, stepperFor, stepperPage } from './internals';
import { recordedLaunch } from './recordedLaunch';
import type { SessionApi } from '../../extension/vscode/session/activateSession';
import type { AciSession } from '../../extension/core/aci/aciSession';
import type { SessionLaunch } from '../../extension/vscode/session/sessionLaunch';
import { containerUri } from '../../extension/vscode/container/containerFileSystem';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { startPolicyServer, type PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { LEDGER_EPISODE, thoughtAction } from '../helpers/ledgerAgentScript';
import { workspaceState } from '../helpers/workspaceState';
import type { ResponseMessage } from '../../extension/protocol/ipc';
import type { StepDetail, StepSummary, TrajectoryHeader } from '../../extension/protocol/stepper';
import type { SweWorkbenchInternals } from '../../extension/vscode/extension';

const IMAGE = 'swe-workbench/base:bookworm';
/** The `swe-workbench.role` label of containers started from VS Code (SESSION_ROLE). */
const SESSION_ROLE = 'vscode-session';
const repoRoot = path.resolve(__dirname, '../../..');
const sampleTree = path.join(repoRoot, 'test/fixtures/sample-repo/tree');

let session: SessionApi;
let internals: SweWorkbenchInternals;

/** What the stepper showing `uri` answers its page's request `method`, as the page would ask it. */
async function stepperAnswer<T>(uri: vscode.Uri, method: string, params: unknown): Promise<T> {
  const response: ResponseMessage = await askStepper(internals, uri, method, params);
  assert.ok(response.ok, `${method}: ${JSON.stringify(response)}`);
  return response.result as T;
}
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

/**
 * Containers, running or not, that sessions started from this extension host left (the docker CLI
 * keeps native modules out of the test bundle). Only this process's (the owner label): another
 * run on the same engine has its own.
 */
function sessionContainers(): string[] {
  const owner = `${hostname()}:${process.pid}`;
  return execFileSync('docker', ['ps', '-aq', '--filter', `label=swe-workbench.role=${SESSION_ROLE}`, '--filter', `label=swe-workbench.owner=${owner}`], {
    encoding: 'utf8',
  })
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

/** Resolves once `condition` holds, checked now and whenever one of `events` fires (no sleeps); the timeout only ends a hung test. */
function when(what: string, events: vscode.Event<unknown>[], condition: () => boolean, state: () => string = () => ''): Promise<void> {
  if (condition()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const subscriptions: vscode.Disposable[] = [];
    const done = (error?: Error) => {
      clearTimeout(timer);
      for (const s of subscriptions) s.dispose();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`gave up waiting until ${what} ${state()}`)), 120_000);
    for (const event of events) subscriptions.push(event(() => condition() && done()));
  });
}

/** The step (0-based) the next-action editor was last shown on, ready for typing (onDidShowNextAction). */
let lastShown = -1;

const nextActionDocument = () => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'swe-next-action');

/** Waits until the next-action editor is open and active on step `n` (1-based) with nothing typed, as the session shows it by itself. */
async function nextActionAsked(n: number): Promise<vscode.TextDocument> {
  const events = [
    session.controller.onDidChange,
    vscode.workspace.onDidChangeTextDocument,
    vscode.workspace.onDidOpenTextDocument,
    vscode.window.onDidChangeActiveTextEditor,
  ];
  await when(
    `the next-action editor asks for step ${n}`,
    [...events, session.onDidShowNextAction],
    () => {
      const doc = nextActionDocument();
      return (
        lastShown === n - 1 &&
        session.controller.current?.asking === 'person' &&
        vscode.window.activeTextEditor?.document === doc &&
        !!doc &&
        !doc.isDirty &&
        doc.lineCount <= 2 &&
        doc.lineAt(0).text.startsWith(`# SWE Workbench: step ${n} `) &&
        doc.getText().split('\n').slice(1).join('').trim() === ''
      );
    },
    () => {
      const doc = nextActionDocument();
      return JSON.stringify({
        asking: session.controller.current?.asking,
        state: session.controller.current?.state,
        entries: session.controller.current?.entries.length,
        active: vscode.window.activeTextEditor?.document.uri.toString(),
        dirty: doc?.isDirty,
        text: doc?.getText(),
        lastShown,
      });
    },
  );
  return nextActionDocument()!;
}

/** Types `text` below the hint line of the next-action document (not saved). */
async function typeBelowHint(doc: vscode.TextDocument, text: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(1, 0, doc.lineCount, 0), text);
  assert.ok(await vscode.workspace.applyEdit(edit), 'the typed action went into the document');
}

/** A canonical trajectory of one step whose task names `baseCommit`: a recording made on that repository. */
function recordingOn(baseCommit: string, file: string): Promise<vscode.Uri> {
  return loadTrajectory(recorded.fsPath).then(({ trajectory }) => {
    const target = path.join(scratch, file);
    writeFileSync(target, JSON.stringify({ ...trajectory, task: { ...trajectory.task, baseCommit } }));
    return vscode.Uri.file(target);
  });
}

async function launch(mode: SessionLaunch['mode'], extra: Partial<SessionLaunch> = {}): Promise<void> {
  const base = await recordedLaunch(mode, recorded, { image: IMAGE, repoDir });
  await session.controller.start({ ...base, ...extra });
}

describe('Session: replay, breakpoints, fork and the container in VS Code', function () {
  this.timeout(300_000);

  before(async () => {
    internals = await extensionInternals();
    session = internals.session;
    session.onDidShowNextAction((index) => (lastShown = index));
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
      ['1  grep -n "def allocate" ledger/money.py', '2  open "ledger/money.py" 75', '3  grep -c "def test_" tests/test_money.py', '4  submit'],
    );
    recorded = vscode.Uri.file(path.join(scratch, 'live.json'));
    await session.controller.save(recorded);
    const { trajectory } = await loadTrajectory(recorded.fsPath);
    assert.equal(trajectory.steps.length, 4);
    assert.deepEqual(trajectory.steps[1]?.action.args, { path: 'ledger/money.py', line_number: 75 });
    assert.equal(trajectory.meta.parseFunction, 'thought_action');
    assert.match(trajectory.steps[0]?.observation ?? '', /^75:    def allocate\(self, ratios\):$/m);
    // The server's token ids are recorded beside the logprobs, so the token view has ids and text.
    for (const step of trajectory.steps) {
      const ids = step.tokenIds?.completion ?? [];
      assert.ok(ids.length > 0 && (step.tokenIds?.prompt?.length ?? 0) > 0, `step ${step.index + 1} records its prompt and completion ids`);
      assert.equal(ids.length, step.logprobs?.length, `step ${step.index + 1}: one logprob per completion id`);
    }
    assert.equal(session.controller.current?.state, 'stopped');
  });

  it('the stepper follows a live run step by step with its actions and observations; a Session row opens its step there', async () => {
    server.setScript(LEDGER_EPISODE);
    await session.controller.start({ mode: 'live', image: IMAGE, repoDir, repoPath: '/repo', problemStatement: 'Money.allocate must keep every cent.' });
    await session.controller.step();
    const uri = session.controller.current!.trajectoryUri;
    // The session's trajectory opens without asking for a file, on the step just done; the steps
    // its page reports on screen are watched from then on.
    const page = await openWatched(internals, uri, () => vscode.commands.executeCommand('sweWorkbench.session.openInStepper'));
    const shown = () => page.shown();
    const firstPage = stepperPage(internals, uri);
    await waitUntil('the stepper shows step 1 of the running session', () => shown() === 0);
    const [first] = (await stepperAnswer<{ steps: StepDetail[] }>(uri, 'steps/details', { start: 0, end: 1 })).steps;
    assert.equal(first?.action.raw, 'grep -n "def allocate" ledger/money.py');
    assert.match(first?.observation ?? '', /^75:    def allocate\(self, ratios\):$/m);

    // Each step the session runs comes into the stepper, which stays on the newest: sent to the
    // page, which appends it, not a page loaded again for each step.
    await session.controller.step();
    await waitUntil('the stepper follows the run to step 2', () => shown() === 1);
    // A person who went back to step 1 stays there while the run goes on.
    await vscode.commands.executeCommand('sweWorkbench.session.revealStep', 0);
    await waitUntil('the stepper shows step 1', () => shown() === 0);
    const chosen = page.lines.length;
    const written: number[] = [];
    const writes = session.controller.onDidWriteTrajectory(({ stepCount }) => written.push(stepCount));
    assert.equal((await session.controller.continue()).reason, 'submitted');
    await when('the trajectory file has the four steps', [session.controller.onDidWriteTrajectory], () => written.includes(4));
    writes.dispose();
    // The stepper follows the file one rewrite after another: once this one is followed, the
    // steps the run wrote have been sent to the page, which takes its messages in order.
    await (await stepperFor(internals, uri)).follow(4);
    await vscode.commands.executeCommand('sweWorkbench.session.revealStep', 3);
    await waitUntil('the page shows step 4, which it has been sent', () => shown() === 3);
    assert.deepEqual(page.lines.slice(chosen), ['shows step 4'], 'the page stayed on the step the person chose while the steps came in');
    assert.equal(stepperPage(internals, uri), firstPage, 'one page for the whole run: the steps were sent to it, not a page loaded again');
    const header = await stepperAnswer<TrajectoryHeader>(uri, 'trajectory/open', {});
    assert.equal(header.stepCount, 4);
    const { summaries } = await stepperAnswer<{ summaries: StepSummary[] }>(uri, 'steps/summaries', { start: 0, end: 4 });
    // The Session view's rows name the steps as the stepper's timeline does.
    assert.deepEqual(
      viewRows().map((r) => r.label),
      summaries.map((s) => `${s.index + 1}  ${s.label}`),
    );
    const [third] = (await stepperAnswer<{ steps: StepDetail[] }>(uri, 'steps/details', { start: 2, end: 3 })).steps;
    assert.match(third?.observation ?? '', /^\d+$/m);

    // A row opens its step in the stepper, not a JSON buffer.
    const untitled = () => vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'untitled').length;
    const before = untitled();
    const row = session.tree.getTreeItem({ kind: 'step', index: 1 });
    assert.ok(row.command);
    await vscode.commands.executeCommand(row.command.command, ...(row.command.arguments ?? []));
    await waitUntil('the stepper shows step 2', () => shown() === 1);
    page.dispose();
    assert.equal(untitled(), before);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    // The next session replaces this one: its trajectory file leaves the extension's storage.
    assert.ok(existsSync(uri.fsPath));
    await session.controller.start({ mode: 'live', image: IMAGE, repoDir, repoPath: '/repo', problemStatement: 'Money.allocate must keep every cent.' });
    await waitUntil("the replaced session's trajectory file is deleted", () => !existsSync(path.dirname(uri.fsPath)));
  });

  it('replays the recording with every step matched in the Session view; the container files are served', async () => {
    await launch('replay');
    const stop = await session.controller.continue();
    assert.equal(stop.reason, 'submitted');
    const rows = viewRows();
    assert.equal(rows.length, 4);
    for (const row of rows) assert.match(row.description, /exit 0 · [\d.]+ m?s · matched$/, `${row.label}: ${row.description}`);
    // The episode is over: finished in the status bar and the view, and nothing is left to run.
    assert.equal(session.controller.current?.state, 'finished');
    assert.match(session.status.sandbox.text, /sandbox finished \(submitted\)$/);
    assert.match(String(session.tree.getTreeItem({ kind: 'session' }).description), /^finished \(submitted\) · 4 steps$/);
    await assert.rejects(session.controller.step(), /the session has finished \(submitted\): nothing is left to run/);

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

    // The next launch does not ask to stop a finished session: it replaces it.
    const finished = session.controller.current!;
    const asked: string[] = [];
    session.choices.prompts.confirmStop = async (title, verb) => (asked.push(`${verb}: ${title}`), false);
    const next = await session.start(await recordedLaunch('replay', recorded, { image: IMAGE, repoDir }), 'Replay');
    assert.deepEqual(asked, []);
    assert.ok(next && next !== finished);
    assert.equal(finished.state, 'stopped');
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
      ['1  grep -n "def allocate" ledger/money.py'],
    );
    assert.equal(session.controller.current?.state, 'paused');
    assert.equal((await session.controller.nextActionText()).trim(), 'open "ledger/money.py" 75');
  });

  it("a fork after step 2 restores the earlier replay's snapshot (kept since it stopped), then continues against the policy server", async () => {
    server.setScript([thoughtAction('Count the tests again.', 'grep -c "def test_" tests/test_money.py'), thoughtAction('Done.', 'submit')]);
    const before = server.chatRequests.length;
    await launch('fork', { at: 2, then: 'policy' });
    const stop = await session.controller.continue();
    assert.equal(stop.reason, 'submitted');
    const rows = viewRows();
    assert.deepEqual(
      rows.map((r) => r.label),
      ['1  grep -n "def allocate" ledger/money.py', '2  open "ledger/money.py" 75', '3  grep -c "def test_" tests/test_money.py', '4  submit'],
    );
    // The replay of the first tests stopped long ago; its snapshot after step 2 is restored, nothing replayed.
    assert.equal(session.controller.current?.fork?.note, 'restored the snapshot after step 2');
    assert.match(rows[0]!.description, /restored$/);
    assert.match(rows[1]!.description, /restored$/);
    assert.doesNotMatch(rows[2]!.description, /matched|restored/);
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

  it('the repository is the workspace folder holding the recorded base commit; asked for nothing', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).trim();
    const uri = await recordingOn(head, 'on-the-repo.json');
    const other = path.join(scratch, 'workbench');
    mkdirSync(other, { recursive: true });
    const { trajectory } = await loadTrajectory(uri.fsPath);
    let asked = 0;
    session.choices.prompts.pickRepository = async () => (asked++, other);
    assert.equal(await session.choices.repository({ key: uri.toString(), task: trajectory.task, folders: [other, repoDir] }), repoDir);
    assert.equal(asked, 0);
  });

  it('two folders and a recording naming neither: asked once, remembered for the trajectory, offered first for the next one', async () => {
    const [first, second] = ['workbench', 'sample-repo'].map((name) => path.join(scratch, 'two', name));
    for (const dir of [first!, second!]) mkdirSync(dir, { recursive: true });
    const offered: (readonly string[])[] = [];
    session.choices.prompts.pickRepository = async (folders) => (offered.push(folders), second);
    const key = vscode.Uri.file(path.join(scratch, 'two', 'a.traj')).toString();
    const task = { instanceId: 'x' };
    assert.equal(await session.choices.repository({ key, task, folders: [first!, second!] }), second);
    assert.equal(await session.choices.repository({ key, task, folders: [first!, second!] }), second);
    assert.equal(offered.length, 1, 'asked once for the trajectory');
    assert.deepEqual(offered[0], [first, second]);
    const another = vscode.Uri.file(path.join(scratch, 'two', 'b.traj')).toString();
    session.choices.prompts.pickRepository = async (folders) => (offered.push(folders), folders[0]);
    assert.equal(await session.choices.repository({ key: another, task, folders: [first!, second!] }), second);
    assert.deepEqual(offered[1], [second, first], 'the last answer is offered first');
  });

  it("a bug's checks ask for the repository in words about the bug; a recording's replay about the recording", async () => {
    const [first, second] = ['workbench', 'sample-repo'].map((name) => path.join(scratch, 'words', name));
    for (const dir of [first!, second!]) mkdirSync(dir, { recursive: true });
    const asked: string[] = [];
    session.choices.prompts.pickRepository = async (_offered, why) => (asked.push(why), second);
    const folders = [first!, second!];
    assert.equal(await session.choices.repository({ key: 'words-bug', purpose: 'the repository the bug belongs to', folders }), second);
    assert.equal(await session.choices.repository({ key: 'words-traj', task: { instanceId: 'x' }, folders }), second);
    assert.deepEqual(asked, [
      'The workspace has several folders: pick the repository the bug belongs to; the answer is remembered',
      'The workspace has several folders and the recording names none of them; the answer is remembered',
    ]);
  });

  it('a missing image says what is needed and offers a local image or the base image (no Pull while pulling is off); the choice is remembered', async () => {
    const missing = 'swe-workbench/no-such-image:never-built';
    const base = await recordedLaunch('replay', recorded, { image: missing, repoDir });
    const asked: { message: string; choices: readonly string[] }[] = [];
    // Declined: the start fails and the status bar does not stay on "sandbox starting".
    session.choices.prompts.missingImage = async (message, choices) => (asked.push({ message, choices }), undefined);
    const starting: (string | undefined)[] = [];
    const listening = session.controller.onDidChange(() => starting.push(session.controller.starting));
    assert.equal(await session.start(base, 'Replay'), undefined);
    listening.dispose();
    // The engine was asked first: no container start (and no "starting a container" notification) for an image it has not.
    assert.deepEqual(
      starting.filter((s) => s !== undefined),
      [],
    );
    assert.equal(session.controller.starting, undefined);
    assert.doesNotMatch(session.status.sandbox.text, /starting/);
    assert.match(asked[0]!.message, new RegExp(`needs the image '${missing}', which is not on the Docker engine`));
    assert.match(asked[0]!.message, /Pulling is off \(set sweWorkbench\.docker\.allowPull/);
    assert.deepEqual(asked[0]!.choices, ['Pick a Local Image', 'Use the Base Image']);

    let images: readonly string[] = [];
    session.choices.prompts.missingImage = async (message, choices) => (asked.push({ message, choices }), 'Pick a Local Image');
    session.choices.prompts.pickImage = async (list) => ((images = list), IMAGE);
    const started = await session.start(base, 'Replay');
    assert.equal(started?.launch.image, IMAGE);
    assert.ok(images.includes(IMAGE), `the engine's images were offered: ${images.join(', ')}`);
    assert.equal(await session.choices.image(missing), IMAGE, 'the image chosen instead is remembered');

    await session.controller.stop();
    await vscode.workspace.getConfiguration('sweWorkbench').update('docker.allowPull', true, vscode.ConfigurationTarget.Global);
    try {
      session.choices.prompts.missingImage = async (message, choices) => (asked.push({ message, choices }), undefined);
      assert.equal(await session.start({ ...base, image: `${missing}-2` }, 'Replay'), undefined);
      assert.deepEqual(asked.at(-1)!.choices, ['Pull', 'Pick a Local Image', 'Use the Base Image']);
    } finally {
      await vscode.workspace.getConfiguration('sweWorkbench').update('docker.allowPull', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("an R2E-Gym recording started on an image without R2E-Gym's interpreter offers the R2E-Gym image, which replays it with every step matched", async () => {
    // The demo's R2E-Gym recording starts before the fix: its base commit is here the sample
    // repository with the fix taken back out, committed on top.
    const beforeFix = path.join(scratch, 'repo-before-fix');
    cpSync(repoDir, beforeFix, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
        cwd: beforeFix,
        encoding: 'utf8',
      }).trim();
    git('apply', '--reverse', path.join(repoRoot, 'test/fixtures/sample-repo/fix-allocate-remainder.patch'));
    git('commit', '-q', '-am', 'before the fix');
    const head = git('rev-parse', 'HEAD');
    const demo = JSON.parse(readFileSync(path.join(repoRoot, 'demo/trajectories/ledger-allocate.r2e-gym.jsonl'), 'utf8')) as { ds: { base_commit: string } };
    const file = path.join(scratch, 'ledger-allocate.r2e-gym.jsonl');
    writeFileSync(file, JSON.stringify({ ...demo, ds: { ...demo.ds, base_commit: head } }) + '\n');
    const launch = await recordedLaunch('replay', vscode.Uri.file(file), { image: IMAGE, repoDir: beforeFix });
    const asked: { message: string; choices: readonly string[] }[] = [];
    session.choices.prompts.missingImage = async (message, choices) => (asked.push({ message, choices }), 'Use the R2E-Gym Image');
    const started = await session.start(launch, 'Replay');
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.message, /runs R2E-Gym's tools, which need \/root\/\.venv\/bin\/python; the image 'swe-workbench\/base:bookworm' has none/);
    assert.deepEqual(asked[0]!.choices, ['Use the R2E-Gym Image', 'Pick a Local Image']);
    assert.equal(started?.launch.image, 'swe-workbench/r2e:bookworm');
    assert.equal((await session.controller.continue()).reason, 'submitted');
    const rows = viewRows();
    assert.equal(rows.length, 6);
    for (const row of rows) assert.match(row.description, /matched$/, `${row.label}: ${row.description}`);
  });

  it('a fork never replaces a running session without asking; "Stop and Fork" does, and names the fork after its step', async () => {
    await launch('replay');
    const replay = session.controller.current!;
    const fork = await recordedLaunch('fork', recorded, { image: IMAGE, repoDir, at: 2, then: 'person' });
    const asked: string[] = [];
    session.choices.prompts.confirmStop = async (title, verb) => (asked.push(`${verb}: ${title}`), false);
    assert.equal(await session.start(fork, 'Fork'), undefined);
    assert.equal(session.controller.current, replay);
    assert.notEqual(replay.state, 'stopped');
    session.choices.prompts.confirmStop = async (title, verb) => (asked.push(`${verb}: ${title}`), true);
    const forked = await session.start(fork, 'Fork');
    assert.deepEqual(asked, ['Fork: replay live.json', 'Fork: replay live.json']);
    assert.equal(replay.state, 'stopped');
    assert.equal(forked?.title, 'fork of live.json after step 2');
  });

  it('ten hand-typed steps in a row through the next-action editor, the first saved while paused; Stop with an unsaved action keeps it', async () => {
    await launch('fork', { at: 2, then: 'person' });
    const paused = await session.controller.runTo(2);
    assert.equal(paused.reason, 'run-to');
    // Paused before step 3, the person next: opening the editor does not wait for the person (the reported stall).
    await vscode.commands.executeCommand('sweWorkbench.session.editNext');
    const steps: [string, RegExp][] = [
      ['open ledger/money.py 75', /^75:    def allocate\(self, ratios\):$/m],
      ['goto 1', /^1:"""Exact amounts of money in a single currency\."""$/m],
      ['echo typed-by-hand', /^typed-by-hand$/m],
      ['grep -c "def test_" tests/test_money.py', /^\d+$/m],
      ['echo cents > notes.txt', /^$/],
      ['cat notes.txt', /^cents$/m],
      ['ls ledger', /^money\.py$/m],
      ['python3 -c "print(6 * 7)"', /^42$/m],
      ['pwd', /^\/repo$/m],
      ['goto 75', /^75:    def allocate\(self, ratios\):$/m],
    ];
    let doc = nextActionDocument()!;
    await when('the editor shows step 3', [vscode.workspace.onDidChangeTextDocument], () => doc.lineAt(0).text.startsWith('# SWE Workbench: step 3 '));
    assert.match(doc.lineAt(0).text, /^# SWE Workbench: step 3 \(swe-agent@[^)]+\), one action in its syntax: .*open .*; save to run it$/);
    for (const [i, [action, observation]] of steps.entries()) {
      const n = i + 3;
      if (i > 0) doc = await nextActionAsked(n);
      await typeBelowHint(doc, action);
      assert.equal(await doc.save(), true, `step ${n} saved`);
      await when(`step ${n} has run`, [session.controller.onDidChange], () => session.controller.current?.entries.length === n);
      const step = session.controller.current!.entries[n - 1]!.step;
      assert.equal(step.action.raw.trim(), action);
      assert.equal(step.exitCode, 0, `step ${n}: ${step.observation}`);
      assert.match(step.observation.trim(), observation, `step ${n} (${action})`);
    }
    assert.equal(session.controller.current!.entries.length, 12);

    // Stop while an action is typed but not saved: the text stays; saving it then runs nothing and says why, no FileSystemError.
    doc = await nextActionAsked(13);
    await typeBelowHint(doc, 'echo typed-before-stop');
    await session.controller.stop();
    assert.equal(doc.isDirty, true);
    const reports: string[] = [];
    session.nextAction.report = (message) => reports.push(message);
    assert.equal(await doc.save(), true);
    assert.match(reports[0] ?? '', /no session is running, so the action was not run\. It is kept/);
    assert.match(doc.getText(), /^echo typed-before-stop$/m);

    // The kept action is shown again when the next hand-driven session asks, and saving runs it.
    await launch('fork', { at: 0, then: 'person' });
    void session.controller.continue();
    await when('the kept action is shown for step 1', [vscode.workspace.onDidChangeTextDocument, session.controller.onDidChange], () => {
      const shown = nextActionDocument();
      return (
        session.controller.current?.asking === 'person' &&
        !!shown?.isDirty &&
        shown.lineAt(0).text.startsWith('# SWE Workbench: step 1 ') &&
        /^echo typed-before-stop$/m.test(shown.getText())
      );
    });
    assert.equal(await nextActionDocument()!.save(), true);
    await when('the kept action has run', [session.controller.onDidChange], () => session.controller.current?.entries.length === 1);
    assert.equal(session.controller.current!.entries[0]!.step.observation.trim(), 'typed-before-stop');
  });

  it('typing the moment the editor asks: half an action typed as the hint shows is never saved, nor run, by the editor; saving the whole one runs it, once', async () => {
    await launch('fork', { at: 0, then: 'person' });
    void session.controller.continue();
    let doc = await nextActionAsked(1);
    await typeBelowHint(doc, 'echo first');
    assert.equal(await doc.save(), true);
    // The moment the hint for step 2 shows, before the editor has told that it is ready, the person
    // types half an action (the editor once saved the hint after writing it: that save took this).
    const half = new Promise<void>((resolve) => {
      const listener = vscode.workspace.onDidChangeTextDocument((event) => {
        const shown = event.document;
        if (shown.uri.scheme !== 'swe-next-action' || !shown.lineAt(0).text.startsWith('# SWE Workbench: step 2 ')) return;
        listener.dispose();
        const edit = new vscode.WorkspaceEdit();
        edit.replace(shown.uri, new vscode.Range(1, 0, shown.lineCount, 0), 'echo sec');
        void vscode.workspace.applyEdit(edit).then(() => resolve());
      });
    });
    await half;
    await when('the editor has shown step 2', [session.onDidShowNextAction], () => lastShown >= 1);
    doc = nextActionDocument()!;
    assert.match(doc.getText(), /^echo sec$/m, 'the half-typed text stays in the document');
    assert.equal(doc.isDirty, true, 'the half-typed text is not saved');
    assert.equal(session.controller.current!.entries.length, 1, 'the half-typed action did not run');
    assert.equal(session.controller.current!.asking, 'person');
    await typeBelowHint(doc, 'echo second');
    assert.equal(await doc.save(), true);
    await when('step 2 has run', [session.controller.onDidChange], () => session.controller.current?.entries.length === 2);
    await nextActionAsked(3);
    const entries = session.controller.current!.entries;
    assert.deepEqual(
      entries.map((e) => e.step.action.raw.trim()),
      ['echo first', 'echo second'],
    );
    assert.equal(entries[1]!.step.observation.trim(), 'second');
    await session.controller.stop();
  });

  it("Fork after step N of a running, then of a stopped replay restores its snapshot: only later steps are replayed, the workspace is the replay's at step N", async () => {
    // A recording that changes files: made by a live run, saved as the person would.
    server.setScript([
      thoughtAction('Leave a note.', 'echo cents > notes.txt'),
      thoughtAction('Open the method.', 'open "ledger/money.py" 75'),
      thoughtAction('Make it exact.', 'sed -i "s/def allocate(self, ratios)/def allocate(self, ratios, *, exact=True)/" ledger/money.py'),
      thoughtAction('Read the note.', 'cat notes.txt'),
      thoughtAction('Done.', 'submit'),
    ]);
    await session.controller.start({ mode: 'live', image: IMAGE, repoDir, repoPath: '/repo', problemStatement: 'Money.allocate must keep every cent.' });
    assert.equal((await session.controller.continue()).reason, 'submitted');
    const edits = vscode.Uri.file(path.join(scratch, 'edits.json'));
    await session.controller.save(edits);
    // Another copy of the repository: only this test's sessions have snapshots of it.
    const forkRepo = sampleRepository(path.join(scratch, 'fork-repo'));
    const launchOf = (mode: SessionLaunch['mode'], at?: number) =>
      recordedLaunch(mode, edits, { image: IMAGE, repoDir: forkRepo, ...(at !== undefined ? { at, then: 'person' as const } : {}) });

    const replay = await session.start(await launchOf('replay'), 'Replay');
    assert.ok(replay);
    assert.equal((await session.controller.runTo(3)).index, 3);
    const atThree = await workspaceState(replay.aci);
    assert.match(String(atThree.files), / \.\/notes\.txt$/m);
    assert.match(String(atThree.diff), /\+    def allocate\(self, ratios, \*, exact=True\):/);

    // Fork after step 4 while the replay is paused after step 3: Stop and Fork.
    session.choices.prompts.confirmStop = async () => true;
    const four = await session.start(await launchOf('fork', 4), 'Fork');
    assert.ok(four);
    assert.equal(replay.state, 'stopped');
    assert.equal(four.fork?.note, 'restored the snapshot after step 3, replaying step 4');
    assert.match(String(session.tree.getTreeItem({ kind: 'session' }).tooltip), /restored the snapshot after step 3, replaying step 4/);
    assert.deepEqual(await workspaceState(four.aci), atThree, "the fork starts from the replay's workspace after step 3");
    assert.equal((await session.controller.runTo(4)).index, 4);
    assert.deepEqual(
      viewRows().map((r) => [r.label, r.description.split(' · ').at(-1)]),
      [
        ['1  echo cents > notes.txt', 'restored'],
        ['2  open "ledger/money.py" 75', 'restored'],
        ['3  sed -i "s/def allocate(self, ratios)/def allocate(self, ratios, *, exact=True)/…', 'restored'],
        ['4  cat notes.txt', 'matched'],
      ],
    );

    // Fork after step 3 of the replay, stopped since: its snapshot is still there; nothing is replayed.
    const three = await session.start(await launchOf('fork', 3), 'Fork');
    assert.ok(three);
    assert.equal(four.state, 'stopped');
    assert.equal(three.fork?.note, 'restored the snapshot after step 3');
    assert.deepEqual(await workspaceState(three.aci), atThree);
    assert.equal((await session.controller.runTo(3)).index, 3);
    assert.deepEqual(
      viewRows().map((r) => r.description.split(' · ').at(-1)),
      ['restored', 'restored', 'restored'],
    );
  });

  it("leaves no container behind once stopped and the stopped sessions' snapshots are removed", async () => {
    await session.controller.stop();
    assert.ok(sessionContainers().length > 0, 'stopped sessions keep their containers for their snapshots');
    await vscode.commands.executeCommand('sweWorkbench.session.releaseSnapshots');
    // Docker may still be tearing down the last container; one that stays is a leak.
    await waitUntil(`no container is labelled ${SESSION_ROLE} (left: ${sessionContainers().join(', ')})`, () => sessionContainers().length === 0);
  });
});
