import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { PolicyServer } from '../../extension/core/policy/scriptedPolicyServer';
import { DEMO_MODEL, demoReply } from '../../scripts/demo/ledgerDemo';
import { sessionContainers, stopSessionLeavingNoContainer } from '../helpers/sessionE2e';
import { launchBrowser, webviewFrame } from '../helpers/browser';
import { openFileInWebview, runCommand } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
/** The suites run from the repository's root (scripts/run-vscode-tests.mjs). */
const repoRoot = process.cwd();

const sessionRow = (page: Page, text: RegExp) => page.locator('.monaco-list-row', { hasText: text });
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

/** Closes every editor, so the next stepper opened is the only webview with a step title. */
async function closeEditors(page: Page): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  await page.locator('.editor-group-container .tab').first().waitFor({ state: 'detached', timeout: 30_000 });
}

/**
 * The README's "Demo (five minutes)" followed as written, in the workspace `npm start` lays out
 * (the same helper) with the scripted stand-in policy it serves. One theme: the views it passes
 * through are checked in the three themes by their own tests.
 */
describe("the README's five-minute walk through the demo", () => {
  let home: string;
  let policy: PolicyServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  before(async () => {
    assert.ok(url && workspace && out, 'run through scripts/run-vscode-tests.mjs e2e');
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
    await page.goto(`${url}/?workspace=${encodeURIComponent(workspaceFile)}`);
  });

  after(async () => {
    await page?.screenshot({ path: path.join(out!, 'demo-walk-last.png') }).catch(() => undefined);
    await stopSessionLeavingNoContainer(page).catch(() => undefined);
    await browser?.close();
    await policy?.close();
    rmSync(home, { recursive: true, force: true });
  });

  let stepper: Frame;
  const expectStep = (n: number, of = 4) => stepper.locator('#step-title', { hasText: `Step ${n} of ${of}` }).waitFor({ timeout: 15_000 });

  test('1. Step through: ledger-allocate.swe-agent.traj shows four steps; j/k move; / searches', async () => {
    stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
    await expectStep(1);
    for (const part of ['.thought', '#action-raw', '.observation-text'])
      assert.ok(((await stepper.locator(part).first().textContent()) ?? '').trim().length > 0, `step 1 shows its ${part}`);
    // The demo's recordings measured no time and counted no cost: unknown, never 0.0 s or $0.
    for (const fact of ['#run-duration', '#run-cost']) assert.equal(await stepper.locator(`${fact} strong`).textContent(), 'unknown', fact);
    assert.doesNotMatch((await stepper.locator('div.facts').first().textContent()) ?? '', /\b0\.00 s\b/);
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('j');
    await expectStep(2);
    await page.keyboard.press('k');
    await expectStep(1);
    await page.keyboard.press('/');
    await page.keyboard.type('def test_');
    await page.keyboard.press('Enter');
    await stepper.locator('#filter-status', { hasText: '1 of 4 steps shown' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await stepper.waitForFunction(() => document.getElementById('filter-status')?.textContent === '', undefined, { timeout: 10_000 });
    await page.screenshot({ path: path.join(out!, 'demo-walk-1-step-through.png') });

    await closeEditors(page);
  });

  test('2. Replay: r on the last step of ledger-allocate.swe-agent.traj replays it with nothing asked, every step matched', async () => {
    stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
    await expectStep(1);
    await stepper.locator('#timeline').focus();
    for (const n of [2, 3, 4]) {
      await page.keyboard.press('j');
      await expectStep(n);
    }
    await page.keyboard.press('r');
    // Nothing is asked: the image is the recording's, the repository the folder holding its base commit.
    await sessionRow(page, /replay ledger-allocate\.swe-agent\.traj.*4 steps/)
      .waitFor({ timeout: 180_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, 'demo-walk-2-failed.png') });
        throw error;
      });
    assert.equal(await page.locator('.quick-input-widget:visible').count(), 0, 'no question was asked');
    const rows = await sessionRow(page, STEP_ROW).allTextContents();
    assert.deepEqual(
      rows.map((r) => r.match(/(matched|diverged)/)?.[1]),
      ['matched', 'matched', 'matched', 'matched'],
      rows.join(' | '),
    );
    await page.screenshot({ path: path.join(out!, 'demo-walk-2-replay.png') });
    await stopSessionLeavingNoContainer(page);
    await closeEditors(page);
  });

  test('3. A replay that diverges: on-the-buggy-tree.traj replayed on sample-repo; a diverged row opens Recorded ↔ Replayed', async () => {
    await openStepper(page, 'on-the-buggy-tree.traj');
    await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
    // The recording names no repository the workspace has: the person picks sample-repo.
    const asked = page.locator('.quick-input-widget', { hasText: 'Repository to copy into the container' });
    await asked.waitFor({ timeout: 60_000 });
    await asked.locator('.quick-input-list .monaco-list-row', { hasText: /^sample-repo/ }).click();
    await sessionRow(page, /replay on-the-buggy-tree\.traj.*4 steps/).waitFor({ timeout: 180_000 });
    const rows = await sessionRow(page, STEP_ROW).allTextContents();
    const verdicts = rows.map((r) => r.match(/(matched|diverged)/)?.[1]);
    // Reading `allocate` (step 2) and the submitted patch (step 4) meet the tree without the bug.
    assert.deepEqual(verdicts, ['matched', 'diverged', 'matched', 'diverged'], rows.join(' | '));
    await sessionRow(page, /^2\s+\S.*diverged/).click();
    const view = await webviewFrame(page, '#replay-verdict', 60_000);
    assert.equal((await view.locator('#replay-verdict').textContent())?.trim(), 'diverged');
    assert.ok((await view.locator('.diff-line.recorded, .diff-line.replayed').count()) > 0, 'the line diff is shown');
    assert.ok((await view.locator('li[data-normaliser]').count()) > 0, 'the normalisers are named');
    // SWE-agent records no exit code and the demo measured no time: both unknown, never "0 ms".
    assert.equal(await view.locator('#replay-recorded .side-facts').textContent(), 'exit unknown · duration unknown');
    await page.screenshot({ path: path.join(out!, 'demo-walk-3-diverges.png') });
    await stopSessionLeavingNoContainer(page);
    await closeEditors(page);
  });

  test('4. Fork: f on step 2, continued with the policy the demo serves, runs to its submission', async () => {
    stepper = await openStepper(page, 'ledger-allocate.swe-agent.traj');
    // The stepper comes back on the step it last showed: go to step 2 by number.
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
    await sessionRow(page, /fork of ledger-allocate\.swe-agent\.traj after step 2/)
      .waitFor({ timeout: 180_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, 'demo-walk-4-failed.png') });
        throw error;
      });
    await sessionRow(page, /^2\s+\S.*matched/).waitFor({ timeout: 60_000 });
    // The fork pauses where it was made; Continue hands over to the policy.
    await sessionRow(page, /paused before step 3/).waitFor({ timeout: 60_000 });
    await runCommand(page, 'SWE Workbench: Continue');
    await sessionRow(page, /^\d+\s+submit/).waitFor({ timeout: 180_000 });
    const rows = await sessionRow(page, STEP_ROW).allTextContents();
    assert.ok(rows.length >= 3, rows.join(' | '));
    assert.deepEqual(
      rows.slice(2).filter((r) => /matched|diverged/.test(r)),
      [],
      'the policy’s steps are the fork’s own, not compared with the recording',
    );
    await page.screenshot({ path: path.join(out!, 'demo-walk-4-fork.png') });
    await stopSessionLeavingNoContainer(page);
    await closeEditors(page);
  });

  test('5. The Bugs view lists bugs/valid-allocate-and-close; the Rollouts view has indexed rollouts/', async () => {
    await runCommand(page, 'SWE Workbench: Focus on Bugs View');
    await page.locator('.monaco-list-row', { hasText: 'valid-allocate-and-close' }).first().waitFor({ timeout: 60_000 });
    await runCommand(page, 'SWE Workbench: Focus on Rollouts View');
    await page.locator('.monaco-list-row', { hasText: 'acme__widgets-101' }).first().waitFor({ timeout: 60_000 });
    await page
      .locator('.monaco-list-row', { hasText: /unreadable input/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(out!, 'demo-walk-5-bugs-rollouts.png') });
  });

  test('1 (other formats). ledger-allocate.mini-swe-agent.traj.json opens in the stepper the same way', async () => {
    stepper = await openStepper(page, 'ledger-allocate.mini-swe-agent.traj.json');
    await stepper.locator('#step-title', { hasText: /^Step 1 of \d+$/ }).waitFor({ timeout: 15_000 });
  });
});
