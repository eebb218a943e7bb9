import assert from 'node:assert/strict';
import { cpSync, renameSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { launchBrowser, launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, quickOpen, reloadWindow, runCommand, runCommandOnActiveFile, setTheme, waitForExtension } from '../helpers/workbench';
import { thirdPartyFolder } from '../helpers/sharedFolder';

/** The recordings these tests open were written by other projects (../shared/fixtures/third-party). */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const INSTANCE = 'pandas-dev__pandas.95280573.pr_53652';

describe('the reward view in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  async function showReward(ready: string): Promise<Frame> {
    await quickOpen(page, 'report.json');
    await page.locator('.tab.active', { hasText: 'report.json' }).waitFor({ timeout: 15_000 });
    return runCommandOnActiveFile(page, 'SWE Workbench: Show Reward Breakdown…', 'Grade: pick a test output', ready);
  }

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    cpSync(thirdParty.path('swe-smith/run_evaluation', INSTANCE), path.join(workspace, INSTANCE), { recursive: true });
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
    await waitForExtension(page);
  });

  thirdParty.after(async () => {
    await browser?.close();
  });

  thirdParty.test("grades SWE-smith's pandas run as FULL, in agreement with its report, term by term", async () => {
    const view = await showReward('#reward-title');
    assert.equal(await view.locator('#resolution').textContent(), 'FULL');
    assert.equal(await view.locator('#reward-value').textContent(), 'reward 1');
    assert.match((await view.locator('#report-agreement').textContent()) ?? '', /Agrees with .*report\.json/);
    assert.deepEqual(await view.locator('#terms tbody td:first-child').allTextContents(), ['FAIL_TO_PASS passing', 'PASS_TO_PASS passing', 'resolution FULL']);
    assert.equal(await view.locator('.reward-chart rect.bar.positive').count(), 3);
    assert.equal(await view.locator('[data-list="FAIL_TO_PASS"] li[data-passed="true"]').count(), 2);
  });

  thirdParty.test('the recipe picker scores the same files with SWE-Master: each term with its rule, and back', async () => {
    const view = await showReward('#reward-title');
    await view.locator('#reward-recipe').click();
    await view.locator('#reward-recipe [role="option"]', { hasText: /swe-master v1/ }).click();
    await view.locator('#recipe-source', { hasText: /SWE-Master \(2025\)/ }).waitFor({ timeout: 30_000 });
    assert.deepEqual(await view.locator('#terms tbody td:first-child').allTextContents(), ['resolved', 'forced-submission discount']);
    assert.match((await view.locator('#terms tbody tr').nth(1).textContent()) ?? '', /alpha = 0\.5 when the turn limit forced the submission/);
    assert.equal(await view.locator('#reward-value').textContent(), 'reward 1');
    await view.locator('#reward-recipe').click();
    await view.locator('#reward-recipe [role="option"]', { hasText: /SWE-bench resolve/ }).click();
    await view.locator('#terms tbody td:first-child', { hasText: 'resolution FULL' }).waitFor({ timeout: 30_000 });
  });

  thirdParty.test("a test's link opens the test output at its line", async () => {
    const view = await showReward('#reward-title');
    await view.locator('[data-list="FAIL_TO_PASS"] .test-link').first().click();
    await page.locator('.tab.active', { hasText: 'test_output.txt' }).waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: 'test_getitem_pyarrow_index[Series] PASSED' }).waitFor({ timeout: 15_000 });
  });

  thirdParty.test('comes back after a reload, and names the file it graded when that file is gone', async () => {
    await runCommand(page, 'View: Close All Editors');
    await showReward('#reward-title');
    const reload = async () => {
      await reloadWindow(page);
      await waitForExtension(page);
    };
    await reload();
    const restored = await webviewFrame(page, '#reward-title', 60_000);
    assert.equal(await restored.locator('#resolution').textContent(), 'FULL');
    const report = path.join(workspace!, INSTANCE, 'report.json');
    renameSync(report, `${report}.moved`);
    try {
      await reload();
      const failed = await webviewFrame(page, '.load-error', 60_000);
      assert.match((await failed.locator('.error-message').textContent()) ?? '', new RegExp(`${INSTANCE}/report\\.json: no such file`));
      await page.screenshot({ path: path.join(out!, 'reward-file-gone.png') });
    } finally {
      renameSync(`${report}.moved`, report);
      await runCommand(page, 'View: Close All Editors');
    }
  });

  thirdParty.test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      // A bare page reload can bring back editors of an older state (the panel of the file that
      // was gone): the view is opened on an empty editor area, as the other tests open it.
      await runCommand(page, 'View: Close All Editors');
      const view = await showReward(`body.${THEMES[theme].webviewClass} #reward-title`).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `reward-${theme}-failed.png`) });
        throw error;
      });
      await page.screenshot({ path: path.join(out!, `reward-${theme}.png`) });
      const [fill, bg] = await view
        .locator('.reward-chart rect.bar')
        .first()
        .evaluate((e) => [getComputedStyle(e).fill, getComputedStyle(document.body).backgroundColor]);
      assert.notEqual(fill, bg, `${theme}: the bars stand out from the background`);
    }
  });
});
