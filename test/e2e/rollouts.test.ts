import '../helpers/families';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { launchBrowser, webviewFrame } from '../helpers/browser';
import { writeLargeRolloutRun, type LargeRun } from '../helpers/largeRolloutRun';
import { THEMES, reloadWindow, runCommand, waitForExtension } from '../helpers/workbench';
import { FAILING_TEST, G7, S3, W101, W202, makeRolloutFolder, writeTrainingRun } from '../fixtures/rollouts/trainingRun';
import { thirdPartyFolder } from '../helpers/sharedFolder';

/** The folder holds every third-party fixture beside the generated run (makeRolloutFolder). */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;

describe('the rollouts table in code-server', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let table: Frame;
  let small: ReturnType<typeof makeRolloutFolder>;
  let large: LargeRun;
  /** The demo's training run alone (3 instances x 4 attempts, 3 rLLM episodes): 15 rollouts in 4 groups. */
  let demoRun: string;
  let originalSettings: string;

  const rowCount = () => table.locator('#row-count').textContent();
  const waitForCount = (text: string) => table.locator('#row-count', { hasText: new RegExp(`^${text}$`) }).waitFor({ timeout: 60_000 });
  const cells = (column: string) => table.locator(`.rollout-row[data-id] [data-column="${column}"]`).allTextContents();

  /**
   * Points the setting at a folder and reloads: the server reads a settings file written behind
   * its back only then. A table left open would come back on its own folder, so none is left.
   */
  async function showFolder(folder: string, theme?: keyof typeof THEMES): Promise<void> {
    const loaded = page.url().startsWith(url!);
    if (loaded) await runCommand(page, 'View: Close All Editors');
    const settings = JSON.parse(readFileSync(settingsFile!, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      settingsFile!,
      JSON.stringify({ ...settings, 'sweWorkbench.rollouts.folder': folder, ...(theme ? { 'workbench.colorTheme': THEMES[theme].id } : {}) }, null, 2),
    );
    if (loaded) await reloadWindow(page);
    else await page.goto(`${url}/?folder=${encodeURIComponent(workspace!)}`);
    if (theme) await page.locator(`.monaco-workbench.${THEMES[theme].workbenchClass}`).waitFor({ timeout: 60_000 });
    await waitForExtension(page);
    await runCommand(page, 'SWE Workbench: Show Rollouts Table');
    table = await webviewFrame(page, '#viewport', 60_000);
  }

  // Typing right after a click can lose the first keys while the text field's inner input takes
  // focus; fill() waits for that input, and Enter commits the value as a person's Enter does.
  async function filter(expression: string): Promise<void> {
    const input = table.locator('#filter input');
    await input.fill(expression);
    await input.press('Enter');
  }

  /** Picks in one of the table's drop-downs as a person does: open it, click the option. */
  async function pick(select: '#recipe' | '#estimator', option: RegExp): Promise<void> {
    await table.locator(select).click();
    await table
      .locator(`${select} [role="option"]`, { hasText: option })
      .click({ timeout: 10_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `rollouts-pick-${select.slice(1)}-failed.png`) });
        throw error;
      });
  }

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    originalSettings = readFileSync(settingsFile, 'utf8');
    small = makeRolloutFolder();
    large = writeLargeRolloutRun();
    demoRun = mkdtempSync(path.join(tmpdir(), 'swe-workbench-demo-run-'));
    writeTrainingRun(demoRun);
    browser = await launchBrowser();
    page = browser.page;
    await showFolder(small.root).catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(out, 'rollouts-open-failed.png') });
      throw error;
    });
  });

  thirdParty.after(async () => {
    await browser?.close();
    if (originalSettings !== undefined) writeFileSync(settingsFile!, originalSettings);
    small?.cleanup();
    large?.cleanup();
    if (demoRun) rmSync(demoRun, { recursive: true, force: true });
  });

  thirdParty.test('lists every rollout of the folder with its group statistics', async () => {
    await waitForCount('25 rollouts');
    // The count is written with the index; the rows once the page has laid them out.
    await table.locator('.rollout-row[data-id] [data-column="instance"]').first().waitFor({ timeout: 10_000 });
    assert.equal(await table.locator('#index-errors').textContent(), ' 2 unreadable inputs');
    const stats = await table.locator('#stats').textContent();
    assert.match(stats ?? '', /mixed groups \d+/);
    assert.match(stats ?? '', /pass@1 /);
    assert.ok((await cells('instance')).length > 0);
  });

  thirdParty.test('sorts by steps, descending on the second click', async () => {
    const header = table.locator('.table-head button[data-column="steps"]');
    await header.click();
    await table.locator('.table-head button[data-column="steps"][aria-sort="ascending"]').waitFor({ timeout: 10_000 });
    await header.click();
    await table.locator('.table-head button[data-column="steps"][aria-sort="descending"]').waitFor({ timeout: 10_000 });
    await table.locator('#viewport[aria-busy="false"]').waitFor({ timeout: 10_000 });
    await table.locator('.rollout-row[data-index="0"] [data-column="steps"]', { hasText: /^\d+$/ }).waitFor({ timeout: 10_000 });
    const steps = (await cells('steps')).map(Number);
    assert.ok(steps.length > 5, `rows shown: ${steps.length}`);
    assert.deepEqual(
      steps,
      [...steps].sort((a, b) => b - a),
    );
  });

  thirdParty.test('a filter expression narrows the rows and the count', async () => {
    await filter('failure=max-steps or exit=FormatError');
    await waitForCount('\\d+ of 25 rollouts');
    const shown = Number((await rowCount())?.split(' ')[0]);
    assert.ok(shown >= 2 && shown < 25, `shown: ${shown}`);
    await table
      .locator('.rollout-row[data-id]')
      .nth(shown - 1)
      .waitFor({ timeout: 10_000 });
    const failures = await cells('failure');
    assert.equal(failures.length, shown);
    assert.ok(
      failures.every((f) => f === 'max-steps' || f === 'format-error'),
      failures.join(', '),
    );
  });

  thirdParty.test("an invalid filter shows the core's error and keeps the rows", async () => {
    const before = await rowCount();
    await filter('steps>');
    const error = table.locator('#filter-error');
    await error.waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await error.textContent(), "filter: column 7: expected a value after 'steps>', got the end of the filter");
    assert.equal(await rowCount(), before);
  });

  thirdParty.test('opens a rollout in the stepper on its first format error', async () => {
    await filter(`instance=${W202} and format=mini-swe-agent`);
    await waitForCount('1 of 25 rollouts');
    assert.equal(await table.locator('#filter-error').isVisible(), false);
    await table.locator('.rollout-row[data-index="0"][data-id]').dblclick();
    const stepper = await webviewFrame(page, '#step-title', 60_000);
    await stepper
      .locator('#step-title', { hasText: 'Step 3 of 4' })
      .waitFor({ timeout: 30_000 })
      .catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, 'rollouts-open-rollout-failed.png') });
        throw error;
      });
    assert.match((await stepper.locator('.format-error').textContent()) ?? '', /\S/);
    await page.keyboard.press('Control+W');
  });

  thirdParty.test("a row's details pane says why it failed and opens its reward breakdown with a click", async () => {
    await runCommand(page, 'SWE Workbench: Show Rollouts Table');
    table = await webviewFrame(page, '#viewport', 60_000);
    await filter(`instance=${W101} and attempt=2`);
    await waitForCount('1 of 25 rollouts');
    await table.locator('.rollout-row[data-index="0"][data-id]').click();
    await table.locator('#details').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await table.locator('#details-rollout').textContent(), ` ${W101} #2`);
    assert.equal(
      await table.locator('#details-reason').textContent(),
      `submitted-wrong: run/attempt_2/logs/run_evaluation/attempt_2/acme-coder-7b/${W101}/report.json: not resolved`,
    );
    assert.deepEqual(await table.locator('#details-tests li').allTextContents(), [FAILING_TEST]);
    await table.locator('#details [data-action="reward"]').click();
    const reward = await webviewFrame(page, '#reward-title', 60_000);
    assert.equal(await reward.locator('#reward-title').textContent(), `Reward: ${W101} #2`);
    assert.equal(await reward.locator('#resolution').textContent(), 'NO');
    assert.equal(await reward.locator('#reward-value').textContent(), 'reward 0');
    assert.deepEqual(
      await reward.locator('[data-list="FAIL_TO_PASS"] li[data-passed="false"]').evaluateAll((items) => items.map((i) => i.getAttribute('data-test'))),
      [FAILING_TEST],
    );
    assert.match((await reward.locator('#missing').textContent()) ?? '', /No test output beside .*report\.json \(test_output\.txt\)/);
    await page.screenshot({ path: path.join(out!, 'rollouts-reward.png') });
  });

  thirdParty.test('the reward view and the table come back after a reload, with the filter, rows and selection', async () => {
    await reloadWindow(page);
    await waitForExtension(page);
    const reward = await webviewFrame(page, '#reward-title', 60_000).catch(async (error: unknown) => {
      await page.screenshot({ path: path.join(out!, 'rollouts-reload-failed.png') });
      throw error;
    });
    assert.equal(await reward.locator('#reward-title').textContent(), `Reward: ${W101} #2`);
    assert.equal(await reward.locator('#resolution').textContent(), 'NO');
    await page.locator('.tabs-container .tab', { hasText: /^Rollouts$/ }).click();
    table = await webviewFrame(page, '#viewport', 60_000);
    await waitForCount('1 of 25 rollouts');
    assert.equal(await table.locator('#filter input').inputValue(), `instance=${W101} and attempt=2`);
    await table.locator(`.rollout-row[aria-selected="true"][data-id="run/attempt_2/${W101}/${W101}.traj"]`).waitFor({ timeout: 10_000 });
    assert.equal(await table.locator('#details-rollout').textContent(), ` ${W101} #2`);
  });

  thirdParty.test('the keyboard selects a row and opens its patch with P', async () => {
    await filter(`instance=${W101}`);
    await waitForCount('4 of 25 rollouts');
    await table.locator('.rollout-row[data-index="0"][data-id]').waitFor({ timeout: 10_000 });
    await table.locator('#viewport').focus();
    await table.locator('#viewport').press('Home');
    const id = await table.locator('.rollout-row[aria-selected="true"]').getAttribute('data-id');
    assert.ok(id, 'Home selects the first row');
    await table.locator('#viewport').press('p');
    const patch = await webviewFrame(page, '#patch-title', 60_000);
    assert.equal(await patch.locator('#patch-title').textContent(), `Submission of ${id}`);
    await page.screenshot({ path: path.join(out!, 'rollouts-patch.png') });
  });

  thirdParty.test('a recipe scores the rows: a masked rollout says why, and its group shows each advantage', async () => {
    // The patch view took the tab: the table's webview comes back when shown again.
    await runCommand(page, 'SWE Workbench: Show Rollouts Table');
    table = await webviewFrame(page, '#viewport', 60_000);
    await filter(`instance=${G7}`);
    await waitForCount('4 of 25 rollouts');
    await pick('#recipe', /swe-bench v1/);
    await pick('#estimator', /RLOO/);
    // The recipe's line counts the rollouts shown (G7's four) and their group, not the whole run.
    await table.locator('#recipe-stats', { hasText: /^swe-bench v1, 4 of 25 rollouts: / }).waitFor({ timeout: 30_000 });
    assert.equal(
      await table.locator('#recipe-stats').textContent(),
      "swe-bench v1, 4 of 25 rollouts: 3 scored, 1 masked (container error: exit status 'RuntimeError' ×1), 0 not scored; 1 of 1 groups give a gradient",
    );
    const crashed = table.locator(`.rollout-row[data-id="run/attempt_3/${G7}/${G7}.traj.json"]`);
    await crashed.locator('[data-column="mask"]', { hasText: "masked: container error: exit status 'RuntimeError'" }).waitFor({ timeout: 10_000 });
    assert.equal(await crashed.locator('[data-column="advantage"]').textContent(), '—');
    // A mask is never a number: the reward cell says masked, the Mask column why.
    assert.equal(await crashed.locator('[data-column="recipe-reward"]').textContent(), 'masked');
    await crashed.click();
    await table
      .locator('#details-score', { hasText: /^no gradient: masked: container error.*left out of the group's statistics, no gradient$/ })
      .waitFor({ timeout: 10_000 });
    // G7 under swe-bench keeps [1, 0, 0] (attempts 1, 2, 4); RLOO: 1 - (0 + 0)/2 = +1, 0 - (1 + 0)/2 = -0.5.
    const group = table.locator('#group-advantages tbody tr');
    await group.first().waitFor({ timeout: 10_000 });
    const rows = await group.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    assert.deepEqual(rows, [
      ['#1', '1', '+1'],
      ['#2', '0', '-0.5'],
      ['#3', 'masked', '—'],
      ['#4', '0', '-0.5'],
    ]);
    assert.match(
      (await table.locator('#details-group h3').textContent()) ?? '',
      /^Group acme__gadgets-7: n = 3 · mean 0\.333 · std 0\.577 · 1 masked · mixed · gives a gradient$/,
    );
    assert.match(
      (await group.nth(1).locator('td').nth(3).textContent()) ?? '',
      /^RLOO: r - mean of the other rollouts .*reward 0, n = 3, mean 0\.3333, std 0\.5774, mean of the others 0\.5$/,
    );
    await page.screenshot({ path: path.join(out!, 'rollouts-recipe.png') });
    // Its plain Reward column and its reward view say the same as the recipe's cells: masked, for the same reason.
    assert.equal(await crashed.locator('[data-column="reward"]').textContent(), 'masked');
    await table.locator('#details [data-action="reward"]').click();
    // Found by its mask: the breakdown opened earlier in another tab has none.
    const reward = await webviewFrame(page, '#reward-mask', 60_000);
    assert.equal(await reward.locator('#reward-title').textContent(), `Reward: ${G7} #3`);
    assert.equal(await reward.locator('#reward-value').textContent(), 'reward masked');
    assert.equal(await reward.locator('#reward-mask').textContent(), "masked: container error: exit status 'RuntimeError', no gradient");
    await page.screenshot({ path: path.join(out!, 'rollouts-recipe-reward-masked.png') });
    await runCommand(page, 'SWE Workbench: Show Rollouts Table');
    table = await webviewFrame(page, '#viewport', 60_000);
  });

  thirdParty.test('exports the filtered rows as SFT data from the view', async () => {
    await filter(`instance=${W101}`);
    await waitForCount('4 of 25 rollouts');
    await table.locator('#export-open').click();
    await table.locator('#export-keep input').fill('resolved');
    await table.locator('#export-file input').fill('sft-w101.jsonl');
    await table.locator('#export-start').click();
    await table.locator('#export-status', { hasText: /^Wrote / }).waitFor({ timeout: 60_000 });
    const file = path.join(workspace!, 'sft-w101.jsonl');
    assert.equal(await table.locator('#export-status').textContent(), `Wrote 2 of 4 rollouts to ${file}; left out: not resolved ×2.`);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; messages: { role: string }[]; loss_mask: number[] });
    assert.deepEqual(lines.map((l) => l.id).sort(), [`run/attempt_1/${W101}/${W101}.traj`, 'run/attempt_4/deepswe.jsonl:1']);
    for (const l of lines)
      assert.deepEqual(
        l.loss_mask,
        l.messages.map((m) => (m.role === 'assistant' ? 1 : 0)),
      );
  });

  thirdParty.test('scrolls 10,000 rollouts keeping only the rows in view in the DOM', async () => {
    await showFolder(large.root);
    await waitForCount('10000 rollouts');
    assert.match((await table.locator('#stats').textContent()) ?? '', /instances 1000/);
    assert.match((await table.locator('#stats').textContent()) ?? '', /pass@10 /);
    for (const target of [5000, 9999]) {
      await table.locator('#viewport').evaluate((e, top) => (e.scrollTop = top), target * 24);
      await table.locator(`.rollout-row[data-index="${target}"][data-id]`).waitFor({ timeout: 30_000 });
      const inDom = await table.locator('.rollout-row').count();
      assert.ok(inDom < 150, `${inDom} rows in the DOM`);
    }
    assert.equal(await table.locator('.rollout-row[data-index="9999"] [data-column="instance"]').textContent(), 'acme__widgets-0999');
  });

  thirdParty.test('an export of 10,000 rollouts shows its progress as it goes and writes every line', async () => {
    await table.locator('#export-open').click();
    await table.locator('#export-keep input').fill('');
    await table.locator('#export-file input').fill('sft-large.jsonl');
    // Every status the view shows, as it shows it.
    await table.locator('#export-status').evaluate((node) => {
      const seen: string[] = [];
      (window as unknown as { exportStatuses: string[] }).exportStatuses = seen;
      new MutationObserver(() => seen.push(node.textContent ?? '')).observe(node, { childList: true, characterData: true, subtree: true });
    });
    await table.locator('#export-start').click();
    const file = path.join(workspace!, 'sft-large.jsonl');
    await table.locator('#export-status', { hasText: `Wrote 10000 of 10000 rollouts to ${file}.` }).waitFor({ timeout: 120_000 });
    const statuses = await table.locator('body').evaluate(() => (window as unknown as { exportStatuses: string[] }).exportStatuses);
    const progress = statuses.filter((t) => /^\d+ of 10000 read, \d+ written…$/.test(t));
    assert.ok(progress.length >= 10, `progress shown ${progress.length} times: ${statuses.slice(0, 5).join(' | ')}`);
    assert.equal(readFileSync(file, 'utf8').split('\n').length - 1, 10_000);
    rmSync(file);
  });

  thirdParty.test('Cancel stops an export of 10,000 rollouts and writes nothing', async () => {
    await table.locator('#export-file input').fill('sft-cancelled.jsonl');
    await table.locator('#export-start').click();
    await table.locator('#export-cancel').click();
    const file = path.join(workspace!, 'sft-cancelled.jsonl');
    await table.locator('#export-status', { hasText: `Export cancelled: ${file} was not written.` }).waitFor({ timeout: 60_000 });
    assert.equal(existsSync(file), false);
    assert.deepEqual(
      readdirSync(workspace!).filter((f) => f.includes('sft-cancelled')),
      [],
    );
  });

  thirdParty.test('is readable in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await showFolder(small.root, theme);
      await table.locator(`body.${THEMES[theme].webviewClass}`).waitFor({ timeout: 30_000 });
      await filter('');
      await waitForCount('25 rollouts');
      await pick('#recipe', /deepswe v1/);
      await table.locator('#recipe-stats').waitFor({ timeout: 30_000 });
      await table.locator('.rollout-row[data-index="0"][data-id] [data-column="advantage"]').waitFor({ timeout: 10_000 });
      await table.locator(`.rollout-row[data-id="run/attempt_1/${W202}/${W202}.traj"]`).click();
      await table.locator('#group-advantages').waitFor({ timeout: 10_000 });
      await table.locator('#details').waitFor({ state: 'visible', timeout: 10_000 });
      await runCommand(page, 'SWE Workbench: Focus on Rollouts View');
      await page.locator('.sidebar .monaco-list-row', { hasText: 'acme__widgets-101' }).waitFor({ timeout: 20_000 });
      await page.screenshot({ path: path.join(out!, `rollouts-${theme}.png`) });
      const foreground = await table.locator('.rollout-row[data-index="0"] [data-column="instance"]').evaluate((e) => getComputedStyle(e).color);
      const background = await table.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(foreground, background, `${theme}: text and background differ`);
      const [button, pane] = await table
        .locator('#details [data-action="reward"]')
        .evaluate((e) => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]);
      assert.notEqual(button, pane, `${theme}: the details pane's buttons are readable`);
    }
  });

  /**
   * Each header's text lies inside its own cell (nothing cut, nothing under the next column),
   * for the columns in view; the head scrolls sideways with the rows.
   */
  async function headerProblems(): Promise<string[]> {
    return table.locator('.table-head').evaluate((head) => {
      const scroller = head.parentElement!.getBoundingClientRect();
      const problems: string[] = [];
      for (const cell of head.querySelectorAll<HTMLElement>('[role="columnheader"]')) {
        const box = cell.getBoundingClientRect();
        if (getComputedStyle(cell).display === 'none' || box.left >= scroller.right) continue;
        const label = cell.matches('button') ? cell.querySelector('span')! : cell;
        const range = document.createRange();
        range.selectNodeContents(label);
        const text = range.getBoundingClientRect();
        const name = label.textContent ?? '';
        if (label.scrollWidth > label.clientWidth + 1) problems.push(`${name}: cut (${label.scrollWidth} > ${label.clientWidth})`);
        if (text.left < box.left - 0.5 || text.right > box.right + 0.5)
          problems.push(`${name}: [${text.left}, ${text.right}] outside its cell [${box.left}, ${box.right}]`);
      }
      return problems;
    });
  }

  /** A row's instance cell: the whole name, the end that stays in view, and the name its hover shows. */
  async function instanceCell(id: string): Promise<{ text: string; tail: string; tailShown: boolean; title: string }> {
    return table.locator(`.rollout-row[data-id="${id}"] [data-column="instance"]`).evaluate((cell) => {
      const tail = cell.querySelector<HTMLElement>('.instance-tail')!;
      const c = cell.getBoundingClientRect();
      const t = tail.getBoundingClientRect();
      return {
        text: cell.textContent ?? '',
        tail: tail.textContent ?? '',
        tailShown: t.width > 0 && t.left >= c.left && t.right <= c.right + 0.5,
        title: (cell as HTMLElement).title,
      };
    });
  }

  /** The instance names of the rows in view whose head is cut (an ellipsis shows), with the widths. */
  async function cutNames(): Promise<string[]> {
    return table
      .locator('.rollout-row[data-id] .instance-head')
      .evaluateAll((heads) => heads.filter((h) => h.scrollWidth > h.clientWidth).map((h) => `${h.parentElement!.title} (${h.scrollWidth} > ${h.clientWidth})`));
  }

  thirdParty.test('reads at a glance in a narrow window with a recipe, in the dark, light and high-contrast themes', async () => {
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1000, height: 800 });
    try {
      for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
        await showFolder(demoRun, theme);
        await waitForCount('15 rollouts');
        await pick('#recipe', /deepswe v1/);
        await table.locator('#recipe-stats').waitFor({ timeout: 30_000 });
        const w101 = `attempt_1/${W101}/${W101}.traj`;
        const w202 = `attempt_1/${W202}/${W202}.traj`;
        await table.locator(`.rollout-row[data-id="${w202}"] [data-column="recipe-reward"]`).waitFor({ timeout: 10_000 });
        await page.screenshot({ path: path.join(out!, `rollouts-narrow-${theme}.png`) });
        // 101 and 202 read apart: the end of each name is in view, the whole name is the cell's.
        for (const [id, name, tail] of [
          [w101, W101, '-101'],
          [w202, W202, '-202'],
        ] as const)
          assert.deepEqual(await instanceCell(id), { text: name, tail, tailShown: true, title: name }, `${theme}: ${name}`);
        assert.deepEqual(await headerProblems(), [], `${theme}: every header reads whole in its own column`);
        // pass@k says how many groups each k covers: pass@4 has only the two groups of four graded attempts.
        const passAt = (k: number) => table.locator('#stats span', { hasText: new RegExp(`^pass@${k} `) });
        assert.equal(await passAt(3).textContent(), 'pass@3 75.0%', `${theme}: pass@3 covers all four groups`);
        assert.equal(await passAt(4).textContent(), 'pass@4 50.0% (2 of 4 groups)');
        const tip = await passAt(4).getAttribute('title');
        assert.equal(tip, 'mean pass@4 over the 2 groups with at least 4 graded attempts (of 4 groups)');
        // The recipe's columns are there, sideways, with the head in step with the rows.
        await table.locator('#viewport').evaluate((v) => (v.scrollLeft = v.scrollWidth));
        await table.waitForFunction(() => {
          const rows = document.getElementById('viewport')!;
          return rows.scrollLeft > 0 && Math.abs(document.getElementById('table-head-scroll')!.scrollLeft - rows.scrollLeft) < 1;
        });
        const [head, cell] = await Promise.all([
          table.locator('.table-head [data-column="mask"]').evaluate((e) => e.getBoundingClientRect().left),
          table.locator(`.rollout-row[data-id="${w202}"] [data-column="mask"]`).evaluate((e) => e.getBoundingClientRect().left),
        ]);
        // Within the row's 1px border.
        assert.ok(Math.abs(head - cell) < 2, `${theme}: the Mask header (${head}) sits over its cells (${cell})`);
        assert.deepEqual(await headerProblems(), [], `${theme}: scrolled, every header reads whole`);
      }
    } finally {
      if (size) await page.setViewportSize(size);
    }
  });

  thirdParty.test('at 1400 px with the sidebar closed every name reads whole; a recipe says which columns it hides; counts follow the filter', async () => {
    const size = page.viewportSize();
    await page.setViewportSize({ width: 1400, height: 900 });
    try {
      await showFolder(demoRun);
      await runCommand(page, 'View: Close Primary Side Bar');
      await page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 10_000 });
      await waitForCount('15 rollouts');
      await table.locator('.rollout-row[data-index="14"][data-id]').waitFor({ timeout: 10_000 });
      assert.equal(await table.locator('#hidden-columns').isVisible(), false, 'no recipe, no column hidden');
      assert.equal(await table.locator('.table-head [data-column="tokens"]').isVisible(), true);
      await pick('#recipe', /deepswe v1/);
      await table.locator('#recipe-stats', { hasText: /^deepswe v1: / }).waitFor({ timeout: 30_000 });
      await table.locator('.rollout-row[data-index="14"][data-id] [data-column="recipe-reward"]').waitFor({ timeout: 10_000 });
      await page.screenshot({ path: path.join(out!, 'rollouts-1400.png') });
      assert.deepEqual(await cutNames(), [], 'no instance name is cut at 1400 px');
      for (const name of await table
        .locator('.rollout-row[data-id] [data-column="instance"]')
        .evaluateAll((cells) => cells.map((c) => [c.textContent, (c as HTMLElement).title])))
        assert.equal(name[1], name[0], 'the full name on hover');
      // Tokens, cost and duration make way for the recipe's columns, and the table says so.
      assert.equal(await table.locator('.table-head [data-column="tokens"]').isVisible(), false);
      assert.equal(await table.locator('#hidden-columns').textContent(), " 3 columns hidden by the recipe: Tokens, Cost, Duration (a row's details keep them)");
      assert.equal(await table.locator('#hidden-columns').isVisible(), true);
      // The identical patch graded both ways, flagged in the core's words with the rollouts named, and on each row it names.
      assert.deepEqual(await table.locator('#grading-conflicts li').allTextContents(), [
        ` ${G7}: identical patch graded both ways: resolved attempt_1/${G7}/${G7}.traj; not resolved attempt_4/deepswe.jsonl:3`,
        ` ${W101}: identical patch graded both ways: resolved attempt_1/${W101}/${W101}.traj, attempt_4/deepswe.jsonl:1; not resolved attempt_2/${W101}/${W101}.traj`,
      ]);
      const flagged = await table
        .locator('.rollout-row[data-id] [data-column="resolved"][data-conflict]')
        .evaluateAll((cells) => cells.map((c) => [c.closest<HTMLElement>('.rollout-row')!.dataset.id, c.textContent, (c as HTMLElement).title]));
      const w101Line = `identical patch graded both ways: resolved attempt_1/${W101}/${W101}.traj, attempt_4/deepswe.jsonl:1; not resolved attempt_2/${W101}/${W101}.traj`;
      const g7Line = `identical patch graded both ways: resolved attempt_1/${G7}/${G7}.traj; not resolved attempt_4/deepswe.jsonl:3`;
      assert.deepEqual(
        flagged.sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
        [
          [`attempt_1/${G7}/${G7}.traj`, 'yes', g7Line],
          [`attempt_1/${W101}/${W101}.traj`, 'yes', w101Line],
          [`attempt_2/${W101}/${W101}.traj`, 'no', w101Line],
          ['attempt_4/deepswe.jsonl:1', 'yes', w101Line],
          ['attempt_4/deepswe.jsonl:3', 'no', g7Line],
        ],
      );
      await table.locator('#grading-conflicts').screenshot({ path: path.join(out!, 'rollouts-grading-conflicts.png') });
      // With a filter on, the recipe's line and the statistics count the rows shown; the conflicts are those of their groups.
      await filter(`instance=${W101}`);
      await waitForCount('4 of 15 rollouts');
      await table.locator('#recipe-stats', { hasText: /^deepswe v1, 4 of 15 rollouts: / }).waitFor({ timeout: 30_000 });
      const counts = /^deepswe v1, 4 of 15 rollouts: (\d+) scored, (\d+) masked.*, (\d+) not scored; \d+ of 1 groups give a gradient$/.exec(
        (await table.locator('#recipe-stats').textContent()) ?? '',
      );
      assert.ok(counts, await table.locator('#recipe-stats').textContent().then(String));
      assert.equal(Number(counts[1]) + Number(counts[2]) + Number(counts[3]), 4, 'the four rollouts shown, each counted once');
      assert.match((await table.locator('#stats').textContent()) ?? '', /^instances 1solve rate /);
      assert.deepEqual(await table.locator('#grading-conflicts li').allTextContents(), [` ${W101}: ${w101Line}`]);
      await filter('');
      await waitForCount('15 rollouts');
    } finally {
      if (size) await page.setViewportSize(size);
    }
  });

  thirdParty.test('attempts count from 1 in every format; filters take what the columns show; no key typed after Enter is lost', async () => {
    await showFolder(demoRun);
    await filter(`instance=${S3}`);
    await waitForCount('3 of 15 rollouts');
    await table.locator('.rollout-row[data-index="2"][data-id]').waitFor({ timeout: 10_000 });
    assert.deepEqual(await cells('attempt'), ['1', '2', '3'], "rLLM's episodes :0 to :2 are attempts 1 to 3");
    assert.deepEqual(await cells('format'), ['rllm', 'rllm', 'rllm']);
    await filter('resolved=no');
    await waitForCount('9 of 15 rollouts');
    await table.locator('.rollout-row[data-index="8"][data-id]').waitFor({ timeout: 10_000 });
    assert.equal(await table.locator('#filter-error').isVisible(), false);
    assert.deepEqual([...new Set(await cells('resolved'))], ['no']);
    await filter('resolved=—');
    await waitForCount('1 of 15 rollouts');
    // A person presses Enter and types on: every key stays in the box, and the next Enter applies them all.
    const input = table.locator('#filter input');
    await input.fill('instance~widgets');
    await input.press('Enter');
    await page.keyboard.type(' and resolved=yes', { delay: 40 });
    await waitForCount('8 of 15 rollouts');
    assert.equal(await input.inputValue(), 'instance~widgets and resolved=yes');
    await page.keyboard.press('Enter');
    await waitForCount('2 of 15 rollouts');
    assert.equal(await input.inputValue(), 'instance~widgets and resolved=yes');
  });

  thirdParty.test("the Reward Breakdown opens on the table's recipe", async () => {
    await pick('#recipe', /deepswe v1/);
    // The filter of the test before is on: the recipe's line counts its two rows.
    await table.locator('#recipe-stats', { hasText: /^deepswe v1, 2 of 15 rollouts: / }).waitFor({ timeout: 30_000 });
    await filter(`instance=${W101} and attempt=2`);
    await waitForCount('1 of \\d+ rollouts');
    await table.locator('.rollout-row[data-index="0"][data-id]').click();
    await table.locator('#details [data-action="reward"]').click();
    const reward = await webviewFrame(page, '#reward-title', 60_000);
    await reward.locator('#recipe-source').waitFor({ timeout: 30_000 });
    assert.equal(await reward.locator('#reward-recipe').evaluate((e) => (e as HTMLSelectElement).value), 'deepswe');
    assert.equal(await reward.locator('#reward-title').textContent(), `Reward: ${W101} #2`);
    await page.screenshot({ path: path.join(out!, 'rollouts-reward-recipe.png') });
  });
});
