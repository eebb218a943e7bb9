import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { CHECK_NAMES } from '../../extension/core/bugs/consistencyChecks';
import { launchBrowser, launchBrowserOn } from '../helpers/browser';
import { BASE_IMAGE } from '../helpers/bugSandboxes';
import { copySampleBug, sampleRepoAtHead } from '../helpers/bugWorkspace';
import { THEMES, runCommand, setTheme, waitForExtension } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const VALID = 'valid-allocate-and-close';
const INVALID = 'weakening-does-not-hide';
const FILES = ['test_script.sh', 'test_files.txt', 'test_parser.py', 'bug_inject.diff', 'test_weaken.diff'];
/** The tests the sample bug breaks: passing on the original code, failing with the bug. */
const BROKEN = [
  'tests/test_journal.py::test_close_period_zeroes_income_and_expenses',
  'tests/test_money.py::test_allocate_keeps_every_cent',
  'tests/test_money.py::test_allocate_negative_amount_keeps_every_cent',
];
const RUN_TIMEOUT = 10 * 60_000;
const VALID_SUMMARY = `Bug ${VALID}: all 7 checks pass.`;
const INVALID_SUMMARY = `Bug ${INVALID}: 1 of 7 checks fail (weakening-validity).`;

/** Containers the Bugs view started (BUG_CONTAINER_LABEL), running or not. */
function bugContainers(): string[] {
  return execFileSync('docker', ['ps', '-aq', '--filter', 'label=swe-workbench.vscode'], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('bug checks from the Bugs view and the Testing view', () => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let repo: string;

  const bugsView = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Bugs/ }) });
  // The Testing container holds one view: it shows no pane header of its own.
  const testingView = () => page.locator('.part.sidebar');
  /** A tree row by its label: the whole label, so `bug-scope` never matches `bug-scope-2`. */
  const row = (view: Locator, label: string) =>
    view.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${escape(label)}$`) }) }).first();

  /** Opens the SWE Workbench container with only the Bugs view expanded, in a sidebar wide enough for the verdicts. */
  async function openBugsView(): Promise<Locator> {
    await waitForExtension(page);
    await page.locator('.activitybar .action-label[aria-label^="SWE Workbench"]').click();
    await runCommand(page, 'SWE Workbench: Focus on Bugs View');
    for (const other of ['Rollouts', 'Session', 'Branches']) {
      const header = page.locator('.pane-header', { hasText: new RegExp(`^${other}`) });
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    }
    await widenSidebar();
    const view = bugsView();
    await row(view, VALID).waitFor({ timeout: 30_000 });
    return view;
  }

  async function widenSidebar(): Promise<void> {
    const box = await page.locator('.part.sidebar').boundingBox();
    if (!box || box.width >= 600) return;
    await page.mouse.move(box.x + box.width + 1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 640, box.y + box.height / 2, { steps: 8 });
    await page.mouse.up();
  }

  /** Expands a row and waits for its first child to show: the children arrive after the twistie turns. */
  async function expandRow(view: Locator, item: Locator): Promise<void> {
    if ((await item.getAttribute('aria-expanded')) !== 'true') await item.locator('.monaco-tl-twistie').click();
    const [index, level] = await Promise.all([item.getAttribute('data-index'), item.getAttribute('aria-level')]);
    await view.locator(`.monaco-list-row[data-index="${Number(index) + 1}"][aria-level="${Number(level) + 1}"]`).waitFor({ timeout: 15_000 });
  }

  const expand = (view: Locator, label: string) => expandRow(view, row(view, label));

  /** The rows one level under an expanded item, in view order, as "label description". */
  async function rowsUnder(view: Locator, label: string): Promise<string[]> {
    const rows = await view.locator('.monaco-list-row').evaluateAll((elements) =>
      elements.map((e) => ({
        index: Number(e.getAttribute('data-index')),
        level: Number(e.getAttribute('aria-level')),
        text: [e.querySelector('.label-name')?.textContent, e.querySelector('.label-description')?.textContent].filter(Boolean).join(' '),
      })),
    );
    rows.sort((a, b) => a.index - b.index);
    const start = rows.findIndex((r) => r.text === label || r.text.startsWith(`${label} `));
    assert.ok(start >= 0, `no row ${label} in ${rows.map((r) => r.text).join(' | ')}`);
    const level = rows[start]!.level;
    const end = rows.findIndex((r, i) => i > start && r.level <= level);
    return rows
      .slice(start + 1, end < 0 ? undefined : end)
      .filter((r) => r.level === level + 1)
      .map((r) => r.text);
  }

  /**
   * Runs the checks of `bug` from its row's inline action; waits for the summary the run ends
   * with (the row may still show the verdict of the run before), then for the row's verdict.
   */
  async function runChecksFromRow(view: Locator, bug: string, summary: string, verdict: RegExp): Promise<void> {
    const item = row(view, bug);
    await item.hover();
    await item.locator('.action-label[aria-label="Run Bug Consistency Checks"]').click();
    await page.locator('.notification-toast', { hasText: `Checking bug ${bug}` }).waitFor({ timeout: 30_000 });
    await page.locator('.notification-toast', { hasText: summary }).waitFor({ timeout: RUN_TIMEOUT });
    await item.locator('.label-description', { hasText: verdict }).waitFor({ timeout: 30_000 });
  }

  /** Opens the Testing view's explorer, with the bugs listed. */
  async function openTestingView(): Promise<Locator> {
    await runCommand(page, 'Testing: Focus on Test Explorer View');
    const view = testingView();
    await testRow(view, VALID).waitFor({ timeout: 30_000 });
    return view;
  }

  /** A row of the Test Explorer, by the start of its label and, when given, its state as the row announces it. */
  const testRow = (view: Locator, label: string, state?: 'Passed' | 'Failed') =>
    view.locator(`.monaco-list-row[aria-label^=${JSON.stringify(label)}]${state ? `[aria-label*="(${state})"]` : ''}`).first();

  const expandTest = (view: Locator, label: string) => expandRow(view, testRow(view, label));

  async function collapseTest(view: Locator, label: string): Promise<void> {
    const item = testRow(view, label);
    if ((await item.getAttribute('aria-expanded')) === 'true') await item.locator('.monaco-tl-twistie').click();
  }

  /** Waits for a row; failing, says which rows the view showed (their accessible names). */
  async function shown(view: Locator, item: Locator, what: string): Promise<void> {
    await item.waitFor({ timeout: 15_000 }).catch(async (error: unknown) => {
      const labels = await view.locator('.monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label')));
      throw new Error(`no row ${what}; the rows: ${labels.join(' | ')}`, { cause: error });
    });
  }

  async function collapse(view: Locator, label: string): Promise<void> {
    const item = row(view, label);
    if ((await item.getAttribute('aria-expanded')) === 'true') await item.locator('.monaco-tl-twistie').click();
  }

  /** Clicks a check's row and waits for its evidence document to show each of `lines`. */
  async function showsEvidence(view: Locator, check: string, lines: string[]): Promise<void> {
    await row(view, check).click();
    await page.locator('.tab.active', { hasText: `${check}.md` }).waitFor({ timeout: 15_000 });
    const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines');
    for (const line of lines) {
      await editor
        .filter({ hasText: line })
        .waitFor({ timeout: 15_000 })
        .catch(async (error: unknown) => {
          await page.screenshot({ path: path.join(out!, `bugs-evidence-${check}-failed.png`) });
          throw new Error(`the evidence of ${check} shows no line '${line}'; it shows: ${await editor.first().innerText()}`, { cause: error });
        });
    }
  }

  async function waitUntilNoContainer(): Promise<void> {
    for (let attempt = 0; bugContainers().length > 0; attempt++) {
      if (attempt > 60) assert.fail(`containers left behind: ${bugContainers().join(', ')}`);
      await page.waitForTimeout(1000);
    }
  }

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    repo = await sampleRepoAtHead(path.join(path.dirname(workspace), 'bug-authoring'));
    await copySampleBug(VALID, path.join(repo, 'bugs', VALID));
    await copySampleBug(INVALID, path.join(repo, 'bugs', INVALID));
    mkdirSync(path.join(repo, '.vscode'));
    writeFileSync(path.join(repo, '.vscode/settings.json'), JSON.stringify({ 'sweWorkbench.docker.image': BASE_IMAGE }));
    browser = await launchBrowserOn(url, repo);
    page = browser.page;
  });

  after(async () => {
    // What the window showed last: the first thing to look at when a step above timed out.
    await page?.screenshot({ path: path.join(out!, 'bugs-last.png') }).catch(() => undefined);
    await browser?.close();
  });

  test('the Bugs view lists the sample bug with its five files; a file opens in an editor', async () => {
    const view = await openBugsView();
    await expand(view, VALID);
    assert.deepEqual(
      (await rowsUnder(view, VALID)).map((r) => r.split(' ')[0]),
      FILES,
    );
    await row(view, 'bug_inject.diff').click();
    await page.locator('.tab.active', { hasText: 'bug_inject.diff' }).waitFor({ timeout: 15_000 });
    await page.locator('.editor-instance .view-lines', { hasText: 'diff --git a/ledger/journal.py b/ledger/journal.py' }).waitFor({ timeout: 15_000 });
  });

  test('a run cancelled from its progress notification says so and leaves no container', async () => {
    const view = await openBugsView();
    const item = row(view, VALID);
    await item.hover();
    await item.locator('.action-label[aria-label="Run Bug Consistency Checks"]').click();
    const progress = page.locator('.notification-toast', { hasText: `Checking bug ${VALID}` });
    await progress.waitFor({ timeout: 30_000 });
    await progress.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await item.locator('.label-description', { hasText: /^checks stopped after [0-6] of 7: cancelled$/ }).waitFor({ timeout: 60_000 });
    await page.locator('.notification-toast', { hasText: `run the checks of ${VALID}: cancelled` }).waitFor({ timeout: 30_000 });
    await waitUntilNoContainer();
  });

  test('Run Bug Consistency Checks from the palette: all seven pass, each with its evidence one click away', async () => {
    const view = await openBugsView();
    await runCommand(page, 'SWE Workbench: Run Bug Consistency Checks');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: VALID }).first().click();
    await page.locator('.notification-toast', { hasText: `Checking bug ${VALID}` }).waitFor({ timeout: 30_000 });
    await row(view, VALID)
      .locator('.label-description', { hasText: /^7 of 7 checks pass$/ })
      .waitFor({ timeout: RUN_TIMEOUT });
    await page.locator('.notification-toast', { hasText: VALID_SUMMARY }).waitFor({ timeout: 30_000 });

    await expand(view, VALID);
    const checks = (await rowsUnder(view, VALID)).slice(FILES.length);
    assert.deepEqual(
      checks.map((c) => c.split(' ')[0]),
      [...CHECK_NAMES],
    );
    assert.equal(checks[1], "parser-validity parsed 57 tests from the original code's run");
    assert.equal(checks[4], 'bug-validity 3 tests break with the bug, 54 still pass');
    for (const name of CHECK_NAMES) assert.equal(await row(view, name).locator('.codicon-pass').count(), 1, `${name} shows as passed`);

    await showsEvidence(view, 'bug-validity', ['### bug-validity: passed', '**Failing** (3)', ...BROKEN]);
    await waitUntilNoContainer();
  });

  test('the Testing view: each check an item, and the tests the bug breaks passing on the original code, failing with the bug', async () => {
    const testing = await openTestingView();
    await expandTest(testing, VALID);
    for (const name of CHECK_NAMES) await testRow(testing, name, 'Passed').waitFor({ timeout: 15_000 });
    await expandTest(testing, 'parser-validity');
    for (const id of BROKEN) await shown(testing, testRow(testing, `${id}`, 'Passed'), `${id} passing on the original code`);
    await collapseTest(testing, 'parser-validity');
    await expandTest(testing, 'bug-validity');
    for (const id of BROKEN) await shown(testing, testRow(testing, `${id} (fails with the bug)`, 'Passed'), `${id} failing with the bug`);
    await collapseTest(testing, 'bug-validity');
  });

  test('a bug whose weakening still exposes it: the failing check and its evidence in both views', async () => {
    const view = await openBugsView();
    await collapse(view, VALID);
    await runChecksFromRow(view, INVALID, INVALID_SUMMARY, /^6 of 7 checks pass$/);
    await expand(view, INVALID);
    const checks = (await rowsUnder(view, INVALID)).slice(FILES.length);
    assert.deepEqual(
      checks.filter((c) => c.startsWith('weakening-validity')),
      [`weakening-validity the weakened suite still exposes the bug: ${BROKEN[0]}`],
    );
    const failing = view.locator('.monaco-list-row', { has: page.locator('.codicon-error') });
    assert.deepEqual(await failing.locator('.label-name').allTextContents(), [INVALID, 'weakening-validity']);
    await showsEvidence(view, 'weakening-validity', [
      '### weakening-validity: failed',
      `the weakened suite still exposes the bug: ${BROKEN[0]}`,
      '**Failing** (1)',
    ]);
    await waitUntilNoContainer();

    const testing = await openTestingView();
    await collapseTest(testing, VALID);
    await expandTest(testing, INVALID);
    await testRow(testing, 'weakening-validity', 'Failed').waitFor({ timeout: 15_000 });
    await testRow(testing, 'bug-validity', 'Passed').waitFor({ timeout: 15_000 });
  });

  test('the Bugs view and the Testing view with results, in the dark, light and high-contrast themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await runCommand(page, 'View: Close All Editors');
      const view = await openBugsView();
      // The verdicts of the runs before the reload are kept in the workspace's state.
      await row(view, VALID)
        .locator('.label-description', { hasText: /^7 of 7 checks pass$/ })
        .waitFor({ timeout: 30_000 });
      await row(view, INVALID)
        .locator('.label-description', { hasText: /^6 of 7 checks pass$/ })
        .waitFor({ timeout: 30_000 });
      // Run again, so the Testing view shows this window's results rather than outdated ones.
      await runChecksFromRow(view, VALID, VALID_SUMMARY, /^7 of 7 checks pass$/);
      await runChecksFromRow(view, INVALID, INVALID_SUMMARY, /^6 of 7 checks pass$/);
      await expand(view, VALID);
      await expand(view, INVALID);
      await row(view, 'weakening-validity').waitFor({ timeout: 15_000 });
      await page.screenshot({ path: path.join(out!, `bugs-${theme}.png`) });

      const testing = await openTestingView();
      await expandTest(testing, VALID);
      await expandTest(testing, 'bug-validity');
      await shown(testing, testRow(testing, `${BROKEN[1]} (fails with the bug)`, 'Passed'), `${BROKEN[1]} failing with the bug`);
      await page.screenshot({ path: path.join(out!, `bugs-testing-${theme}.png`) });
      await waitUntilNoContainer();
    }
  });
});
