import '../helpers/families';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SweWorkbenchApi, SweWorkbenchInternals } from '../../extension/vscode/extension';
import { askStepper, extensionInternals, openWatched, stepperPage } from './internals';
import { safeParse, type ResponseMessage } from '../../extension/protocol/ipc';
import { STEPPER_BOOT_ELEMENT, StepperBootSchema, type StepperBoot } from '../../extension/protocol/stepper';
import { TrajectoryRecorder, writeTrajectoryFile } from '../../extension/core/session/trajectoryRecorder';
import type { Step } from '../../extension/core/trajectory/model';
import { mochaThirdParty } from '../helpers/mochaShared';
import { codeLines, writeTrajectory } from '../../bench/load/largeTrajectory';

const EXTENSION_ID = 'swe-workbench.swe-workbench';
const thirdParty = mochaThirdParty();
const marshmallow = thirdParty.path('swe-agent/marshmallow-1867.windowed.traj');
const openhands = thirdParty.path('openhands/basic.json');

let api: SweWorkbenchInternals;

/** Sends a request as the stepper's webview would (once the editor has resolved). */
function request(uri: vscode.Uri, method: string, params: unknown): Promise<ResponseMessage> {
  return askStepper(api, uri, method, params);
}

/** The extension's public API, as another extension calls it. */
function publicApi(): SweWorkbenchApi {
  const extension = vscode.extensions.getExtension<SweWorkbenchApi>(EXTENSION_ID);
  assert.ok(extension?.isActive, 'the extension is active');
  return extension.exports;
}

/** The payload embedded in the page of the stepper showing `uri`, checked as the webview checks it. */
function embeddedBoot(uri: vscode.Uri): Extract<StepperBoot, { ok: true }> {
  const html = stepperPage(api, uri);
  assert.ok(html, `a stepper shows ${uri.fsPath}`);
  const match = new RegExp(`<script type="application/json" id="${STEPPER_BOOT_ELEMENT}">([^<]*)</script>`).exec(html);
  assert.ok(match?.[1], 'the page embeds its first step');
  const parsed = safeParse(StepperBootSchema, JSON.parse(match[1]));
  assert.ok(parsed.success && parsed.data.ok, 'the payload parses and carries the trajectory');
  return parsed.data;
}

/** Polls `read` until `ok` holds of its value (the page is rendered again after a view change). */
async function eventually<T>(read: () => T, ok: (value: T) => boolean, what: string, attempts = 100): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = read();
    if (ok(value)) return value;
    if (attempt >= attempts) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const DIFF = 'diff --git a/ledger/money.py b/ledger/money.py\n--- a/ledger/money.py\n+++ b/ledger/money.py\n@@ -1 +1 @@\n-CENTS = 100\n+CENTS = 1000\n';

/** A replay's recording as the session writes it: step 2 changed money.py, step 3 diverged from the original. */
async function writeRecording(): Promise<vscode.Uri> {
  const recorder = new TrajectoryRecorder({ repo: 'ledger', repoPath: '/repo' });
  const steps: Step[] = [
    {
      index: 0,
      thought: 'Find it.',
      action: { raw: 'grep -n CENTS ledger/money.py', tool: 'bash', args: { command: 'grep -n CENTS ledger/money.py' } },
      observation: '1:CENTS = 100',
      exitCode: 0,
    },
    {
      index: 1,
      thought: 'Change it.',
      action: { raw: 'sed -i s/100/1000/ ledger/money.py', tool: 'bash', args: { command: 'sed -i s/100/1000/ ledger/money.py' } },
      observation: '',
      exitCode: 0,
      state: { openFile: null, workingDir: '/repo', diff: DIFF },
    },
    {
      index: 2,
      thought: 'Test.',
      action: { raw: 'python -m pytest -q', tool: 'bash', args: { command: 'python -m pytest -q' } },
      observation: '1 failed',
      exitCode: 1,
      flags: ['diverged'],
    },
  ];
  for (const step of steps) recorder.append(step);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'swe-workbench-replayed-')), 'replayed.traj.json');
  await writeTrajectoryFile(file, recorder.trajectory({ exitStatus: 'submitted' }));
  return vscode.Uri.file(file);
}

