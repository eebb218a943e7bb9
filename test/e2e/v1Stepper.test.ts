/**
 * Recordings that are more than one line of steps, in the stepper of code-server in three themes:
 * an OpenHands V1 conversation kept as a tree (a real one with a second branch appended, as the
 * SDK writes one; test/helpers/v1Branches.ts), whose other branch opens from the run header in a
 * stepper of its own, and Harbor's summarisation run as ATIF v1.7 keeps it, its subagents embedded
 * (test/helpers/atifEmbeddedSubagents.ts), one of which opens from the step that delegated to it.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, quickOpen, runCommand, setTheme, waitForExtension } from '../helpers/workbench';
import { thirdPartyFolder } from '../helpers/sharedFolder';
import { EMBEDDED_SUBAGENTS, writeEmbeddedSubagentRun } from '../helpers/atifEmbeddedSubagents';
import { NEW_BRANCH, ORIGINAL_LEAF, branchedConversation } from '../helpers/v1Branches';

const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const CONVERSATION = 'conversation-30692f28';
const ATIF = 'summarization.v1.7.json';
const [SUMMARY] = EMBEDDED_SUBAGENTS;

const exactly = (name: string) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

describe('OpenHands V1 branches and ATIF v1.7 subagents in the stepper', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;
  let work: string | undefined;

  /** Runs the Explorer's "Open Trajectory" on the workspace's top-level entry `name` (a file, or a conversation folder). */
  async function openFromExplorer(name: string): Promise<void> {
    await runCommand(page, 'View: Show Explorer');
    const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: exactly(name) });
    await row.waitFor({ timeout: 30_000 });
    await row.click({ button: 'right' });
    // The workbench's menus act on a key or a mouse-up after a hover: a synthetic click right as the menu opens is dropped.
    await page.locator('.monaco-menu .action-item', { hasText: exactly('Open Trajectory') }).hover();
    await page.keyboard.press('Enter');
  }

  /** The stepper whose header names `fileName`, once it shows its first step of `steps`. */
  async function stepperOf(fileName: string, steps: number): Promise<Frame> {
    const stepper = await webviewFrame(page, `#file-name:text-is("${fileName}")`, 30_000);
    await stepper.locator('#step-title', { hasText: `Step 1 of ${steps}` }).waitFor({ timeout: 15_000 });
    return stepper;
  }

  /** The name the only stepper open shows in its header: the trajectory it was handed. */
  async function onlyStepperName(): Promise<string> {
    const stepper = await webviewFrame(page, '#file-name', 30_000);
    await stepper.waitForFunction(() => (document.getElementById('file-name')?.textContent ?? '') !== '', undefined, { timeout: 15_000 });
    return (await stepper.locator('#file-name').textContent()) ?? '';
  }

  async function closeAll(): Promise<void> {
    await runCommand(page, 'View: Close All Editors');
    await page.locator('.tab').first().waitFor({ state: 'detached', timeout: 15_000 });
  }

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    // The conversation is built beside the workspace, then copied in whole: a folder half written
    // while the Explorer watches it would be listed before its last event.
    work = mkdtempSync(path.join(tmpdir(), 'swe-workbench-v1-stepper-'));
    cpSync(branchedConversation(work, process.cwd()), path.join(workspace, CONVERSATION), { recursive: true });
    writeEmbeddedSubagentRun(thirdParty.path('harbor/golden/terminus_2'), path.join(workspace, ATIF));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  thirdParty.after(async () => {
    await browser?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  thirdParty.test('a conversation opens on the branch in use, its other branch opens from the header, the file again on the one in use', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      await closeAll();
      await openFromExplorer(CONVERSATION);
      const main = await stepperOf('base_state.json', 3).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `v1-open-failed-${theme}.png`) });
        throw error;
      });
      await main.locator('#run-forks', { hasText: '1 other branch:' }).waitFor({ timeout: 10_000 });
      // The branch in use ends with the appended answer; the branch it left, with the recorded one.
      await main.locator('#timeline').focus();
      await page.keyboard.press('End');
      await main.locator('#step-title', { hasText: 'Step 3 of 3' }).waitFor({ timeout: 10_000 });
      await main.locator('.observation-text', { hasText: 'gpt-4o-mini' }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `v1-conversation-${theme}.png`) });

      await main.locator('vscode-button.open-branch', { hasText: `Open branch ${ORIGINAL_LEAF}` }).click();
      const branch = await stepperOf(`base_state.json › branch ${ORIGINAL_LEAF}`, 3);
      await branch.locator('#run-forks', { hasText: `Open branch ${NEW_BRANCH.observation} in use, 3 steps, steps 1-2 shared` }).waitFor({ timeout: 10_000 });
      await branch.locator('#timeline').focus();
      await page.keyboard.press('End');
      await branch.locator('#step-title', { hasText: 'Step 3 of 3' }).waitFor({ timeout: 10_000 });
      await branch.locator('.observation-text', { hasText: 'ok (stubbed LLM response)' }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `v1-branch-${theme}.png`) });
      const foreground = await branch.locator('#file-name').evaluate((e) => getComputedStyle(e).color);
      const background = await branch.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);

      // With every editor closed, the file opens again on the branch the conversation has in use:
      // through Quick Open (whose "recently opened" lists the branch's stepper too, under a name
      // of its own) and Reopen Editor With, and through the Explorer's Open Trajectory.
      await closeAll();
      await quickOpen(page, 'base_state.json');
      await page.locator('.tab.active', { hasText: 'base_state.json' }).waitFor({ timeout: 15_000 });
      await runCommand(page, 'View: Reopen Editor With...');
      await page.locator('.quick-input-list .monaco-list-row', { hasText: 'SWE Workbench Trajectory' }).first().click({ timeout: 15_000 });
      assert.equal(await onlyStepperName(), 'base_state.json', `${theme}: Quick Open and Reopen Editor With on base_state.json, after its branch was open`);
      await closeAll();
      await openFromExplorer(CONVERSATION);
      assert.equal(await onlyStepperName(), 'base_state.json', `${theme}: Open Trajectory on the folder, after its branch was open`);
      await stepperOf('base_state.json', 3);
    }
  });

  thirdParty.test('an ATIF v1.7 run opens, and its embedded subagent from the step that delegated to it', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      await closeAll();
      await openFromExplorer(ATIF);
      const parent = await stepperOf(ATIF, 9).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `v1-atif-open-failed-${theme}.png`) });
        throw error;
      });
      // Step 4 hands the context to the three summarisation subagents.
      await parent.locator('#timeline').focus();
      await page.keyboard.press('g');
      await page.keyboard.type('4');
      await page.keyboard.press('Enter');
      await parent.locator('#step-title', { hasText: 'Step 4 of 9' }).waitFor({ timeout: 10_000 });
      const links = parent.locator('#step-subagents vscode-button');
      await links.first().waitFor({ timeout: 10_000 });
      assert.deepEqual(
        (await links.allTextContents()).map((t) => t.trim()),
        EMBEDDED_SUBAGENTS.map((id) => `Open subagent ${id}`),
      );
      await page.screenshot({ path: path.join(out!, `v1-atif-parent-${theme}.png`) });
      await links.first().click();
      const sub = await stepperOf(`${ATIF} › ${SUMMARY}`, 5);
      await sub
        .locator('#thought, .thought', { hasText: 'You are an AI assistant tasked with solving command-line tasks' })
        .first()
        .waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `v1-atif-subagent-${theme}.png`) });
      const foreground = await sub.locator('#file-name').evaluate((e) => getComputedStyle(e).color);
      const background = await sub.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
    }
  });
});
