import assert from 'node:assert/strict';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { launchBrowser, launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, runCommand, setTheme, waitForExtension } from '../helpers/workbench';
import { thirdPartyFolder } from '../helpers/sharedFolder';
import { W101, writeTrainingRun } from '../fixtures/rollouts/trainingRun';

/** The recordings these tests open were written by other projects (../shared/fixtures/third-party). */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const WINDOWED = 'marshmallow-1867.windowed.traj';
const FUNCTION_CALLING = 'marshmallow-1867.function_calling.traj';
const FORK = 'marshmallow-1867.fork.traj';
const RUNS = [WINDOWED, FUNCTION_CALLING, FORK];

/**
 * A third run of the task: the function-calling run's file, cut after its step 5, with a sixth
 * step that ran the tests instead of opening fields.py, and no submission (it ran out of budget).
 */
function writeFork(file: string): void {
  const run = JSON.parse(readFileSync(path.join(workspace!, FUNCTION_CALLING), 'utf8')) as {
    trajectory: Array<Record<string, unknown>>;
    info: Record<string, unknown>;
  };
  const command = 'python -m pytest tests/test_fields.py -q';
  const sixth = { ...run.trajectory[2], action: command, observation: '1 failed, 40 passed', thought: 'Run the field tests first.', response: command };
  run.trajectory = [...run.trajectory.slice(0, 5), sixth];
  run.info = { ...run.info, exit_status: 'exit_cost', submission: null, model_stats: { ...(run.info.model_stats as object), api_calls: 6 } };
  writeFileSync(file, JSON.stringify(run));
}

