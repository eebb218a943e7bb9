import '../helpers/families';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { TrajectoryRecorder, writeTrajectoryFile } from '../../extension/core/session/trajectoryRecorder';
import type { Step } from '../../extension/core/trajectory/model';
import { writeTrajectory } from '../../bench/load/largeTrajectory';
import { launchBrowser, launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, openFileInWebview, quickOpen, runCommand, setTheme } from '../helpers/workbench';
import { thirdPartyFolder } from '../helpers/sharedFolder';

/** The recordings these tests open were written by other projects (../shared/fixtures/third-party). */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const FILE = 'marshmallow-1867.windowed.traj';
/** The SWE-smith pandas run (SWE-agent 1.0.1): records cost and tokens, no exit codes, a traceback at step 8. */
const PANDAS = 'pandas-dev__pandas.95280573.pr_53856.traj';
const RECORDING = 'replayed.traj.json';
/** A generated run whose observations (about 100 KB, some 1,250 lines each) a boot carries cut. */
const LONG = 'long-observations.traj';

/** A replay's recording as the session writes it: step 2 edits money.py, step 3 diverged from the original run. */
async function writeRecording(file: string): Promise<void> {
  const bash = (command: string) => ({ raw: command, tool: 'bash', args: { command } });
  const diff = 'diff --git a/ledger/money.py b/ledger/money.py\n--- a/ledger/money.py\n+++ b/ledger/money.py\n@@ -1 +1 @@\n-CENTS = 100\n+CENTS = 1000\n';
  const steps: Step[] = [
    { index: 0, thought: 'Find it.', action: bash('grep -n CENTS ledger/money.py'), observation: '1:CENTS = 100', exitCode: 0 },
    {
      index: 1,
      thought: 'Change it.',
      action: bash('sed -i s/100/1000/ ledger/money.py'),
      observation: '',
      exitCode: 0,
      state: { openFile: null, workingDir: '/repo', diff },
    },
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
  const allStepsShown = () =>
    stepper.waitForFunction(
      () => document.querySelectorAll('.step-row:not([hidden])').length === 11 && document.getElementById('filter-status')?.textContent === '',
      undefined,
      { timeout: 10_000 },
    );
  async function expectStep(n: number, actionStart: string): Promise<void> {
    await stepper.locator('#step-title', { hasText: `Step ${n} of 11` }).waitFor({ timeout: 10_000 });
    assert.equal((await action())?.trim().split('\n')[0], actionStart);
  }

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    await writeRecording(path.join(workspace, RECORDING));
    writeTrajectory(path.join(workspace, LONG), 2, 0.4);
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
    stepper = await openFileInWebview(page, FILE, '#step-title').catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(out, 'open-failed.png') });
      throw error;
    });
  });

  thirdParty.after(async () => {
    await browser?.close();
  });

  thirdParty.test('opens the SWE-agent trajectory on its first step', async () => {
    await expectStep(1, 'create reproduce.py');
    assert.equal(await stepper.locator('#file-name').textContent(), FILE);
    assert.equal(await stepper.locator('.step-row').count(), 11);
    assert.equal(await stepper.locator('.step-row[aria-selected="true"] .step-label').textContent(), 'create reproduce.py');
  });

  thirdParty.test('steps with j/k, the arrow keys, Home and End', async () => {
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

  thirdParty.test('goes to a step by number', async () => {
    await goTo(6);
    await expectStep(6, 'open src/marshmallow/fields.py 1474');
  });

  thirdParty.test('search narrows the timeline to matching steps', async () => {
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

  thirdParty.test('errors only shows the lint-rejected edit', async () => {
    await stepper.locator('#errors-only').click();
    await stepper.locator('#filter-status', { hasText: '1 of 11 steps shown' }).waitFor({ timeout: 10_000 });
    await expectStep(7, 'edit 1475:1475');
    const observation = await stepper.locator('.observation-text').textContent();
    assert.match(observation ?? '', /Your proposed edit has introduced new syntax error/);
    assert.equal(await stepper.locator('.step-row:not([hidden]) .codicon-error').count(), 1);
    await stepper.locator('#errors-only').click();
    await allStepsShown();
  });

  thirdParty.test('opens the raw JSON of a step in an editor', async () => {
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

  thirdParty.test('a malformed file shows where it breaks instead of a blank view', async () => {
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

  thirdParty.test('comes back on the same step after being hidden behind another editor', async () => {
    stepper = await openFileInWebview(page, FILE, '#step-title');
    await goTo(7);
    await expectStep(7, 'edit 1475:1475');
    await quickOpen(page, 'basic.json');
    await page.locator('.tab.active', { hasText: 'basic.json' }).waitFor({ timeout: 15_000 });
    stepper = await openFileInWebview(page, FILE, '#step-title');
    await expectStep(7, 'edit 1475:1475');
  });

  thirdParty.test(
    'the step detail offers Show Diff, Raw JSON, Replay to Here and Fork Here, each titled with its key; d on a command says why there is no diff',
    async () => {
      stepper = await openFileInWebview(page, FILE, '#step-title');
      await goTo(3);
      await expectStep(3, 'python reproduce.py');
      const titles = await stepper
        .locator('.step-actions vscode-button')
        .evaluateAll((buttons) => buttons.map((b) => [b.id, b.textContent?.trim(), b.getAttribute('title')?.match(/\((.)\)$/)?.[1]]));
      assert.deepEqual(titles, [
        ['show-diff', 'Show Diff', 'd'],
        ['open-raw', 'Raw JSON', 'o'],
        ['replay-to', 'Replay to Here', 'r'],
        ['fork', 'Fork Here', 'f'],
      ]);
      await stepper.locator('#timeline').focus();
      await page.keyboard.press('d');
      await stepper
        .locator('#notice:not([hidden])', { hasText: 'Show Diff: Step 3 ran a command and the recording keeps no workspace diff' })
        .waitFor({ timeout: 10_000 });
      for (const label of ['Replay in Container', 'Fork from Step…', 'Go to Step…'])
        await page.locator(`.editor-actions .action-label[aria-label^="${label}"]`).waitFor({ timeout: 10_000 });
    },
  );

  thirdParty.test('Fork Here asks only how to go on: the trajectory and the step are the ones shown', async () => {
    await stepper.locator('#fork').click();
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Fork after step 3' }).waitFor({ timeout: 15_000 });
    assert.ok(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Continue with the policy' }).first().isVisible());
    await page.keyboard.press('Escape');
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
  });

  thirdParty.test("a replay's recording shows its divergence mark, and Show Diff opens the step's file in the patch view", async () => {
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

  thirdParty.test('a long observation shows folded from the boot, and Show all brings the rest from the host', async () => {
    const observation = (JSON.parse(readFileSync(path.join(workspace!, LONG), 'utf8')) as { trajectory: { observation: string }[] }).trajectory[0]!.observation;
    const lines = observation.split('\n');
    stepper = await openFileInWebview(page, LONG, '#step-title');
    await stepper.locator('#step-title', { hasText: 'Step 1 of 2' }).waitFor({ timeout: 10_000 });
    const text = stepper.locator('#observation .observation-text');
    assert.equal(await text.textContent(), lines.slice(0, 40).join('\n'));
    await stepper.locator('#observation .unfold', { hasText: `Show all ${lines.length} lines` }).click();
    await stepper.locator('#observation .unfold').waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await text.textContent(), observation);
    await runCommand(page, 'View: Close All Editors');
  });

  thirdParty.test(
    'the run header of the SWE-smith pandas run: outcome, cost, tokens in and out, calls and the problem statement, exactly as recorded',
    async () => {
      await runCommand(page, 'View: Close All Editors');
      stepper = await openFileInWebview(page, PANDAS, '#run-header');
      const fact = async (id: string) => (await stepper.locator(`#run-${id} strong`).textContent())?.trim();
      assert.equal(await fact('outcome'), 'not graded, exit: submitted');
      assert.equal(await fact('cost'), '$0.2483');
      assert.equal(await fact('tokens'), '157,229 in · 797 out');
      assert.equal(await fact('calls'), '17');
      assert.match((await stepper.locator('#problem-statement summary').textContent()) ?? '', /^Problem statement: BUG: to_sql fails with arrow date column/);
      await stepper.locator('#problem-statement summary').click();
      assert.match((await stepper.locator('#problem-statement .problem-text').textContent()) ?? '', /### Pandas version checks/);
      await page.screenshot({ path: path.join(out!, 'stepper-run-header.png') });
    },
  );

  thirdParty.test('a view is not an edit: icons by action kind, full labels on hover', async () => {
    const row = stepper.locator('.step-row[data-index="1"]');
    assert.equal(await row.getAttribute('data-kind'), 'view');
    assert.equal(await row.locator('.codicon-go-to-file').count(), 1);
    assert.equal(await stepper.locator('.step-row[data-index="10"]').getAttribute('data-kind'), 'edit');
    assert.equal(await stepper.locator('.step-row[data-index="10"] .codicon-edit').count(), 1);
    assert.equal(
      await stepper.locator('.step-row[data-index="3"]').getAttribute('title'),
      '4. str_replace_editor view /testbed/pandas/io/sql.py  --view_range 1030 1074',
    );
  });

  thirdParty.test('"Errors only" on the pandas run (no exit codes) finds the traceback of step 8 and says what it was', async () => {
    await stepper.locator('#errors-only').click();
    await stepper.locator('#filter-status', { hasText: '1 of 17 steps shown' }).waitFor({ timeout: 10_000 });
    await stepper.locator('#step-title', { hasText: 'Step 8 of 17' }).waitFor({ timeout: 10_000 });
    assert.deepEqual(await stepper.locator('.step-row:not([hidden]) .step-number').allTextContents(), ['8']);
    assert.match(
      (await stepper.locator('#step-errors').textContent()) ?? '',
      /output line \d+: sqlalchemy\.exc\.NoSuchModuleError: Can't load plugin: sqlalchemy\.dialects:duckdb/,
    );
    await page.screenshot({ path: path.join(out!, 'stepper-errors-only.png') });
    await stepper.locator('#errors-only').click();
    await stepper.waitForFunction(() => document.getElementById('filter-status')?.textContent === '', undefined, { timeout: 10_000 });
  });

  thirdParty.test('a search that matches nothing says so; matches are highlighted; Esc clears the search', async () => {
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('/');
    await page.keyboard.type('no-such-text-anywhere');
    await page.keyboard.press('Enter');
    await stepper
      .locator('#timeline-empty:not([hidden])', { hasText: 'No step\'s thought, action or observation contains "no-such-text-anywhere" (17 steps searched).' })
      .waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await stepper.locator('#timeline-empty[hidden]').waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await stepper.locator('.step-row:not([hidden])').count(), 17);
    assert.equal(await stepper.locator('#search').evaluate((e) => (e as HTMLInputElement).value), '');
    await page.keyboard.press('/');
    await page.keyboard.type('duckdb');
    await page.keyboard.press('Enter');
    await stepper.locator('#filter-status', { hasText: /^\d+ of 17 steps shown$/ }).waitFor({ timeout: 10_000 });
    await stepper
      .locator('.step-detail mark', { hasText: /^duckdb$/i })
      .first()
      .waitFor({ timeout: 10_000 });
    assert.ok((await stepper.locator('.step-row:not([hidden]) .step-label mark').count()) >= 1, 'a matching label is marked');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await stepper.waitForFunction(() => document.getElementById('filter-status')?.textContent === '', undefined, { timeout: 10_000 });
    assert.equal(await stepper.locator('mark').count(), 0);
  });

  thirdParty.test("Show Diff on a str_replace the recording keeps no diff for rebuilds the edit's change in the patch view", async () => {
    await goTo(11);
    await stepper.locator('#step-title', { hasText: 'Step 11 of 17' }).waitFor({ timeout: 10_000 });
    await stepper.locator('#show-diff').click();
    const patch = await webviewFrame(page, '#patch-title', 30_000);
    await patch.locator('#patch-title', { hasText: `${PANDAS}: step 11: pandas/io/sql.py (rebuilt from the edit)` }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await patch.locator('.patch-files .open-diff').allTextContents(), ['pandas/io/sql.py']);
    assert.ok((await patch.locator('.d2h-ins').count()) > 0, 'added lines are coloured');
    await runCommand(page, 'View: Close All Editors');
  });

  thirdParty.test('the submit step shows the final patch coloured, and d opens it in the patch view', async () => {
    stepper = await openFileInWebview(page, PANDAS, '#final-patch');
    await goTo(17);
    await stepper.locator('#step-title', { hasText: 'Step 17 of 17' }).waitFor({ timeout: 10_000 });
    assert.ok((await stepper.locator('#observation .diff-line.added').count()) > 0, 'added lines are marked');
    assert.equal(await stepper.locator('#observation .diff-line.file').first().textContent(), 'diff --git a/pandas/io/sql.py b/pandas/io/sql.py\n');
    await stepper.locator('#timeline').focus();
    await page.keyboard.press('d');
    const patch = await webviewFrame(page, '#patch-title', 30_000);
    await patch.locator('#patch-title', { hasText: `${PANDAS}: final patch` }).waitFor({ timeout: 15_000 });
    await runCommand(page, 'View: Close All Editors');
  });

  thirdParty.test('Final Patch opens the submitted patch in the patch view, coloured', async () => {
    stepper = await openFileInWebview(page, PANDAS, '#final-patch');
    await stepper.locator('#final-patch').click();
    const patch = await webviewFrame(page, '#patch-title', 30_000);
    await patch.locator('#patch-title', { hasText: `${PANDAS}: final patch` }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await patch.locator('.patch-files .open-diff').allTextContents(), ['pandas/io/sql.py']);
    assert.ok((await patch.locator('.d2h-ins').count()) > 0);
    await page.screenshot({ path: path.join(out!, 'stepper-final-patch.png') });
    await runCommand(page, 'View: Close All Editors');
  });

  thirdParty.test('unknown is said as unknown: the windowed run records zeros for cost and tokens; the open file is the one after the step', async () => {
    stepper = await openFileInWebview(page, FILE, '#run-header');
    for (const id of ['cost', 'tokens', 'calls']) assert.equal((await stepper.locator(`#run-${id} strong`).textContent())?.trim(), 'unknown', id);
    await goTo(6);
    await expectStep(6, 'open src/marshmallow/fields.py 1474');
    assert.match((await stepper.locator('.detail-header .facts').textContent()) ?? '', /open: \/marshmallow-code__marshmallow\/src\/marshmallow\/fields\.py/);
  });

  thirdParty.test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      stepper = await openFileInWebview(page, FILE, `body.${THEMES[theme].webviewClass} #step-title`);
      await goTo(7);
      await expectStep(7, 'edit 1475:1475');
      await page.screenshot({ path: path.join(out!, `stepper-${theme}.png`) });
      const foreground = await stepper.locator('#step-title').evaluate((e) => getComputedStyle(e).color);
      const background = await stepper.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
      // The run header with cost and tokens, and "Errors only" finding the traceback, in this theme.
      stepper = await openFileInWebview(page, PANDAS, `body.${THEMES[theme].webviewClass} #run-header`);
      assert.equal((await stepper.locator('#run-cost strong').textContent())?.trim(), '$0.2483');
      assert.equal((await stepper.locator('#run-tokens strong').textContent())?.trim(), '157,229 in · 797 out');
      if (!(await stepper.locator('#errors-only').evaluate((e) => (e as HTMLInputElement).checked))) await stepper.locator('#errors-only').click();
      await stepper.locator('#filter-status', { hasText: '1 of 17 steps shown' }).waitFor({ timeout: 10_000 });
      await stepper.locator('#step-errors', { hasText: 'NoSuchModuleError' }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, `stepper-why-${theme}.png`) });
      const errorColour = await stepper.locator('#step-errors').evaluate((e) => getComputedStyle(e).color);
      const headerBackground = await stepper.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(errorColour, headerBackground, `${theme}: the error reads against the background`);
      await stepper.locator('#errors-only').click();
    }
  });
});
