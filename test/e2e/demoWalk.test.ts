import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { DEMO_MODEL, DEMO_PROBLEM, demoReply } from '../../scripts/demo/ledgerDemo';
import { checkSetupOnInstalled, stopSessionLeavingNoContainer } from '../helpers/sessionE2e';
import { launchBrowser, webviewFrame } from '../helpers/browser';
import { THEMES, openFileInWebview, quickOpen, runCommand, setTheme, typeInQuickInput } from '../helpers/workbench';
import { G7, W101, W202 } from '../fixtures/rollouts/trainingRun';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
/** The suites run from the repository's root (scripts/run-vscode-tests.mjs). */
const repoRoot = process.cwd();

/**
 * A row of the workbench's tree views (the Session view's), never a Quick Open row: Quick Open
 * keeps its last list, hidden, and names a session's opened trajectory (`replay ….json`) as well.
 */
const sessionRow = (page: Page, text: RegExp) => page.locator('.monaco-list-row[role="treeitem"]', { hasText: text });
const STEP_ROW = /^\d+\s+\S+.*exit \S+ · [\d.]+ m?s/;

/**
 * Opens `name` in the stepper and returns its frame, the only stepper open. Quick Open lists
 * `ledger-allocate.mini-swe-agent.traj.json` for `ledger-allocate.swe-agent.traj` too and can
 * reorder its rows under the click: a wrong file is closed and the file asked for again.
 */
async function openStepper(page: Page, name: string): Promise<Frame> {
  for (let attempt = 1; ; attempt++) {
    await closeEditors(page);
    const frame = await openFileInWebview(page, name, '#step-title');
    // The tab's text: its name (no other demo file's name holds another's) and its decorations.
    const active = page.locator('.tab.active');
    await active.waitFor({ timeout: 15_000 });
    if ((await active.textContent())?.includes(name)) return frame;
    if (attempt >= 2) break;
  }
  // Then as a person would after that: from the Explorer, where each file is one row.
  await closeEditors(page);
  await runCommand(page, 'View: Show Explorer');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).click();
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15_000 });
  return webviewFrame(page, '#step-title', 30_000);
}

/**
 * Waits until the demo workspace's two folders are the Explorer's roots. A reload issued while
 * the workbench is still opening the workspace can leave it with no folders, so the walk reloads
 * (for a theme) only once they show. On a busy machine the palette can run Show Explorer before
 * the workbench restored its side bar, which then shows another view: the command is run again,
 * and a window that opened without the workspace's folders is opened again at `address`.
 */
async function workspaceOpened(page: Page, address: string): Promise<void> {
  const root = (folder: string) => page.locator('.explorer-folders-view .monaco-list-row[aria-level="1"]', { hasText: new RegExp(`^${folder}$`, 'i') });
  const shown = async (timeout: number) => {
    for (const folder of ['workbench', 'sample-repo'])
      if (
        !(await root(folder)
          .waitFor({ timeout })
          .then(
            () => true,
            () => false,
          ))
      )
        return false;
    return true;
  };
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  for (let attempt = 1; attempt <= 4; attempt++) {
    await runCommand(page, 'View: Show Explorer');
    if (await shown(30_000)) return;
    // What the window showed instead, for the failure's message and to choose what to retry.
    const seen = await page.evaluate(() => ({
      title: document.title,
      sideBar: (document.querySelector('.part.sidebar')?.textContent ?? '').replace(/\s+/g, ' ').slice(0, 300),
    }));
    if (attempt === 4) throw new Error(`the demo workspace's folders never showed in the Explorer: window '${seen.title}', side bar '${seen.sideBar}'`);
    if (/open(ed)? a folder|add folder|no folder/i.test(seen.sideBar)) await page.goto(address);
  }
}

/** Closes every editor, so the next stepper opened is the only webview with a step title. */
async function closeEditors(page: Page): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.editor-group-container .tab').first().waitFor({ state: 'detached', timeout: 30_000 });
}

/**
 * Opens a JSON or JSONL file as the README says, through *Open With… > SWE Workbench Trajectory*:
 * Quick Open shows it as text, then it is reopened in the stepper.
 */
async function openWith(page: Page, name: string): Promise<Frame> {
  await closeEditors(page);
  await quickOpen(page, name);
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 15_000 });
  await runCommand(page, 'View: Reopen Editor With...');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'SWE Workbench Trajectory' }).first().click({ timeout: 15_000 });
  return webviewFrame(page, '#step-title', 30_000);
}

/**
 * Runs the command titled exactly `title` from the Command Palette. `runCommand` presses Enter on
 * the palette's first row, which for a short title such as "SWE Workbench: Step" can be another
 * command (Go to Step…, Run to Step…): here the row whose whole label is the title is clicked.
 */
