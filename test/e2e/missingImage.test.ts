import '../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { BASE_IMAGE, sessionContainers, stopSessionLeavingNoContainer, writeShellRecording } from '../helpers/sessionE2e';
import { launchBrowserOn } from '../helpers/browser';
import { THEMES, openFileInWebview, runCommand, setTheme } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;

type Theme = keyof typeof THEMES;
const themes = Object.keys(THEMES) as Theme[];

/** Three shell steps whose recorded output the workspace, copied into the container, gives again. */
const STEPS = [
  { raw: 'echo ready', observation: 'ready' },
  { raw: 'ls truncated.traj', observation: 'truncated.traj' },
  { raw: 'printf "%s\\n" done', observation: 'done' },
];

/**
 * A recording per theme, each on an image no engine has: the image chosen instead is remembered
 * per missing image, so each theme meets the question afresh.
 */
const recordingOf = (theme: Theme) => ({ file: `missing-image-${theme}.traj.json`, image: `swe-workbench/e2e-missing-${theme}:absent` });

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const sessionRow = (page: Page, text: RegExp) => page.locator('.monaco-list-row', { hasText: text });
const stuckStarting = (page: Page) => page.locator('.statusbar-item', { hasText: 'sandbox starting' });

describe('a replay whose image the Docker engine lacks', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    for (const theme of themes) writeShellRecording(path.join(workspace, recordingOf(theme).file), STEPS, recordingOf(theme).image);
    // Pulling allowed, so all three choices are offered (none of them is pressed here: no network).
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(settingsFile, JSON.stringify({ ...settings, 'sweWorkbench.docker.allowPull': true }, null, 2));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  after(async () => {
    await runCommand(page, 'SWE Workbench: Stop Session').catch(() => undefined);
    await browser?.close();
    const { 'sweWorkbench.docker.allowPull': _, ...settings } = JSON.parse(readFileSync(settingsFile!, 'utf8')) as Record<string, unknown>;
    writeFileSync(settingsFile!, JSON.stringify(settings, null, 2));
  });

  test('says which image is missing and what to do; a local image picked instead runs the replay; nothing lingers', async () => {
    for (const theme of themes) {
      const { file, image } = recordingOf(theme);
      await setTheme(page, settingsFile!, theme);
      await openFileInWebview(page, file, '#step-title');
      await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();

      const toast = page.locator('.notification-toast', { hasText: `needs the image '${image}', which is not on the Docker engine` });
      await toast.waitFor({ timeout: 120_000 });
      const message = (await toast.locator('.notification-list-item-message').textContent()) ?? '';
      assert.match(message, new RegExp(`a replay of ${escape(file)} needs the image '${escape(image)}'`), message);
      assert.match(message, new RegExp(`Pull it, pick a local image, or use the base image ${escape(BASE_IMAGE)}`), message);
      const buttons = await toast.locator('.notification-list-item-buttons-container .monaco-button').allTextContents();
      assert.deepEqual(
        buttons.map((b) => b.trim()),
        ['Pull', 'Pick a Local Image', 'Use the Base Image'],
      );
      // The failed start left nothing behind: no container, and the status bar does not say "starting".
      await stuckStarting(page).waitFor({ state: 'detached', timeout: 30_000 });
      assert.deepEqual(sessionContainers(), []);
      await page.screenshot({ path: path.join(out!, `missing-image-${theme}.png`) });

      await toast.locator('.monaco-button', { hasText: 'Pick a Local Image' }).click();
      const picker = page.locator('.quick-input-widget', { hasText: `Local image instead of ${image}` });
      await picker.waitFor({ timeout: 30_000 });
      await picker.locator('input').fill(BASE_IMAGE);
      await picker
        .locator('.quick-input-list .monaco-list-row', { has: page.locator('.monaco-highlighted-label', { hasText: new RegExp(`^${escape(BASE_IMAGE)}$`) }) })
        .first()
        .click();

      // The replay runs on the local image: every step matched, then it finishes after the recording's last step.
      await sessionRow(page, /finished \(out of actions\)/).waitFor({ timeout: 180_000 });
      const rows = await sessionRow(page, /exit \S+ · [\d.]+ m?s · (matched|diverged)/).allTextContents();
      assert.equal(rows.length, STEPS.length, rows.join(' | '));
      for (const [i, row] of rows.entries()) assert.match(row, new RegExp(`^${i + 1}\\s+${STEPS[i]!.raw.split(' ')[0]}.*exit 0 · [\\d.]+ m?s · matched`), row);
      assert.equal(sessionContainers().length, 1, 'the replay runs in one container of ours');
      await page.locator('.statusbar-item', { hasText: 'sandbox finished (out of actions)' }).waitFor({ timeout: 10_000 });
      assert.equal(await stuckStarting(page).count(), 0);
      // The replay's progress ("replaying FILE" with "step N: bash") goes when the replay has run.
      await page.locator('.notification-toast', { hasText: 'SWE Workbench: replaying ' }).waitFor({ state: 'detached', timeout: 30_000 });
      await page.screenshot({ path: path.join(out!, `missing-image-${theme}-replayed.png`) });

      await stopSessionLeavingNoContainer(page);
      assert.equal(await page.locator('.statusbar-item', { hasText: /sandbox (starting|running)/ }).count(), 0);
    }
  });
});
