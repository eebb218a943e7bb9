import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { HOSTILE_PATCH } from '../builders/hostilePatch';
import { launchBrowser, launchBrowserOn } from '../helpers/browser';
import { THEMES, quickOpen, runCommand, runCommandOnActiveFile, setTheme, waitForExtension } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const repoRoot = path.resolve(__dirname, '../../..');

describe('the patch view in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  async function showPatch(file: string, ready: string): Promise<Frame> {
    // A hidden panel's frame stays in the page: close it so the frame found is the new one.
    await runCommand(page, 'View: Close All Editors');
    await quickOpen(page, file);
    await page.locator('.tab.active', { hasText: file }).waitFor({ timeout: 15_000 });
    return runCommandOnActiveFile(page, 'SWE Workbench: Show Patch…', 'Open a patch (.diff, .patch) or a bug folder', ready);
  }

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    cpSync(path.join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close'), path.join(workspace, 'patch-bug'), { recursive: true });
    mkdirSync(path.join(workspace, 'hostile'), { recursive: true });
    writeFileSync(path.join(workspace, 'hostile', 'hostile.patch'), HOSTILE_PATCH);
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
    await waitForExtension(page);
  });

  after(async () => {
    await browser?.close();
  });

  test("shows the sample bug's diff side by side, then line by line", async () => {
    const view = await showPatch('bug_inject.diff', '#patch-title');
    assert.equal(await view.locator('#patch-title').textContent(), 'bug_inject.diff');
    assert.deepEqual(await view.locator('.patch-files .open-diff').allTextContents(), ['ledger/journal.py', 'ledger/money.py']);
    assert.equal(await view.locator('.d2h-file-side-diff').count(), 4, 'two columns for each of two files');
    assert.ok((await view.locator('.d2h-del').allTextContents()).some((t) => t.includes('leftover = total.amount - sum(parts)')));
    await view.locator('#layout-toggle').click();
    await view.locator('#patch-body[data-layout="line-by-line"]').waitFor({ timeout: 10_000 });
    assert.equal(await view.locator('.d2h-file-side-diff').count(), 0);
    assert.equal(await view.locator('.d2h-file-diff').count(), 2);
  });

  test("opens a file in VS Code's diff editor from the file list", async () => {
    const view = await showPatch('bug_inject.diff', '#patch-title');
    await view.locator('.patch-files .open-diff', { hasText: 'ledger/money.py' }).click();
    await page.locator('.tab', { hasText: 'money.py (Patch)' }).waitFor({ timeout: 15_000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 15_000 });
  });

  test('a hostile patch is shown as text: its markup never becomes elements', async () => {
    const view = await showPatch('hostile.patch', '.patch-files');
    assert.deepEqual(await view.locator('.patch-files .open-diff').allTextContents(), ['x<script>alert(1)</script>.py']);
    assert.equal(await view.locator('.patch-diff img').count(), 0);
    assert.equal(await view.locator('.patch-diff script').count(), 0);
    assert.match((await view.locator('.patch-diff').textContent()) ?? '', /def <img src=x onerror=alert\(2\)>/);
  });

  test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      const view = await showPatch('bug_inject.diff', `body.${THEMES[theme].webviewClass} #patch-title`);
      await page.screenshot({ path: path.join(out!, `patch-${theme}.png`) });
      const [fg, bg] = await view
        .locator('.d2h-code-side-line')
        .first()
        .evaluate((e) => [getComputedStyle(e).color, getComputedStyle(document.body).backgroundColor]);
      assert.notEqual(fg, bg, `${theme}: code text differs from the background`);
    }
  });
});
