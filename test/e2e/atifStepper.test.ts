import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, quickOpen, runCommand, setTheme } from '../helpers/workbench';
import { thirdPartyFolder } from '../helpers/sharedFolder';

/** Harbor's Terminus-2 recording (ATIF v1.6), written by Harbor (../shared/fixtures/third-party). */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
/** Named as Harbor names it (`trajectory.json`): a JSON file, which opens in the stepper through Reopen Editor With. */
const FILE = 'terminus-2.trajectory.json';

/** The file in the stepper: Quick Open shows it as JSON text, then it is reopened in the stepper. */
async function openInStepper(page: Page, readySelector: string): Promise<Frame> {
  await runCommand(page, 'View: Close All Editors');
  await quickOpen(page, FILE);
  await page.locator('.tab.active', { hasText: FILE }).waitFor({ timeout: 15_000 });
  await runCommand(page, 'View: Reopen Editor With...');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'SWE Workbench Trajectory' }).first().click({ timeout: 15_000 });
  return webviewFrame(page, readySelector, 30_000);
}

describe('an ATIF file in the stepper', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    copyFileSync(thirdParty.path('harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json'), path.join(workspace, FILE));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  thirdParty.after(async () => {
    await browser?.close();
  });

  thirdParty.test("Terminus-2's run reads in the dark, light and high-contrast themes: keystrokes, the screen, the subagent handoff", async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      const stepper = await openInStepper(page, `body.${THEMES[theme].webviewClass} #step-title`).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `atif-open-failed-${theme}.png`) });
        throw error;
      });
      await stepper.locator('#step-title', { hasText: 'Step 1 of 9' }).waitFor({ timeout: 15_000 });
      assert.equal(await stepper.locator('.step-row').count(), 9);
      assert.equal(await stepper.locator('.step-row[aria-selected="true"] .step-label').textContent(), 'keystrokes=mkdir test_dir');
      assert.match((await stepper.locator('.observation-text').textContent()) ?? '', /root@CONTAINER_ID:\/app# mkdir test_dir/);
      // Step 4 is the system's handoff to the summarising subagent: it names the subagent's file, then its session.
      await stepper.locator('#timeline').focus();
      await page.keyboard.press('g');
      await page.keyboard.type('4');
      await page.keyboard.press('Enter');
      await stepper.locator('#step-title', { hasText: 'Step 4 of 9' }).waitFor({ timeout: 10_000 });
      await stepper
        .locator('.observation-text', {
          hasText: 'subagent trajectory: trajectory.summarization-1-summary.json, session test-session-context-summarization-summarization-1-summary',
        })
        .waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `atif-stepper-${theme}.png`) });
      const foreground = await stepper.locator('#step-title').evaluate((e) => getComputedStyle(e).color);
      const background = await stepper.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
    }
  });
});
