import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { TrajectoryRecorder, writeTrajectoryFile } from '../../extension/core/session/trajectoryRecorder';
import type { Step } from '../../extension/core/trajectory/model';
import { launchBrowser, launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, openFileInWebview, quickOpen, runCommand, setTheme } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const FILE = 'marshmallow-1867.windowed.traj';
const RECORDING = 'replayed.traj.json';

/** A replay's recording as the session writes it: step 2 edits money.py, step 3 diverged from the original run. */
async function writeRecording(file: string): Promise<void> {
  const bash = (command: string) => ({ raw: command, tool: 'bash', args: { command } });
  const diff = 'diff --git a/ledger/money.py b/ledger/money.py\n--- a/ledger/money.py\n+++ b/ledger/money.py\n@@ -1 +1 @@\n-CENTS = 100\n+CENTS = 1000\n';
  const steps: Step[] = [
    { index: 0, thought: 'Find it.', action: bash('grep -n CENTS ledger/money.py'), observation: '1:CENTS = 100', exitCode: 0 },
    { index: 1, thought: 'Change it.', action: bash('sed -i s/100/1000/ ledger/money.py'), observation: '', exitCode: 0, state: { openFile: null, workingDir: '/repo', diff } },
    { index: 2, thought: 'Test.', action: bash('python -m pytest -q'), observation: '1 failed', exitCode: 1, flags: ['diverged'] },
  ];
  const recorder = new TrajectoryRecorder({ repo: 'ledger', repoPath: '/repo' });
  for (const step of steps) recorder.append(step);
  await writeTrajectoryFile(file, recorder.trajectory({ exitStatus: 'submitted' }));
}