describe('comparing runs of one task in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let compare: Frame;
  /** The demo's training run (3 instances x 4 attempts in three formats), the rollouts folder of these tests. */
  let trainingRun: string | undefined;
  let originalSettings: string | undefined;

  /** Selects the three runs in the explorer: a click (which opens the first in the stepper), then Ctrl+clicks. */
  async function selectRuns(): Promise<void> {
    await runCommand(page, 'View: Show Explorer');
    const row = (name: string) => page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace(/[.]/g, '\\.')}$`) });
    await row(RUNS[0]!).waitFor({ timeout: 30_000 });
    await row(RUNS[0]!).click();
    // The explorer then reveals (selects) the opened editor's file: the stepper is let open first,
    // and should the reveal still land after the Ctrl+clicks, the selection is made again.
    // A click right after the workbench starts can open the file as text: then nothing waits on a
    // stepper, the selection below is made all the same.
    await webviewFrame(page, '#run-header', 30_000).catch(() => runCommand(page, 'View: Close All Editors'));
    const selected = page.locator('.explorer-folders-view .monaco-list-row.selected');
    for (let attempt = 1; ; attempt++) {
      await row(RUNS[0]!).click();
      for (const name of RUNS.slice(1)) await row(name).click({ modifiers: ['Control'] });
      const three = await page
        .waitForFunction(() => document.querySelectorAll('.explorer-folders-view .monaco-list-row.selected').length === 3, undefined, { timeout: 5_000 })
        .then(
          () => true,
          () => false,
        );
      if (three && (await selected.count()) === 3) break;
      if (attempt >= 4) assert.equal(await selected.count(), 3, 'three runs selected in the explorer');
    }
    await row(RUNS[2]!).click({ button: 'right' });
  }

  /**
   * Runs Compare Trajectories… from the explorer's context menu on the three runs. A webview the
   * workbench creates while the machine is loaded can stay blank (as openFileInWebview knows for
   * the stepper): the editors are closed and the command asked once more.
   */
  async function compareFromExplorer(): Promise<Frame> {
    for (let attempt = 1; ; attempt++) {
      await selectRuns();
      // The workbench's menus act on a key or a mouse-up after a hover: a synthetic click right as the menu opens is dropped.
      await page.locator('.monaco-menu .action-item', { hasText: 'Compare Trajectories…' }).hover();
      await page.keyboard.press('Enter');
      const frame = await webviewFrame(page, '#compare-title', 30_000).catch((error: unknown) => error as Error);
      if (!(frame instanceof Error)) return frame;
      await page.screenshot({ path: path.join(out!, `compare-open-attempt-${attempt}.png`) });
      if (attempt >= 2) throw frame;
      await runCommand(page, 'View: Close All Editors');
    }
  }

  /**
   * The demo's way to the acme__widgets-101 group: the rollouts table, its attempt-1 row, and
   * Compare Group in the row's details.
   */
  async function compareGroupFromTable(): Promise<Frame> {
    await runCommand(page, 'SWE Workbench: Show Rollouts Table');
    const table = await webviewFrame(page, '#viewport', 60_000);
    const input = table.locator('#filter input');
    await input.fill(`instance=${W101} and attempt=1`);
    await input.press('Enter');
    await table.locator('#row-count', { hasText: /^1 of \d+ rollouts$/ }).waitFor({ timeout: 60_000 });
    await table.locator('.rollout-row[data-index="0"][data-id]').click();
    await table.locator('#details [data-action="compare"]').click();
    return webviewFrame(page, '#compare-title', 60_000);
  }

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    writeFork(path.join(workspace, FORK));
    trainingRun = mkdtempSync(path.join(tmpdir(), 'swe-workbench-compare-run-'));
    writeTrainingRun(trainingRun);
    originalSettings = readFileSync(settingsFile, 'utf8');
    writeFileSync(settingsFile, JSON.stringify({ ...(JSON.parse(originalSettings) as object), 'sweWorkbench.rollouts.folder': trainingRun }, null, 2));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
    await waitForExtension(page);
    compare = await compareFromExplorer().catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(out, 'compare-open-failed.png') });
      throw error;
    });
  });

  thirdParty.after(async () => {
    await browser?.close();
    if (originalSettings !== undefined) writeFileSync(settingsFile!, originalSettings);
    if (trainingRun) rmSync(trainingRun, { recursive: true, force: true });
  });

  /** The runs' columns in the order the explorer handed them over. */
  const columns = () => compare.locator('#compare-outcomes thead th:not(.row-head) .run-name').allTextContents();
  /** Each run's cell of an outcome row, by run name. */
  async function outcome(fact: string): Promise<Record<string, string>> {
    const names = await columns();
    const cells = await compare.locator(`tr[data-fact="${fact}"] td`).allTextContents();
    return Object.fromEntries(names.map((n, i) => [n, cells[i]!]));
  }

  thirdParty.test('three runs from the explorer: one view, titled with their task', async () => {
    // The title names the runs (in the order the explorer handed them over) and their task.
    const title = (await compare.locator('#compare-title').textContent()) ?? '';
    assert.match(title, /^Compare .* of marshmallow-code__marshmallow-1867$/);
    for (const name of RUNS) assert.ok(title.includes(name), `${name} in ${title}`);
    assert.deepEqual((await columns()).sort(), [...RUNS].sort());
    assert.equal(await compare.locator('#compare-warning').count(), 0);
  });

  thirdParty.test('steps are aligned by action and the first point where they part is marked', async () => {
    const first = compare.locator('tr.first-divergence');
    assert.equal(await first.count(), 1);
    assert.equal(await first.getAttribute('data-row'), '5');
    assert.equal(await compare.locator('#first-divergence').textContent(), ' The runs part here');
    // Before it, every run took the same action on the same row; at it the fork ran the tests.
    assert.deepEqual(await compare.locator('tr.same[data-row="0"] .step-label').allTextContents(), [
      'create reproduce.py',
      'create reproduce.py',
      'create reproduce.py',
    ]);
    for (let r = 0; r < 5; r++) assert.equal(await compare.locator(`tr.same[data-row="${r}"]`).count(), 1, `row ${r + 1} is the same in every run`);
    const fork = (await columns()).indexOf(FORK);
    const forkSixth = compare.locator('tr[data-row] td', { hasText: 'python -m pytest tests/test_fields.py -q' });
    assert.equal(await forkSixth.count(), 1);
    assert.equal(await forkSixth.evaluate((td) => Array.prototype.indexOf.call(td.parentElement!.children, td) - 1), fork, "in the fork's column");
    assert.ok((await compare.locator('td.gap').count()) >= 5, "the fork's missing steps are gaps");
    assert.match((await compare.locator('#compare-summary').textContent()) ?? '', /^the runs part at row 6: /);
  });

  thirdParty.test('outcomes and final patches side by side, unknown said as unknown', async () => {
    assert.deepEqual(await outcome('cost'), { [WINDOWED]: 'unknown', [FUNCTION_CALLING]: 'unknown', [FORK]: 'unknown' });
    assert.deepEqual(await outcome('calls'), { [WINDOWED]: 'unknown', [FUNCTION_CALLING]: '11', [FORK]: '6' });
    assert.deepEqual(await outcome('steps'), { [WINDOWED]: '11', [FUNCTION_CALLING]: '11', [FORK]: '6' });
    assert.deepEqual(await outcome('outcome'), {
      [WINDOWED]: 'not graded, exit: submitted',
      [FUNCTION_CALLING]: 'not graded, exit: submitted',
      [FORK]: 'not graded, exit: exit_cost',
    });
    assert.equal(await compare.locator('#compare-patches .patch-column .d2h-file-wrapper').count(), 2);
    assert.equal(await compare.locator('#compare-patches .patch-column .patch-problem', { hasText: 'This run submitted no patch.' }).count(), 1);
  });

  thirdParty.test("a step of the compare opens in that run's stepper", async () => {
    await compare.locator('tr[data-row] td', { hasText: 'python -m pytest tests/test_fields.py -q' }).locator('button').click();
    const stepper = await webviewFrame(page, '#step-title', 30_000);
    await stepper.locator('#step-title', { hasText: 'Step 6 of 6' }).waitFor({ timeout: 15_000 });
    assert.equal(await stepper.locator('#file-name').textContent(), FORK);
    await runCommand(page, 'View: Close All Editors');
  });

  thirdParty.test(
    "the demo's acme__widgets-101 group: the shared five actions first, parted at row 6, columns told apart, graded as the table grades them",
    async () => {
      compare = await compareGroupFromTable();
      assert.equal(await compare.locator('#compare-title').textContent(), `Compare attempts 1, 2, 3, 4 of ${W101}`);
      assert.equal(await compare.locator('#compare-warning').count(), 0, 'a run whose file names no task does not change the reading');
      assert.deepEqual(await columns(), ['attempt 1', 'attempt 2', 'attempt 3', 'attempt 4']);
      assert.deepEqual(await compare.locator('#compare-outcomes thead th:not(.row-head) .run-detail').allTextContents(), [
        `swe-agent · attempt_1/…/${W101}.traj`,
        `swe-agent · attempt_2/…/${W101}.traj`,
        `mini-swe-agent · attempt_3/…/${W101}.traj.json`,
        'r2e-gym · attempt_4/deepswe.jsonl:1',
      ]);
      assert.deepEqual(await outcome('outcome'), {
        'attempt 1': 'resolved, exit: submitted',
        'attempt 2': 'not resolved, exit: submitted',
        'attempt 3': 'not resolved, exit: LimitsExceeded',
        'attempt 4': 'resolved (reward 1), exit: agent',
      });
      assert.match((await outcome('graded'))['attempt 2'] ?? '', /^attempt_2\/logs\/run_evaluation\/.*\/report\.json$/);
      for (let r = 0; r < 5; r++) assert.equal(await compare.locator(`tr.same[data-row="${r}"] .step-cell`).count(), 4, `row ${r + 1}: every run, one action`);
      assert.deepEqual(await compare.locator('tr[data-row="0"] .step-label').allTextContents(), Array(4).fill('open "src/widgets/resize.py" 10'));
      assert.equal(await compare.locator('tr.first-divergence').getAttribute('data-row'), '5');
      assert.match(
        (await compare.locator('#compare-summary').textContent()) ?? '',
        /^the runs part at row 6: attempt 1 \(no step\), attempt 2 step 6, attempt 3 step 6, attempt 4 step 6$/,
      );
      await page.screenshot({ path: path.join(out!, 'compare-group.png') });
      await runCommand(page, 'View: Close All Editors');
    },
  );

  thirdParty.test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      compare = await compareFromExplorer();
      await compare.locator(`body.${THEMES[theme].webviewClass} #first-divergence`).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(out!, `compare-${theme}.png`) });
      const foreground = await compare.locator('#compare-title').evaluate((e) => getComputedStyle(e).color);
      const background = await compare.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
      const mark = await compare.locator('#first-divergence td').evaluate((e) => getComputedStyle(e).color);
      assert.notEqual(mark, background, `${theme}: the divergence mark reads against the background`);
      await runCommand(page, 'View: Close All Editors');
      compare = await compareGroupFromTable();
      await compare.locator(`body.${THEMES[theme].webviewClass} #first-divergence`).waitFor({ timeout: 30_000 });
      assert.equal(await compare.locator('tr.first-divergence').getAttribute('data-row'), '5', `${theme}: the group parts at row 6`);
      assert.deepEqual(await columns(), ['attempt 1', 'attempt 2', 'attempt 3', 'attempt 4']);
      await page.screenshot({ path: path.join(out!, `compare-group-${theme}.png`) });
      const detail = await compare
        .locator('#compare-outcomes thead .run-detail')
        .first()
        .evaluate((e) => getComputedStyle(e).color);
      assert.notEqual(detail, background, `${theme}: the columns' folder and format read against the background`);
      await runCommand(page, 'View: Close All Editors');
    }
  });
});
