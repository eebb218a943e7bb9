import '../helpers/families';
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { sessionContainers, stopSessionLeavingNoContainer, writeShellRecording } from '../helpers/sessionE2e';
import { launchBrowserOn } from '../helpers/browser';
import { THEMES, openFileInWebview, runCommand, setTheme } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;

type Theme = keyof typeof THEMES;
const themes = Object.keys(THEMES) as Theme[];

const FILE = 'fork-by-hand.traj.json';
/** The recording forked after its first step: the steps after it are the person's. */
const STEPS = [
  { raw: 'echo ready', observation: 'ready' },
  { raw: 'echo recorded-2', observation: 'recorded-2' },
  { raw: 'echo recorded-3', observation: 'recorded-3' },
];

/**
 * The ten actions typed by hand (steps 2 to 11): each appends its own line to a log kept in the
 * container, and the last exits 0 only when the log holds the nine lines before it, in the order
 * typed, so a lost or repeated action shows as a failed step. No quotes or brackets, which the
 * editor would close by itself.
 */
function handActions(theme: Theme): string[] {
  const lines = Array.from({ length: 9 }, (_, i) => `${theme}-${i + 2}`);
  return [...lines.map((l) => `echo ${l} >> hand-${theme}.log`), `paste -sd, hand-${theme}.log | grep -qx ${lines.join(',')}`];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sessionRow = (page: Page, text: RegExp) => page.locator('.monaco-list-row', { hasText: text });
/** The first line of the next-action editor once it asks for step `n` (1-based). */
const hintFor = (page: Page, n: number) =>
  // The editor shows spaces as no-break spaces, which \s matches.
  page.locator('.editor-instance .monaco-editor .view-line', { hasText: new RegExp(`^#\\sSWE\\sWorkbench:\\sstep\\s${n}\\s\\(`) });

/** Collapses the other views of the container, so the Session view has the height for all its rows (a list draws only the rows in view). */
async function collapseOtherViews(page: Page): Promise<void> {
  for (const name of ['Rollouts', 'Bugs', 'Branches']) {
    const header = page.locator('.pane-header[aria-expanded="true"]', { hasText: name });
    if ((await header.count()) > 0) await header.first().click();
    await page.locator('.pane-header[aria-expanded="false"]', { hasText: name }).waitFor({ timeout: 10_000 });
  }
}

/** The stepper showing the file named `file` (exactly) on the step `title` names (several steppers may be open). */
async function stepperShowing(page: Page, file: string, title: RegExp): Promise<Frame> {
  for (let attempt = 0; attempt < 300; attempt++) {
    for (const frame of page.frames()) {
      const named = await frame
        .locator('#file-name', { hasText: new RegExp(`^${escapeRe(file)}$`) })
        .count()
        .catch(() => 0);
      if (
        named > 0 &&
        (await frame
          .locator('#step-title', { hasText: title })
          .count()
          .catch(() => 0)) > 0
      )
        return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no stepper shows ${file} at ${String(title)}`);
}

/** Types `action` on the line below the hint of the next-action editor and saves it with Ctrl+S. */
async function typeAndSave(page: Page, n: number, action: string): Promise<void> {
  const hint = hintFor(page, n);
  await hint.waitFor({ timeout: 60_000 });
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(action);
  await page.keyboard.press('Control+s');
}

describe('a fork continued by hand in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    writeShellRecording(path.join(workspace, FILE), STEPS);
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  after(async () => {
    await page.screenshot({ path: path.join(out!, 'fork-by-hand-last.png') }).catch(() => undefined);
    await runCommand(page, 'SWE Workbench: Stop Session').catch(() => undefined);
    await browser?.close();
  });

  test('Fork Here, by hand: the next-action editor opens by itself, ten typed actions run in a row, Stop leaves nothing', async () => {
    for (const theme of themes) {
      await setTheme(page, settingsFile!, theme);
      await openFileInWebview(page, FILE, '#step-title');
      // The recording's stepper, not the previous fork's, which the workbench may have kept open.
      const stepper = await stepperShowing(page, FILE, /Step \d+ of 3/);
      await stepper.locator('.step-row').first().click();
      await stepper.locator('#step-title', { hasText: 'Step 1 of 3' }).waitFor({ timeout: 10_000 });
      await stepper.locator('#fork').click();
      const how = page.locator('.quick-input-widget', { hasText: 'Fork after step 1' });
      await how.waitFor({ timeout: 15_000 });
      await how.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue by hand' }).click();

      // Step 1 is replayed; then the editor for step 2 opens by itself, nothing pressed to ask for it.
      await sessionRow(page, /^1\s+echo ready.*exit 0 · [\d.]+ m?s · matched/).waitFor({ timeout: 180_000 });
      await collapseOtherViews(page);
      await page.locator('.tab.active', { hasText: 'next action.sh' }).waitFor({ timeout: 60_000 });
      const first = (await hintFor(page, 2).textContent({ timeout: 60_000 }))?.replace(/\u00a0/g, ' ') ?? '';
      assert.match(first, /^# SWE Workbench: step 2 \([^)]+\), one action in its syntax: .*; save to run it$/, first);
      await page.locator('.statusbar-item', { hasText: 'sandbox waiting for your action for step 2' }).waitFor({ timeout: 30_000 });
      // Nothing runs while it waits for the person: no progress notification sits over the editor.
      assert.equal(await page.locator('.notification-toast', { hasText: 'SWE Workbench: running the fork of' }).count(), 0);
      await page.screenshot({ path: path.join(out!, `fork-by-hand-${theme}-asked.png`) });

      const actions = handActions(theme);
      for (const [i, action] of actions.entries()) {
        const n = i + 2;
        await typeAndSave(page, n, action);
        // The step's result shows in the Session view, and the editor asks for the next step at once.
        await sessionRow(page, new RegExp(`^${n}\\s+${escapeRe(action.slice(0, 40))}`)).waitFor({ timeout: 60_000 });
        await hintFor(page, n + 1).waitFor({ timeout: 60_000 });
      }
      const rows = await sessionRow(page, /^\d+\s+\S.*exit/).allTextContents();
      assert.equal(rows.length, 11, rows.join(' | '));
      // Each row names its step as the stepper does: the action typed, not the tool ("bash" eleven times).
      const typed = ['echo ready', ...actions].map((a) => escapeRe(a.slice(0, 40)));
      for (const [i, row] of rows.entries()) assert.match(row, new RegExp(`^${i + 1}\\s+${typed[i]}.*exit 0 · [\\d.]+ m?s`), row);
      // Only the replayed step is compared with the recording; the typed ones are the fork's own.
      assert.equal(rows.filter((r) => /matched|diverged/.test(r)).length, 1, rows.join(' | '));
      await sessionRow(page, /waiting for your action for step 12 · 11 steps/).waitFor({ timeout: 30_000 });
      assert.equal(sessionContainers().length, 1, 'the fork runs in one container of ours');
      await page.screenshot({ path: path.join(out!, `fork-by-hand-${theme}.png`) });
      // A typed step's row opens that step as it ran in the stepper (in the last theme: a window reloaded for
      // the next theme would restore that stepper over the recording's).
      if (theme === themes.at(-1)) {
        await sessionRow(page, /^2\s+echo/).click();
        const session = await stepperShowing(page, 'fork of fork-by-hand.traj.json after step 1.json', /Step 2 of 11/);
        assert.match((await session.locator('.detail').textContent()) ?? '', new RegExp(`echo ${theme}-2 >> hand-${theme}\\.log`));
        await page.screenshot({ path: path.join(out!, `fork-by-hand-${theme}-stepper.png`) });
      }
      await stopSessionLeavingNoContainer(page, /stopped · 11 steps/);
      await page.locator('.statusbar-item', { hasText: /sandbox (starting|running|waiting)/ }).waitFor({ state: 'detached', timeout: 30_000 });
      await page.locator('.notification-toast', { hasText: 'SWE Workbench: running the fork of' }).waitFor({ state: 'detached', timeout: 30_000 });
      await runCommand(page, 'View: Close All Editors');
    }
  });
});