describe('the trajectory stepper in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let stepper: Frame;

  const title = () => stepper.locator('#step-title').textContent();
  const action = () => stepper.locator('#action-raw').textContent();
  const allStepsShown = () => stepper.waitForFunction(() => document.querySelectorAll('.step-row:not([hidden])').length === 11 && document.getElementById('filter-status')?.textContent === '', undefined, { timeout: 10_000 });
  async function expectStep(n: number, actionStart: string): Promise<void> {
    await stepper.locator('#step-title', { hasText: `Step ${n} of 11` }).waitFor({ timeout: 10_000 });
    assert.equal((await action())?.trim().split('\n')[0], actionStart);
  }

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    await writeRecording(path.join(workspace, RECORDING));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
    stepper = await openFileInWebview(page, FILE, '#step-title').catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(out, 'open-failed.png') });
      throw error;
    });
  });

  after(async () => {
    await browser?.close();
  });

  test('opens the SWE-agent trajectory on its first step', async () => {
    await expectStep(1, 'create reproduce.py');
    assert.equal(await stepper.locator('#file-name').textContent(), FILE);
    assert.equal(await stepper.locator('.step-row').count(), 11);
    assert.equal(await stepper.locator('.step-row[aria-selected="true"] .step-label').textContent(), 'create reproduce.py');
  });

  test('steps with j/k, the arrow keys, Home and End', async () => {
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('j');
    await expectStep(2, 'edit 1:1');
    await page.keyboard.press('ArrowDown');
    await expectStep(3, 'python reproduce.py');
    await page.keyboard.press('k');
    await expectStep(2, 'edit 1:1');
    await page.keyboard.press('End');
    await expectStep(11, 'submit');
    await page.keyboard.press('ArrowUp');
    await expectStep(10, 'rm reproduce.py');
    await page.keyboard.press('Home');
    await expectStep(1, 'create reproduce.py');
  });

  test('goes to a step by number', async () => {
    await goTo(6);
    await expectStep(6, 'open src/marshmallow/fields.py 1474');
  });

  test('search narrows the timeline to matching steps', async () => {
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('/');
    await page.keyboard.type('ls -F');
    await page.keyboard.press('Enter');
    await stepper.locator('#filter-status', { hasText: '1 of 11 steps shown' }).waitFor({ timeout: 10_000 });
    await expectStep(4, 'ls -F');
    assert.equal(await stepper.locator('.step-row:not([hidden])').count(), 1);
    await stepper.locator('#search').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await allStepsShown();
  });

  test('errors only shows the lint-rejected edit', async () => {
    await stepper.locator('#errors-only').click();
    await stepper.locator('#filter-status', { hasText: '1 of 11 steps shown' }).waitFor({ timeout: 10_000 });
    await expectStep(7, 'edit 1475:1475');
    const observation = await stepper.locator('.observation-text').textContent();
    assert.match(observation ?? '', /Your proposed edit has introduced new syntax error/);
    assert.equal(await stepper.locator('.step-row:not([hidden]) .codicon-error').count(), 1);
    await stepper.locator('#errors-only').click();
    await allStepsShown();
  });

  test('opens the raw JSON of a step in an editor', async () => {
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('Home');
    await expectStep(1, 'create reproduce.py');
    await stepper.locator('#open-raw').click();
    const tab = page.locator('.tab', { hasText: `${FILE} step 1.json` });
    await tab.waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: '"action": "create reproduce.py\\n"' }).waitFor({ timeout: 15_000 });
    await page.keyboard.press('Control+W');
    await tab.waitFor({ state: 'detached', timeout: 10_000 });
  });

  test('a malformed file shows where it breaks instead of a blank view', async () => {
    const broken = await openFileInWebview(page, 'truncated.traj', '.load-error');
    const message = await broken.locator('.load-error').textContent();
    assert.match(message ?? '', /^Cannot open this trajectory/);
    assert.match(message ?? '', /truncated\.traj: line \d+/);
    assert.equal(await broken.locator('#timeline').count(), 0);
  });

  async function goTo(n: number): Promise<void> {
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('g');
    await page.keyboard.type(String(n));
    await page.keyboard.press('Enter');
  }

  test('comes back on the same step after being hidden behind another editor', async () => {
    stepper = await openFileInWebview(page, FILE, '#step-title');
    await goTo(7);
    await expectStep(7, 'edit 1475:1475');
    await quickOpen(page, 'basic.json');
    await page.locator('.tab.active', { hasText: 'basic.json' }).waitFor({ timeout: 15_000 });
    stepper = await openFileInWebview(page, FILE, '#step-title');
    await expectStep(7, 'edit 1475:1475');
  });

  test('the step detail offers Raw JSON, Replay to Here and Fork Here, each titled with its key', async () => {
    stepper = await openFileInWebview(page, FILE, '#step-title');
    await goTo(3);
    await expectStep(3, 'python reproduce.py');
    const titles = await stepper.locator('.step-actions vscode-button').evaluateAll((buttons) => buttons.map((b) => [b.id, b.textContent?.trim(), b.getAttribute('title')?.match(/\((.)\)$/)?.[1]]));
    assert.deepEqual(titles, [
      ['open-raw', 'Raw JSON', 'o'],
      ['replay-to', 'Replay to Here', 'r'],
      ['fork', 'Fork Here', 'f'],
    ]);
    assert.equal(await stepper.locator('#show-diff').count(), 0, 'no diff is recorded in this trajectory');
    for (const label of ['Replay in Container', 'Fork from Step…', 'Go to Step…']) await page.locator(`.editor-actions .action-label[aria-label^="${label}"]`).waitFor({ timeout: 10_000 });
  });

  test('Fork Here asks only how to go on: the trajectory and the step are the ones shown', async () => {
    await stepper.locator('#fork').click();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fork after step 3' }).waitFor({ timeout: 15_000 });
    assert.ok(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue with the policy' }).first().isVisible());
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  });

  test("a replay's recording shows its divergence mark, and Show Diff opens the step's file in the patch view", async () => {
    await runCommand(page, 'View: Close All Editors');
    stepper = await openFileInWebview(page, RECORDING, '#step-title');
    await stepper.locator('#step-title', { hasText: 'Step 1 of 3' }).waitFor({ timeout: 10_000 });
    assert.deepEqual(await stepper.locator('.step-row.diverged .step-number').allTextContents(), ['3']);
    assert.equal(await stepper.locator('.step-row.diverged .codicon-git-compare').count(), 1);
    await stepper.locator('.step-row[data-index="1"]').click();
    await stepper.locator('#step-title', { hasText: 'Step 2 of 3' }).waitFor({ timeout: 10_000 });
    assert.match((await stepper.locator('#show-diff').getAttribute('title')) ?? '', /\(d\)$/);
    await page.screenshot({ path: path.join(out!, 'stepper-replayed.png') });
    await stepper.locator('#show-diff').click();
    const patch = await webviewFrame(page, '#patch-title', 30_000);
    await patch.locator('#patch-title', { hasText: `${RECORDING}: step 2` }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await patch.locator('.patch-files .open-diff').allTextContents(), ['ledger/money.py']);
    await page.locator('.tab.active', { hasText: `${RECORDING}: step 2` }).waitFor({ timeout: 10_000 });
    await runCommand(page, 'View: Close All Editors');
  });

  test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      stepper = await openFileInWebview(page, FILE, `body.${THEMES[theme].webviewClass} #step-title`);
      await goTo(7);
      await expectStep(7, 'edit 1475:1475');
      await page.screenshot({ path: path.join(out!, `stepper-${theme}.png`) });
      const foreground = await stepper.locator('#step-title').evaluate((e) => getComputedStyle(e).color);
      const background = await stepper.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
    }
  });
});