async function runExactCommand(page: Page, title: string): Promise<void> {
  const label = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  for (let attempt = 1; ; attempt++) {
    const typed = await typeInQuickInput(page, 'Control+Shift+P', `>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { has: page.locator('.label-name', { hasText: label }) }).first();
    if (
      typed &&
      (await row.click({ timeout: 5_000 }).then(
        () => true,
        () => false,
      ))
    )
      return;
    await page.keyboard.press('Escape');
    if (attempt >= 6) throw new Error(`the Command Palette never listed '${title}'`);
  }
}

/**
 * Compares two files of the demo's trajectories as a person does from the Explorer: the first
 * opened and revealed there, the second added with Ctrl+click, then *Compare Trajectories…* from
 * the context menu. The selection is made again should the Explorer's reveal land after the clicks.
 */
async function compareFromExplorer(page: Page, first: string, second: string): Promise<Frame> {
  const row = (name: string) =>
    page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) });
  await openStepper(page, first);
  await runCommand(page, 'File: Reveal Active File in Explorer View');
  await row(first).waitFor({ timeout: 30_000 });
  await row(second).waitFor({ timeout: 30_000 });
  const selected = page.locator('.explorer-folders-view .monaco-list-row.selected');
  for (let attempt = 1; ; attempt++) {
    await row(first).click();
    await row(second).click({ modifiers: ['Control'] });
    const two = await page
      .waitForFunction(() => document.querySelectorAll('.explorer-folders-view .monaco-list-row.selected').length === 2, undefined, { timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
    if (two && (await selected.count()) === 2) break;
    if (attempt >= 4) assert.equal(await selected.count(), 2, 'two runs selected in the explorer');
  }
  await row(second).click({ button: 'right' });
  // The workbench's menus act on a key or a mouse-up after a hover: a synthetic click right as the menu opens is dropped.
  await page.locator('.monaco-menu .action-item', { hasText: 'Compare Trajectories…' }).hover();
  await page.keyboard.press('Enter');
  return webviewFrame(page, '#compare-title', 60_000);
}

/** The steps' numbers at the start of the Session view's step rows: people count from 1. */
const rowNumbers = (rows: string[]) => rows.map((r) => r.match(/^(\d+)\s/)?.[1]);

/** Each row's verdict against the recording. */
const verdicts = (rows: string[]) => rows.map((r) => r.match(/(matched|diverged)/)?.[1]);

type Theme = keyof typeof THEMES;

/**
 * The README's "Demo (five minutes)" followed as written, from start to end, in the dark, light
 * and high-contrast themes, in the workspace `npm start` lays out (the same helper) with the
 * scripted stand-in policy it serves. Each point of issues 24 and 37 is asserted where the walk
 * meets it; the screenshots are `demo-walk-<theme>-<step>.png` in test/e2e/out.
 */
describe("the README's five-minute walk through the demo", () => {
  let home: string;
  let policy: PolicyServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let originalSettings: string;
  let address: string;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    originalSettings = readFileSync(settingsFile, 'utf8');
    home = mkdtempSync(path.join(tmpdir(), 'swe-workbench-demo-walk-'));
    policy = await new PolicyServer((request) => demoReply(request), { models: [DEMO_MODEL] }).listen();
    // Laid out by the TypeScript helper `npm start` uses, run from source (it finds its fixtures from there).
    const workspaceFile = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--eval',
        "import('./test/helpers/demoWorkspace.ts').then((m) => (m.layOutDemoWorkspace ?? m.default.layOutDemoWorkspace)(process.argv[1], process.argv[2])).then((f) => console.log(f))",
        home,
        policy.url,
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    ).trim();
    browser = await launchBrowser();
    page = browser.page;
    address = `${url}/?workspace=${encodeURIComponent(workspaceFile)}`;
    await page.goto(address);
    await workspaceOpened(page, address);
  });

  after(async () => {
    await page?.screenshot({ path: path.join(out!, 'demo-walk-last.png') }).catch(() => undefined);
    await stopSessionLeavingNoContainer(page).catch(() => undefined);
    await browser?.close();
    await policy?.close();
    if (originalSettings !== undefined) writeFileSync(settingsFile!, originalSettings);
    rmSync(home, { recursive: true, force: true });
  });

  // The e2e suite runs the .vsix installed in a code-server of its own (scripts/run-vscode-tests.mjs):
  // what a person installing it gets, with no repository node_modules in reach.
  test('0. Check Setup on the installed extension says ready, Pyright carried inside it', async () => {
    await checkSetupOnInstalled(page, settingsFile!, path.join(out!, 'demo-walk-0-check-setup.png'));
  });

  for (const theme of Object.keys(THEMES) as Theme[]) {
    describe(`in the ${theme} theme`, () => {
      let stepper: Frame;
      const expectStep = (n: number, of = 6) => stepper.locator('#step-title', { hasText: `Step ${n} of ${of}` }).waitFor({ timeout: 15_000 });
      const shot = (name: string) => page.screenshot({ path: path.join(out!, `demo-walk-${theme}-${name}.png`) });
      /** Runs `walk`, leaving a screenshot of where it stood when it fails. */
      const step = (name: string, walk: () => Promise<void>) => async () => {
        await walk().catch(async (error: unknown) => {
          await shot(`${name}-failed`).catch(() => undefined);
          throw error;
        });
      };

      before(async () => {
        await setTheme(page, settingsFile!, theme);
        await workspaceOpened(page, address);
      });

      test(
        '1. Step through: ledger-allocate.swe-agent.traj shows six steps from Step 1, its patch a real fix; unknown time and cost say unknown; j/k move; / searches',
        step('1-step-through', async () => {
          stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
          await stepper.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('Home');
          await expectStep(1);
          assert.deepEqual(await stepper.locator('.step-row .step-number').allTextContents(), ['1', '2', '3', '4', '5', '6']);
          for (const part of ['.thought', '#action-raw', '.observation-text'])
            assert.ok(((await stepper.locator(part).first().textContent()) ?? '').trim().length > 0, `step 1 shows its ${part}`);
          // The demo's recordings measured no time and counted no cost: unknown, never 0.0 s or $0.
          for (const fact of ['#run-duration', '#run-cost']) assert.equal(await stepper.locator(`${fact} strong`).textContent(), 'unknown', fact);
          // Nor did they count tokens: the Tokens section says unknown, never "Completion: 0 tokens".
          await stepper.locator('#token-counts').waitFor({ timeout: 10_000 });
          assert.equal(await stepper.locator('#token-counts').textContent(), 'Prompt: unknown · Completion: unknown');
          assert.doesNotMatch((await stepper.locator('div.facts').first().textContent()) ?? '', /\b0\.00 s\b/);
          await page.keyboard.press('j');
          await expectStep(2);
          await page.keyboard.press('k');
          await expectStep(1);
          // The task starts before the fix: the last step submits the policy's real patch.
          await page.keyboard.press('End');
          await expectStep(6);
          await stepper.locator('#detail', { hasText: 'Observation: the submitted patch' }).waitFor({ timeout: 10_000 });
          assert.match((await stepper.locator('#detail').textContent()) ?? '', /leftover = self\.rounded\(\)\.amount - sum\(p\.amount for p in parts\)/);
          assert.equal(await stepper.locator('#final-patch').getAttribute('title'), "Open the run's submitted patch in the patch view");
          await page.keyboard.press('Home');
          await expectStep(1);
          // The search takes what was typed, key by key, and filters by it.
          await page.keyboard.press('/');
          await page.keyboard.type('pytest');
          await page.keyboard.press('Enter');
          await stepper.locator('#filter-status', { hasText: '1 of 6 steps shown' }).waitFor({ timeout: 10_000 });
          assert.equal(await stepper.locator('#search').evaluate((e) => (e as HTMLInputElement).value), 'pytest');
          await shot('1-step-through');
          await page.keyboard.press('Escape');
          await stepper.waitForFunction(() => document.getElementById('filter-status')?.textContent === '', undefined, { timeout: 10_000 });
        }),
      );

      test(
        '1 (other formats). the mini-swe-agent file opens the same way; R2E-Gym, OpenHands, ATIF and canonical files through Open With; token figures say what they are',
        step('1-other-formats', async () => {
          stepper = await openStepper(page, 'ledger-allocate.mini-swe-agent.traj.json');
          await stepper.locator('#step-title', { hasText: /^Step 1 of \d+$/ }).waitFor({ timeout: 15_000 });
          // The task is in its first user message: shown as the agent was told it, not "not recorded".
          assert.equal(
            (await stepper.locator('#problem-statement summary').textContent())?.trim(),
            `Task, as the agent was told: Please solve this issue: ${DEMO_PROBLEM}`,
          );
          stepper = await openWith(page, 'ledger-allocate.r2e-gym.jsonl');
          await stepper.locator('#step-title', { hasText: /^Step \d+ of \d+$/ }).waitFor({ timeout: 15_000 });
          assert.match((await stepper.locator('#run-summary').textContent()) ?? '', /^r2e-gym · \d+ steps/);
          // R2E-Gym records the model's usage and no tokens: both figures are that usage, labelled so; no 0 for what was not counted.
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('Home');
          await stepper.locator('#step-title', { hasText: /^Step 1 of \d+$/ }).waitFor({ timeout: 15_000 });
          await stepper.locator('#detail p.tokens', { hasText: 'Recorded usage: prompt 814 · completion 11 · total 825' }).waitFor({ timeout: 10_000 });
          assert.equal(await stepper.locator('#token-counts').textContent(), 'Prompt: 814 tokens (recorded usage) · Completion: 11 tokens (recorded usage)');
          assert.doesNotMatch((await stepper.locator('#detail').textContent()) ?? '', /\b0 tokens\b/);
          await shot('1-r2e-gym-tokens');

          // The demo's other formats open in the stepper as well: the same six steps.
          for (const [file, format] of [
            ['ledger-allocate.openhands.jsonl', 'openhands'],
            ['ledger-allocate.atif.json', 'atif'],
            ['ledger-allocate.canonical.json', 'canonical'],
          ] as const) {
            stepper = await openWith(page, file);
            await stepper.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
            await stepper.locator('#step-title', { hasText: /^Step \d+ of 6$/ }).waitFor({ timeout: 15_000 });
            assert.match((await stepper.locator('#run-summary').textContent()) ?? '', new RegExp(`^${format} · 6 steps`), file);
            await stepper.locator('#timeline').focus();
            await page.keyboard.press('Home');
            await expectStep(1);
            if (format === 'openhands') continue;
            // Both keep the usage's prompt and the sampled tokens: each figure named by where it comes from.
            assert.equal(
              await stepper.locator('#token-counts').textContent(),
              'Prompt: 81 tokens (recorded usage) · Completion: 11 tokens (counted from the recorded tokens)',
              file,
            );
            await stepper.locator('#token-run [data-position="10"]').waitFor({ timeout: 10_000 });
            const marked = await stepper.locator('#token-run .token.low, #token-run .token.very-low').count();
            if (format === 'atif') {
              // Only the sampled token's logprob is recorded: coloured by its probability, with no entropy to choose.
              assert.equal(await stepper.locator('#token-colour').count(), 0, 'no entropy to colour by');
              assert.match((await stepper.locator('#token-legend').textContent()) ?? '', /^5 below p = 0\.5, \d+ below p = 0\.1$/);
              assert.equal(marked, 5, 'the five tokens below p = 0.5 are marked');
            } else {
              // Alternatives recorded: entropy is the default, with probability to choose.
              assert.equal(await stepper.locator('#token-colour').count(), 1);
              assert.match((await stepper.locator('#token-legend').textContent()) ?? '', /^\d+ with entropy ≥ 0\.5 nats/);
            }
            await shot(`1-${format}`);
          }
        }),
      );

      test(
        '2. Replay: r on the last step replays it with nothing asked, every step matched, rows numbered from 1',
        step('2-replay', async () => {
          stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('End');
          await expectStep(6);
          await page.keyboard.press('r');
          // Nothing is asked: the image is the recording's, the repository the folder holding its base commit.
          await sessionRow(page, /replay ledger-allocate\.swe-agent\.traj.*6 steps/).waitFor({ timeout: 180_000 });
          assert.equal(await page.locator('.quick-input-widget:visible').count(), 0, 'no question was asked');
          const rows = await sessionRow(page, STEP_ROW).allTextContents();
          assert.deepEqual(rowNumbers(rows), ['1', '2', '3', '4', '5', '6'], rows.join(' | '));
          assert.deepEqual(verdicts(rows), ['matched', 'matched', 'matched', 'matched', 'matched', 'matched'], rows.join(' | '));
          await shot('2-replay');
          // The replay ran the recording's submit: the session's own trajectory says how it ended and holds its patch.
          await sessionRow(page, /finished \(submitted\)/).waitFor({ timeout: 60_000 });
          await closeEditors(page);
          await runCommand(page, 'SWE Workbench: Open Recorded Trajectory in Stepper');
          const own = await webviewFrame(page, '#run-outcome', 30_000);
          await own.locator('#run-outcome strong', { hasText: /exit: submitted$/ }).waitFor({ timeout: 30_000 });
          assert.equal(await own.locator('#final-patch').getAttribute('disabled'), null, 'Final Patch opens the submitted patch');
          assert.equal(await own.locator('#final-patch').getAttribute('title'), "Open the run's submitted patch in the patch view");
          await shot('2-replay-outcome');
          await closeEditors(page);
          await stopSessionLeavingNoContainer(page);
        }),
      );

      test(
        '2 (R2E-Gym). ledger-allocate.r2e-gym.jsonl replays in the demo on its own image, every step matched, its finish included',
        step('2-r2e-gym', async () => {
          await openWith(page, 'ledger-allocate.r2e-gym.jsonl');
          await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
          // Out of recorded actions after its finish: the episode is over.
          await sessionRow(page, /replay ledger-allocate\.r2e-gym\.jsonl.*finished/).waitFor({ timeout: 180_000 });
          assert.equal(await page.locator('.notification-toast', { hasText: /needs the image|\/root\/\.venv/ }).count(), 0, 'no dead end on the way');
          const rows = await sessionRow(page, STEP_ROW).allTextContents();
          assert.ok(rows.length >= 2, rows.join(' | '));
          assert.deepEqual(
            rowNumbers(rows),
            rows.map((_, i) => String(i + 1)),
          );
          assert.deepEqual(
            verdicts(rows),
            rows.map(() => 'matched'),
            rows.join(' | '),
          );
          assert.match(rows.at(-1)!, /^\d+\s+(finish|submit)/, 'its finish replays too');
          await shot('2-r2e-gym');
          await stopSessionLeavingNoContainer(page);
        }),
      );

      test(
        '3. A replay that diverges: the way forward is asked (the repository); steps 2 and 4 diverge; Recorded ↔ Replayed says unknown, never 0 ms',
        step('3-diverges', async () => {
          await openStepper(page, 'on-the-buggy-tree.traj');
          await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
          // The recording names no repository the workspace has: the person is offered the folders
          // (once per window: the answer is remembered, so a later theme is not asked again).
          const asked = page.locator('.quick-input-widget', { hasText: 'Repository to copy into the container' });
          const started = sessionRow(page, /replay on-the-buggy-tree\.traj/);
          const first = await Promise.race([
            asked.waitFor({ timeout: 60_000 }).then(() => 'asked'),
            started.waitFor({ timeout: 60_000 }).then(() => 'started'),
          ]);
          if (first === 'asked') await asked.locator('.quick-input-list .monaco-list-row', { hasText: /^sample-repo/ }).click();
          else assert.notEqual(theme, 'dark', 'the first replay of the window asks for the repository');
          await sessionRow(page, /replay on-the-buggy-tree\.traj.*4 steps/).waitFor({ timeout: 180_000 });
          const rows = await sessionRow(page, STEP_ROW).allTextContents();
          // Reading `allocate` (step 2) and the submitted patch (step 4) meet the tree without the bug.
          assert.deepEqual(verdicts(rows), ['matched', 'diverged', 'matched', 'diverged'], rows.join(' | '));
          await sessionRow(page, /^2\s+\S.*diverged/).click();
          const view = await webviewFrame(page, '#replay-verdict', 60_000);
          await view.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
          assert.equal((await view.locator('#replay-verdict').textContent())?.trim(), 'diverged');
          assert.ok((await view.locator('.diff-line.recorded, .diff-line.replayed').count()) > 0, 'the line diff is shown');
          assert.ok((await view.locator('li[data-normaliser]').count()) > 0, 'the normalisers are named');
          // SWE-agent records no exit code and the demo measured no time: both unknown, never "0 ms".
          assert.equal(await view.locator('#replay-recorded .side-facts').textContent(), 'exit unknown · duration unknown');
          await shot('3-diverges');
          await stopSessionLeavingNoContainer(page);
          await closeEditors(page);
        }),
      );

      test(
        "3 (saved replay). Compare of on-the-buggy-tree.traj with its saved replay: the same actions, and the replay's steps 2 and 4 named as diverged",
        step('3-compare-replay', async () => {
          const compare = await compareFromExplorer(page, 'on-the-buggy-tree.traj', 'on-the-buggy-tree.replayed.traj');
          await compare.locator(`body.${THEMES[theme].webviewClass} #compare-summary`).waitFor({ timeout: 30_000 });
          const title = (await compare.locator('#compare-title').textContent()) ?? '';
          for (const name of ['on-the-buggy-tree.traj', 'on-the-buggy-tree.replayed.traj']) assert.ok(title.includes(name), `${name} in the title '${title}'`);
          assert.equal(
            await compare.locator('#compare-summary').textContent(),
            "the runs take the same actions throughout; but on-the-buggy-tree.replayed.traj's steps 2 and 4 diverged from the recording when replayed (their output differs)",
          );
          // The two steps are marked in the replay's cells, and only they.
          const marked = await compare
            .locator('tr[data-row] [aria-label="diverged from the recording"]')
            .evaluateAll((icons) => icons.map((i) => i.closest('tr')!.getAttribute('data-row')));
          assert.deepEqual(marked, ['1', '3']);
          await shot('3-compare-replay');
          await closeEditors(page);
        }),
      );

      test(
        '4. Fork: f on step 2, continued by the policy; the stepper follows it step by step in one page; a Session row opens its step; finished is finished',
        step('4-fork', async () => {
          stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('g');
          await page.keyboard.type('2');
          await page.keyboard.press('Enter');
          await expectStep(2);
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('f');
          const how = page.locator('.quick-input-widget', { hasText: 'Fork after step 2' });
          await how.waitFor({ timeout: 15_000 });
          await how.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue with the policy' }).click();
          await sessionRow(page, /fork of ledger-allocate\.swe-agent\.traj after step 2/).waitFor({ timeout: 180_000 });
          // The fork pauses where it was made.
          await sessionRow(page, /paused before step 3/).waitFor({ timeout: 60_000 });
          await sessionRow(page, /^2\s+\S.*matched/).waitFor({ timeout: 60_000 });

          // The session's own trajectory, opened without a file picker, on its last step.
          await closeEditors(page);
          await runCommand(page, 'SWE Workbench: Open Recorded Trajectory in Stepper');
          stepper = await webviewFrame(page, '#step-title', 30_000);
          await expectStep(2, 2);
          // Every heading the page shows from now on, in this page: a page loaded again loses the list.
          await stepper.locator('#detail').evaluate((detail) => {
            const seen: string[] = [];
            (window as unknown as { e2eTitles: string[] }).e2eTitles = seen;
            new MutationObserver(() => {
              const title = document.getElementById('step-title')?.textContent;
              if (title && title !== seen.at(-1)) seen.push(title);
            }).observe(detail, { childList: true, subtree: true, characterData: true });
          });

          // One step by the policy: the stepper, on the last step, moves to it as it is done.
          await runExactCommand(page, 'SWE Workbench: Step');
          await sessionRow(page, /paused before step 4/).waitFor({ timeout: 60_000 });
          await expectStep(3, 3);
          // The person goes back a step; the rest of the run joins the timeline without moving them.
          await stepper.locator('#timeline').focus();
          await page.keyboard.press('k');
          await expectStep(2, 3);
          await runCommand(page, 'SWE Workbench: Continue');
          await sessionRow(page, /^\d+\s+submit/).waitFor({ timeout: 180_000 });
          const rows = await sessionRow(page, STEP_ROW).allTextContents();
          const n = rows.length;
          assert.ok(n >= 4, rows.join(' | '));
          assert.deepEqual(
            rowNumbers(rows),
            rows.map((_, i) => String(i + 1)),
          );
          assert.deepEqual(
            rows.slice(2).filter((r) => /matched|diverged/.test(r)),
            [],
            'the policy’s steps are the fork’s own, not compared with the recording',
          );
          // Finished is finished, in the view and the status bar.
          await sessionRow(page, /finished \(submitted\)/).waitFor({ timeout: 30_000 });
          await page.locator('.statusbar-item', { hasText: 'sandbox finished (submitted)' }).waitFor({ timeout: 10_000 });
          assert.equal(await page.locator('.statusbar-item', { hasText: /paused before/ }).count(), 0);

          // Every step is in the stepper's timeline; the person's step stayed on screen, in the one page.
          await stepper
            .locator('.step-row')
            .nth(n - 1)
            .waitFor({ timeout: 30_000 });
          await expectStep(2, n);
          const titles = await stepper.locator('body').evaluate(() => (window as unknown as { e2eTitles?: string[] }).e2eTitles);
          assert.ok(titles, 'the stepper page was not loaded again');
          assert.deepEqual(titles.slice(0, 2), ['Step 3 of 3', 'Step 2 of 3'], titles.join(' | '));
          assert.deepEqual(
            titles.slice(2),
            titles.slice(2).map((t) => (/^Step 2 of \d+$/.test(t) ? t : 'Step 2 of N')),
            `the new steps never moved the person: ${titles.join(' | ')}`,
          );
          assert.equal(titles.at(-1), `Step 2 of ${n}`);
          // The stepper's header says how the session ended, not "Outcome not graded" alone, and
          // Final Patch opens the patch the policy submitted.
          await stepper.locator('#run-outcome strong', { hasText: /exit: submitted$/ }).waitFor({ timeout: 30_000 });
          await stepper.locator('#final-patch:not([disabled])').waitFor({ timeout: 30_000 });
          assert.equal(await stepper.locator('#final-patch').getAttribute('title'), "Open the run's submitted patch in the patch view");
          // The timeline names each step by its action, as the Session view does.
          const labels = await stepper.locator('.step-row .step-label').allTextContents();
          assert.deepEqual(
            labels.map((l, i) => `${i + 1}  ${l}`),
            await sessionRow(page, STEP_ROW).locator('.label-name').allTextContents(),
          );
          await shot('4-fork-followed');

          // A Session row opens its step in that stepper, on the same page.
          await sessionRow(page, /^3\s+\S/).click();
          await expectStep(3, n);
          assert.equal(await page.locator('.tab', { hasText: /^Untitled/ }).count(), 0, 'no raw JSON buffer');
          assert.ok(await stepper.locator('body').evaluate(() => 'e2eTitles' in window));
          await shot('4-fork-row-opens-step');
          await closeEditors(page);
        }),
      );

      test(
        '4 (next launch). after a finished session the next replay starts without asking to stop it',
        step('4-next-launch', async () => {
          await openStepper(page, 'ledger-allocate.swe-agent.traj');
          await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
          await sessionRow(page, /replay ledger-allocate\.swe-agent\.traj/).waitFor({ timeout: 180_000 });
          assert.equal(await page.locator('.monaco-dialog-box', { hasText: 'A session is running' }).count(), 0);
          await sessionRow(page, /replay ledger-allocate\.swe-agent\.traj.*6 steps/).waitFor({ timeout: 180_000 });
          await stopSessionLeavingNoContainer(page);
          await closeEditors(page);
        }),
      );

      test(
        '5. Bugs and Rollouts views; the table in a narrow window: names told apart, masked with its reason, attempts from 1, typed filters; Compare parts at row 6',
        step('5-rollouts', async () => {
          await runCommand(page, 'SWE Workbench: Focus on Bugs View');
          await page.locator('.monaco-list-row', { hasText: 'valid-allocate-and-close' }).first().waitFor({ timeout: 60_000 });
          await runCommand(page, 'SWE Workbench: Focus on Rollouts View');
          await page.locator('.monaco-list-row', { hasText: W101 }).first().waitFor({ timeout: 60_000 });
          await page
            .locator('.monaco-list-row', { hasText: /unreadable input/ })
            .first()
            .waitFor({ timeout: 60_000 });
          await shot('5-bugs-rollouts');

          const size = page.viewportSize();
          await page.setViewportSize({ width: 1000, height: 800 });
          try {
            await runCommand(page, 'SWE Workbench: Show Rollouts Table');
            const table = await webviewFrame(page, '#viewport', 60_000);
            await table.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
            const count = (text: string) => table.locator('#row-count', { hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 60_000 });
            const cells = (column: string) => table.locator(`.rollout-row[data-id] [data-column="${column}"]`).allTextContents();
            const input = table.locator('#filter input');
            // Typed key by key, as a person types: what is typed is what filters.
            const typeFilter = async (expression: string) => {
              await input.fill('');
              await input.pressSequentially(expression);
              await input.press('Enter');
              assert.equal(await input.inputValue(), expression);
            };
            await count('15 rollouts');
            await table.locator('#recipe').click();
            await table.locator('#recipe [role="option"]', { hasText: /deepswe v1/ }).click({ timeout: 10_000 });
            await table.locator('#recipe-stats', { hasText: /^deepswe v1: / }).waitFor({ timeout: 30_000 });
            // A mask is never a number: the reward cell says masked, the Mask column why.
            const exceeded = table.locator(`.rollout-row[data-id="attempt_1/${W202}/${W202}.traj"]`);
            await exceeded.locator('[data-column="mask"]', { hasText: 'masked: context window exceeded' }).waitFor({ timeout: 10_000 });
            assert.equal(await exceeded.locator('[data-column="recipe-reward"]').textContent(), 'masked');
            // The recipe's columns take the place of Tokens, Cost and Duration: the table says so.
            assert.equal(await table.locator('#hidden-columns').isVisible(), true);
            assert.equal(
              await table.locator('#hidden-columns').textContent(),
              " 3 columns hidden by the recipe: Tokens, Cost, Duration (a row's details keep them)",
            );
            // The run's generator gave two groups an identical patch graded both ways: flagged, the rollouts named.
            assert.deepEqual(await table.locator('#grading-conflicts li').allTextContents(), [
              ` ${G7}: identical patch graded both ways: resolved attempt_1/${G7}/${G7}.traj; not resolved attempt_4/deepswe.jsonl:3`,
              ` ${W101}: identical patch graded both ways: resolved attempt_1/${W101}/${W101}.traj, attempt_4/deepswe.jsonl:1; not resolved attempt_2/${W101}/${W101}.traj`,
            ]);
            assert.equal(await table.locator('#grading-conflicts').isVisible(), true);
            // 101 and 202 read apart in a narrow window: the end of each name stays in view.
            for (const [instance, tail] of [
              [W101, '-101'],
              [W202, '-202'],
            ] as const) {
              const cell = table.locator(`.rollout-row[data-id="attempt_1/${instance}/${instance}.traj"] [data-column="instance"]`);
              assert.equal(await cell.textContent(), instance);
              assert.ok(
                await cell.evaluate((c, t) => {
                  const tailBox = c.querySelector('.instance-tail')!.getBoundingClientRect();
                  const box = c.getBoundingClientRect();
                  return (
                    c.querySelector('.instance-tail')!.textContent === t && tailBox.width > 0 && tailBox.left >= box.left && tailBox.right <= box.right + 0.5
                  );
                }, tail),
                `${instance}: its end ${tail} is in view`,
              );
            }
            // Headers do not overlap: each header's text lies inside its own cell.
            const overlaps = await table.locator('.table-head').evaluate((head) => {
              const problems: string[] = [];
              const scroller = head.parentElement!.getBoundingClientRect();
              for (const cell of head.querySelectorAll<HTMLElement>('[role="columnheader"]')) {
                const box = cell.getBoundingClientRect();
                if (getComputedStyle(cell).display === 'none' || box.left >= scroller.right) continue;
                const label = cell.matches('button') ? cell.querySelector('span')! : cell;
                const range = document.createRange();
                range.selectNodeContents(label);
                const text = range.getBoundingClientRect();
                if (label.scrollWidth > label.clientWidth + 1 || text.left < box.left - 0.5 || text.right > box.right + 0.5)
                  problems.push(label.textContent ?? '');
              }
              return problems;
            });
            assert.deepEqual(overlaps, [], 'every header reads whole in its own column');
            await shot('5-table-narrow');
            // Sideways to the recipe's columns: the masked row's reward and why.
            await table.locator('#viewport').evaluate((v) => (v.scrollLeft = v.scrollWidth));
            await table.waitForFunction(() => document.getElementById('viewport')!.scrollLeft > 0);
            await shot('5-table-narrow-masked');
            await table.locator('#viewport').evaluate((v) => (v.scrollLeft = 0));

            // Attempts count from 1 in every format, rLLM's episodes included.
            await typeFilter('instance=acme__sprockets-3');
            await count('3 of 15 rollouts');
            await table.locator('.rollout-row[data-index="2"][data-id]').waitFor({ timeout: 10_000 });
            assert.deepEqual(await cells('attempt'), ['1', '2', '3']);
            // A filter takes what the column shows.
            await typeFilter('resolved=no');
            await count('9 of 15 rollouts');
            assert.equal(await table.locator('#filter-error').isVisible(), false);

            // Compare, from the table: the group's shared five actions first, parted at row 6, columns told apart.
            await typeFilter(`instance=${W101} and attempt=1`);
            await count('1 of 15 rollouts');
            await table.locator('.rollout-row[data-index="0"][data-id]').click();
            await table.locator('#details [data-action="compare"]').click();
            const compare = await webviewFrame(page, '#compare-title', 60_000);
            await compare.locator(`body.${THEMES[theme].webviewClass} #first-divergence`).waitFor({ timeout: 30_000 });
            assert.equal(await compare.locator('#compare-title').textContent(), `Compare attempts 1, 2, 3, 4 of ${W101}`);
            assert.equal(await compare.locator('#compare-warning').count(), 0);
            assert.deepEqual(await compare.locator('#compare-outcomes thead th:not(.row-head) .run-name').allTextContents(), [
              'attempt 1',
              'attempt 2',
              'attempt 3',
              'attempt 4',
            ]);
            // Graded from the same evidence as the table: resolved yes, no, no, yes.
            assert.deepEqual(
              (await compare.locator('tr[data-fact="outcome"] td').allTextContents()).map((o) => o.split(',')[0]),
              ['resolved', 'not resolved', 'not resolved', 'resolved (reward 1)'],
            );
            assert.equal(await compare.locator('tr.first-divergence').getAttribute('data-row'), '5');
            assert.match((await compare.locator('#compare-summary').textContent()) ?? '', /^the runs part at row 6: /);
            await shot('5-compare-group');
          } finally {
            if (size) await page.setViewportSize(size);
            await closeEditors(page);
          }
        }),
      );

      test(
        '5 (skyrl). Under recipe skyrl v1 the table and the Reward view agree: a masked rollout says masked and why in both, never a number',
        step('5-skyrl', async () => {
          for (const [instance, attempt, id, reason] of [
            [W202, 1, `attempt_1/${W202}/${W202}.traj`, 'context window exceeded'],
            [G7, 3, `attempt_3/${G7}/${G7}.traj.json`, 'container error'],
          ] as const) {
            await closeEditors(page);
            await runCommand(page, 'SWE Workbench: Show Rollouts Table');
            const table = await webviewFrame(page, '#viewport', 60_000);
            await table.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
            const input = table.locator('#filter input');
            await input.fill('');
            await input.pressSequentially(`instance=${instance} and attempt=${attempt}`);
            await input.press('Enter');
            await table.locator('#row-count', { hasText: /^1 of 15 rollouts$/ }).waitFor({ timeout: 60_000 });
            await table.locator('#recipe').click();
            await table.locator('#recipe [role="option"]', { hasText: /skyrl v1/ }).click({ timeout: 10_000 });
            await table.locator('#recipe-stats', { hasText: /^skyrl v1, 1 of 15 rollouts: / }).waitFor({ timeout: 30_000 });
            const row = table.locator(`.rollout-row[data-id="${id}"]`);
            await row.locator('[data-column="mask"]', { hasText: `masked: ${reason}` }).waitFor({ timeout: 10_000 });
            // No number beside the mask: neither the recipe's reward nor the plain Reward column.
            assert.equal(await row.locator('[data-column="recipe-reward"]').textContent(), 'masked', id);
            assert.equal(await row.locator('[data-column="reward"]').textContent(), 'masked', id);
            await row.click();
            await table.locator('#details [data-action="reward"]').click();
            const reward = await webviewFrame(page, '#reward-mask', 60_000);
            await reward.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 15_000 });
            assert.equal(await reward.locator('#reward-title').textContent(), `Reward: ${instance} #${attempt}`);
            assert.equal(await reward.locator('#reward-value').textContent(), 'reward masked');
            assert.match((await reward.locator('#reward-mask').textContent()) ?? '', new RegExp(`^masked: ${reason}.*, no gradient$`));
            assert.equal(await reward.locator('#terms-masked').textContent(), 'The rollout is masked: these terms give it no reward and no gradient.');
            await shot(`5-skyrl-reward-${instance}-${attempt}`);
          }
          await closeEditors(page);
        }),
      );
    });
  }
});