function result<T>(response: ResponseMessage): T {
  if (!response.ok) assert.fail(`request failed: ${response.error.code}: ${response.error.message}`);
  return response.result as T;
}

describe('SWE Workbench in the extension host', () => {
  before(async () => {
    api = await extensionInternals();
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
    assert.deepEqual(
      contributed.filter((c) => !registered.has(c)),
      [],
    );
  });

  it('reads its settings with the documented defaults', () => {
    const config = vscode.workspace.getConfiguration('sweWorkbench');
    assert.equal(config.get('policy.url'), 'http://127.0.0.1:8000/v1');
    assert.equal(config.get('limits.memoryMb'), 4096);
  });

  thirdParty.it('opens a SWE-agent trajectory in the stepper and serves its steps by range', async () => {
    const uri = vscode.Uri.file(marshmallow);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const source = JSON.parse(readFileSync(marshmallow, 'utf8')) as { trajectory: { action: string; observation: string }[] };
    const header = result<{ stepCount: number; format: string; fileName: string; tools: string[] }>(await request(uri, 'trajectory/open', {}));
    assert.equal(header.format, 'swe-agent');
    assert.equal(header.fileName, 'marshmallow-1867.windowed.traj');
    assert.equal(header.stepCount, source.trajectory.length);
    assert.ok(header.tools.includes('create') && header.tools.includes('edit'), `tools: ${header.tools.join(', ')}`);

    const { summaries } = result<{ summaries: { index: number; tool: string | null; label: string }[] }>(
      await request(uri, 'steps/summaries', { start: 0, end: 3 }),
    );
    assert.deepEqual(
      summaries.map((s) => s.index),
      [0, 1, 2],
    );
    assert.equal(summaries[0]?.tool, 'create');
    assert.equal(summaries[0]?.label, 'create reproduce.py');
    assert.equal(summaries[1]?.label, 'edit 1:1');

    const { steps } = result<{ steps: { index: number; action: { raw: string }; observation: string }[] }>(
      await request(uri, 'steps/details', { start: 2, end: 3 }),
    );
    assert.equal(steps[0]?.index, 2);
    assert.equal(steps[0]?.action.raw.trim(), 'python reproduce.py');
    assert.equal(steps[0]?.observation.trim(), source.trajectory[2]?.observation.trim());

    const { indices } = result<{ indices: number[] }>(await request(uri, 'steps/search', { query: 'REPRODUCE.PY', caseSensitive: false }));
    assert.ok(indices.includes(0) && indices.includes(2), `matches: ${indices.join(', ')}`);
  });

  thirdParty.it('answers a bad request with an error that names the field', async () => {
    const uri = vscode.Uri.file(marshmallow);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const response = await request(uri, 'steps/details', { start: 5, end: 2 });
    assert.equal(response.ok, false);
    assert.match(response.ok ? '' : response.error.message, /end must not be before start/);
  });

  thirdParty.it('opens any JSON trajectory through "Open With" and the raw JSON of a step in an editor', async () => {
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
    assert.ok(
      events.some((e) => JSON.stringify(e) === JSON.stringify(Array.isArray(raw) ? raw[0] : raw)),
      'the raw JSON is a record of the file',
    );
  });

  it('opens an OpenHands V1 conversation folder from the explorer, and any of its event files opens the same', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-ohv1-'));
    mkdirSync(path.join(dir, 'events'));
    const id = (n: number) => `dddddddd-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const events = [
      { id: id(0), source: 'user', llm_message: { role: 'user', content: [{ type: 'text', text: 'List the files.' }] }, kind: 'MessageEvent' },
      {
        id: id(1),
        parent_id: id(0),
        source: 'agent',
        thought: [],
        action: { command: 'ls', kind: 'TerminalAction' },
        tool_name: 'terminal',
        tool_call_id: 'c1',
        tool_call: { id: 'c1', name: 'terminal', arguments: '{"command": "ls"}' },
        llm_response_id: 'r1',
        kind: 'ActionEvent',
      },
      {
        id: id(2),
        parent_id: id(1),
        source: 'environment',
        tool_name: 'terminal',
        tool_call_id: 'c1',
        observation: { content: [{ type: 'text', text: 'README' }], kind: 'TerminalObservation' },
        action_id: id(1),
        kind: 'ObservationEvent',
      },
    ];
    events.forEach((e, i) => writeFileSync(path.join(dir, 'events', `event-0000${i}-${e.id}.json`), JSON.stringify(e)));
    writeFileSync(path.join(dir, 'base_state.json'), JSON.stringify({ id: 'conv', agent: { llm: { model: 'm' } }, leaf_event_id: id(2) }));
    // The explorer's "Open Trajectory" on the folder: editors open files, so it opens the state file.
    await vscode.commands.executeCommand('sweWorkbench.trajectory.open', vscode.Uri.file(dir));
    const state = vscode.Uri.file(path.join(dir, 'base_state.json'));
    const header = result<{ format: string; stepCount: number }>(await request(state, 'trajectory/open', {}));
    assert.deepEqual([header.format, header.stepCount], ['openhands-v1', 1]);
    const { steps } = result<{ steps: { action: { raw: string }; observation: string }[] }>(await request(state, 'steps/details', { start: 0, end: 1 }));
    assert.deepEqual([steps[0]?.action.raw, steps[0]?.observation], ['ls', 'README']);
    // "Open With" on one event file shows the whole conversation too.
    const eventFile = vscode.Uri.file(path.join(dir, 'events', `event-00002-${id(2)}.json`));
    await vscode.commands.executeCommand('vscode.openWith', eventFile, 'sweWorkbench.trajectoryAnyJson');
    assert.equal(result<{ stepCount: number }>(await request(eventFile, 'trajectory/open', {})).stepCount, 1);
    rmSync(dir, { recursive: true, force: true });
  });

  it('an ATIF file in a newer minor version says so once; a subagent opens from its parent step in a stepper of its own', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-subagents-'));
    const parent = path.join(dir, 'parent.json');
    const sub = {
      trajectory_id: 'sub-a',
      agent: { name: 'researcher', version: '0.3' },
      steps: [{ step_id: 1, source: 'agent', message: 'Found A.', llm_call_count: 2 }],
    };
    writeFileSync(
      parent,
      JSON.stringify({
        schema_version: 'ATIF-v1.8',
        session_id: 'run-1',
        agent: { name: 'orchestrator', version: '1.0' },
        steps: [
          {
            step_id: 1,
            source: 'agent',
            message: 'Delegating.',
            confidence: 0.5,
            observation: { results: [{ subagent_trajectory_ref: [{ trajectory_id: 'sub-a' }] }] },
          },
        ],
        subagent_trajectories: [sub],
      }),
    );
    const uri = vscode.Uri.file(parent);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectoryAnyJson');
    const header = result<{ warnings?: string[] }>(await request(uri, 'trajectory/open', {}));
    assert.equal(header.warnings?.length, 1);
    assert.match(header.warnings![0]!, /ATIF-v1\.8 is newer than ATIF-v1\.7.*\(steps\[\*\]\.confidence\)/);
    const { steps } = result<{ steps: { subagents?: string[] }[] }>(await request(uri, 'steps/details', { start: 0, end: 1 }));
    assert.deepEqual(steps[0]?.subagents, ['sub-a']);
    result(await request(uri, 'steps/openSubagent', { name: 'sub-a' }));
    const opened = uri.with({ query: 'subagent=sub-a' });
    const subHeader = result<{ fileName: string; stepCount: number; format: string }>(await request(opened, 'trajectory/open', {}));
    assert.deepEqual([subHeader.fileName, subHeader.stepCount, subHeader.format], ['parent.json › sub-a', 1, 'atif']);
    const subSteps = result<{ steps: { thought: string; llmCalls?: string }[] }>(await request(opened, 'steps/details', { start: 0, end: 1 })).steps;
    assert.deepEqual([subSteps[0]?.thought, subSteps[0]?.llmCalls], ['Found A.', '2 LLM calls (metrics summed)']);
    rmSync(dir, { recursive: true, force: true });
  });

  thirdParty.it('a malformed file gets a located error and the extension keeps working', async () => {
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

  thirdParty.it('shows the first step from one boot payload; the page loaded again after a hide embeds it', async () => {
    const uri = vscode.Uri.file(marshmallow);
    const page = await openWatched(api, uri, () => vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory'));
    await eventually(
      () => page.shown(),
      (s) => s === 0,
      'the page reports it shows step 1',
    );
    page.dispose();
    const boot = result<StepperBoot>(await request(uri, 'stepper/boot', {}));
    assert.ok(boot.ok);
    assert.deepEqual([boot.header.fileName, boot.header.stepCount, boot.reveal], ['marshmallow-1867.windowed.traj', 11, false]);
    assert.deepEqual(boot.summaries.map((s) => s.label).slice(0, 3), ['create reproduce.py', 'edit 1:1', 'python reproduce.py']);
    assert.equal(boot.summaries.length, 11);
    assert.deepEqual([boot.detail?.index, boot.detail?.action.raw.trim()], [0, 'create reproduce.py']);

    // The page shown may embed its boot already: the one to read is the page rendered after the hide.
    const shownPage = stepperPage(api, uri);
    await vscode.window.showTextDocument(vscode.Uri.file(openhands), { viewColumn: vscode.ViewColumn.Active, preview: false });
    await eventually(
      () => stepperPage(api, uri) ?? '',
      (html) => html !== shownPage && html.includes(STEPPER_BOOT_ELEMENT),
      'the hidden stepper embeds its step',
    );
    // The same payload, now revealing the step the page reported it showed.
    assert.deepEqual(embeddedBoot(uri), JSON.parse(JSON.stringify({ ...boot, reveal: true })));
  });

  thirdParty.it('opened at a step, shows it; hidden and shown again, comes back on the step it showed', async () => {
    const uri = vscode.Uri.file(marshmallow);
    // Through the extension's public API, as another extension opens a step.
    const page = await openWatched(api, uri, () => publicApi().openTrajectoryAtStep(uri, 5));
    /** Waits until the page reports step `n` (0-based) on screen, in a report after the first `after` things it asked. */
    const shown = (n: number, what: string, after = 0) =>
      eventually(
        () => page.lines.slice(after).findLast((l) => l.startsWith('shows step ')),
        (s) => s === `shows step ${n + 1}`,
        what,
      );
    try {
      await shown(5, 'the page shows step 6');
      const opened = result<StepperBoot>(await request(uri, 'stepper/boot', {}));
      assert.deepEqual(opened.ok && [opened.detail?.index, opened.detail?.action.raw.trim(), opened.reveal], [5, 'open src/marshmallow/fields.py 1474', true]);

      await publicApi().openTrajectoryAtStep(uri, 6);
      await shown(6, 'the page moved to step 7');
      await vscode.window.showTextDocument(vscode.Uri.file(openhands), { viewColumn: vscode.ViewColumn.Active, preview: false });
      const hidden = await eventually(
        () => (stepperPage(api, uri)?.includes(STEPPER_BOOT_ELEMENT) ? embeddedBoot(uri) : undefined),
        (b) => b?.detail?.index === 6,
        'the hidden stepper embeds step 7',
      );
      assert.deepEqual([hidden?.detail?.action.raw.trim().split('\n')[0], hidden?.reveal], ['edit 1475:1475', true], 'the step the page reported wins');

      const beforeShown = page.lines.length;
      await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectoryAnyJson');
      await shown(6, 'the page loaded again shows step 7', beforeShown);
    } finally {
      page.dispose();
    }
  });

  it('a SWE-agent trajectory past the 128 MiB one-document limit shows its first step while it is indexed, then the header, the timeline and later steps', async function () {
    this.timeout(240_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'swe-workbench-large-'));
    const file = path.join(dir, 'large.traj');
    const steps = 20;
    const megabytes = 140;
    writeTrajectory(file, steps, megabytes);
    const uri = vscode.Uri.file(file);
    // The page is rendered once the first step is read from the file's first bytes; indexing its
    // 140 MB goes on behind it (the step count is known only at its end).
    const page = await openWatched(api, uri, () => vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory'));
    try {
      // The page carried that step, its 3.5 MB observation cut to the 40 lines it shows folded: it asked nothing of the host before showing it.
      const carried = embeddedBoot(uri);
      assert.deepEqual([carried.detail?.observation.split('\n').length, (carried.detail?.observationCut?.chars ?? 0) > 3_000_000], [40, true]);
      assert.deepEqual(
        [carried.indexing, carried.header.outcome, carried.detail?.action.raw],
        [true, 'loading', 'str_replace_editor view /testbed/src/module_0.py'],
      );
      // Then the host tells the page the file is indexed, and the page asks for the timeline of every step.
      const log = await eventually(
        () => [...page.lines],
        (l) => l.includes(`summaries 0-${steps}`),
        'the page is told the file is indexed and asks for its timeline',
        1200,
      );
      // Step 1 from the page itself (no boot asked), shown again with the final header once told, then the timeline.
      assert.deepEqual(log, ['shows step 1', 'shows step 1', `summaries 0-${steps}`]);
      const boot = result<StepperBoot>(await request(uri, 'stepper/boot', {}));
      assert.ok(boot.ok, JSON.stringify(boot));
      assert.equal(boot.header.stepCount, steps);
      assert.deepEqual(boot.header.tools, ['str_replace_editor']);
      assert.equal(boot.detail?.index, 0);
      assert.equal(boot.detail?.action.raw, 'str_replace_editor view /testbed/src/module_0.py');
      // The page asks for the timeline after it shows the step.
      assert.deepEqual(boot.summaries, []);
      const { summaries } = result<{ summaries: { index: number; tool: string | null }[] }>(await request(uri, 'steps/summaries', { start: 0, end: steps }));
      assert.deepEqual(
        summaries.map((s) => s.tool),
        Array<string>(steps).fill('str_replace_editor'),
      );
      const { steps: details } = result<{ steps: { index: number; observation: string }[] }>(await request(uri, 'steps/details', { start: 17, end: 18 }));
      assert.equal(details[0]?.observation, codeLines(17, Math.floor((megabytes * 1_000_000) / steps / 2)));
    } finally {
      page.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Show Diff opens the patch view on the step's workspace diff; a step without one says so", async () => {
    const uri = await writeRecording();
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    assert.deepEqual(result(await request(uri, 'steps/act', { action: 'showDiff', index: 1 })), { done: true });
    const patchTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'replayed.traj.json: step 2');
    const tab = await eventually(patchTab, (t) => t !== undefined, 'a tab shows the step diff');
    assert.ok(tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('sweWorkbench.patch'), 'the tab is the patch view');

    const none = await request(uri, 'steps/act', { action: 'showDiff', index: 0 });
    assert.equal(none.ok, false);
    assert.match(
      none.ok ? '' : none.error.message,
      /^Step 1 ran a command and the recording keeps no workspace diff; what a command changes cannot be read from its text\./,
    );
  });

  it("marks the steps a replay's recording flags as diverged, in the page and in later ranges", async () => {
    const uri = await writeRecording();
    await vscode.commands.executeCommand('vscode.openWith', uri, 'sweWorkbench.trajectory');
    const boot = result<StepperBoot>(await request(uri, 'stepper/boot', {}));
    assert.deepEqual(boot.ok && boot.summaries.map((s) => s.diverged), [false, false, true]);
    const { summaries } = result<{ summaries: { index: number; diverged: boolean }[] }>(await request(uri, 'steps/summaries', { start: 2, end: 3 }));
    assert.deepEqual(
      summaries.map((s) => [s.index, s.diverged]),
      [[2, true]],
    );
  });
});
