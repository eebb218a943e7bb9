import '../helpers/families';
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { sessionContainers, writeShellRecording } from '../helpers/sessionE2e';
import { launchBrowser, launchBrowserOn } from '../helpers/browser';
import { THEMES, openFileInWebview, runCommand, setTheme } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const FILE = 'session-demo.traj.json';

/** Three shell steps whose recorded output the workspace, copied into the container, gives again. */
const STEPS = [
  { raw: 'echo ready', observation: 'ready' },
  { raw: 'ls truncated.traj', observation: 'truncated.traj' },
  { raw: 'printf "%s\\n" done', observation: 'done' },
];

function writeRecording(dir: string): void {
  writeShellRecording(path.join(dir, FILE), STEPS);
}

/** Opens the recording, presses the stepper's "Replay in Container" button and waits for every step in the Session view. */
async function replayFromStepper(page: Page): Promise<string[]> {
  await openFileInWebview(page, FILE, '#step-title');
  await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
  await runCommand(page, 'Focus on Session View');
  const rows = page.locator('.monaco-list-row', { hasText: /exit \d+ · [\d.]+ m?s · (matched|diverged)/ });
  await page.locator('.monaco-list-row', { hasText: /3\s+printf/ }).waitFor({ timeout: 120_000 });
  return rows.allTextContents();
}

describe('replay from the stepper toolbar into the Session view', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    writeRecording(workspace);
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  after(async () => {
    await runCommand(page, 'SWE Workbench: Stop Session').catch(() => undefined);
    await browser?.close();
  });

  test('each replayed step appears in the Session view, matched, in every theme', async () => {
    // Others' sessions may run on this Docker engine too: ours are the ones not there before.
    const before = new Set(sessionContainers());
    const ours = () => sessionContainers().filter((c) => !before.has(c));
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      const rows = await replayFromStepper(page);
      assert.equal(rows.length, STEPS.length, rows.join(' | '));
      // Each row names its step as the stepper does: the command run, not the tool.
      for (const [i, row] of rows.entries()) assert.match(row, new RegExp(`^${i + 1}\\s+${STEPS[i]!.raw.split(' ')[0]}.*exit 0 · [\\d.]+ m?s · matched`), row);
      // Out of recorded actions, the episode is over: finished, not paused before a step that will not come.
      await page.locator('.monaco-list-row', { hasText: /finished \(out of actions\) · 3 steps/ }).waitFor({ timeout: 10_000 });
      await page.locator('.statusbar-item', { hasText: 'sandbox finished (out of actions)' }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `session-${theme}.png`) });
      await runCommand(page, 'SWE Workbench: Stop Session');
      await page.locator('.monaco-list-row', { hasText: /stopped/ }).waitFor({ timeout: 60_000 });
    }
    // Stopped sessions keep their containers for their snapshots, until removed.
    await runCommand(page, 'SWE Workbench: Discard Kept Fork Snapshots');
    // Docker may still be tearing down the last container; one that stays is a leak.
    for (let attempt = 0; ours().length > 0; attempt++) {
      if (attempt > 60) assert.fail(`containers left behind: ${ours().join(', ')}`);
      await page.waitForTimeout(1000);
    }
  });
});
