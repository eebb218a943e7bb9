import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { sessionContainers, stopSessionLeavingNoContainer, writeShellRecording } from '../helpers/sessionE2e';
import { launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, openFileInWebview, runCommand, setTheme, typeInQuickInput, waitForExtension } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
/** The suites run from the repository's root (scripts/run-vscode-tests.mjs). */
const repoRoot = process.cwd();

type Theme = keyof typeof THEMES;
const themes = Object.keys(THEMES) as Theme[];

const FILE = 'replay-diverges.traj.json';
const NOTE = 'replay-note.txt';
/** What the workspace, copied into the container, gives for `cat replay-note.txt`. */
const NOTE_NOW = 'ledger balanced at 09:15:02\nreplayed total 99.99\nend of note\n';
/**
 * Three shell steps; the second's recorded output is a note the workspace no longer holds: a
 * pty's `\r\n` and another clock time (both forgiven by normalisers) and another total (not).
 */
const STEPS = [
  { raw: 'echo ready', observation: 'ready' },
  { raw: `cat ${NOTE}`, observation: 'ledger balanced at 12:03:44\r\nrecorded total 100.00\r\nend of note\r\n' },
  { raw: 'printf "%s\\n" done', observation: 'done' },
];

function writeRecording(dir: string): void {
  writeShellRecording(path.join(dir, FILE), STEPS);
  writeFileSync(path.join(dir, NOTE), NOTE_NOW);
}

/** A Session view row: `N  action` (the step's label, as the stepper's) then its description. */
const row = (page: Page, text: RegExp) => page.locator('.monaco-list-row', { hasText: text });

/**
 * Presses the open stepper's "Replay in Container" button and waits until step `last` is in the
 * Session view, which the replay reveals by itself (nothing here focuses it). Returns the step rows.
 */
async function replayFromStepper(page: Page, last: RegExp): Promise<string[]> {
  // The Explorer takes the side bar, so the Session view is hidden until the replay reveals it.
  await runCommand(page, 'View: Show Explorer');
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 10_000 });
  assert.equal(await row(page, /exit \S+ · [\d.]+ m?s · (matched|diverged)/).count(), 0, 'no step row shows before the replay');
  await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
  await row(page, last).waitFor({ timeout: 180_000 });
  return row(page, /exit \S+ · [\d.]+ m?s · (matched|diverged)/).allTextContents();
}

const texts = (frame: Frame, selector: string) => frame.locator(selector).allTextContents();

describe('a replayed step beside its recording', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    writeRecording(workspace);
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  after(async () => {
    await stopSessionLeavingNoContainer(page).catch(() => undefined);
    await browser?.close();
  });

  test('clicking the diverged row shows both observations, their diff and the normalisers; another row moves the same view', async () => {
    for (const theme of themes) {
      await setTheme(page, settingsFile!, theme);
      await openFileInWebview(page, FILE, '#step-title');
      const rows = await replayFromStepper(page, /^3\s+printf .*exit \S+ · [\d.]+ m?s · (matched|diverged)/);
      assert.equal(rows.length, 3, rows.join(' | '));
      assert.match(rows[0]!, /^1\s+echo ready.*exit 0 · [\d.]+ m?s · matched/, 'each row shows its exit code, its duration and matched/diverged');
      assert.match(rows[1]!, /^2\s+cat .*exit 0 · [\d.]+ m?s · diverged/);
      assert.match(rows[2]!, /^3\s+printf .*exit 0 · [\d.]+ m?s · matched/);

      await row(page, /^2\s+cat .*diverged/).click();
      const view = await webviewFrame(page, `body.${THEMES[theme].webviewClass} #replay-verdict`);
      assert.equal(await view.locator('#replay-title').textContent(), 'Step 2 · bash');
      assert.equal((await view.locator('#replay-verdict').textContent())?.trim(), 'diverged');
      assert.equal(await view.locator('#replay-action pre').textContent(), `cat ${NOTE}`);
      // Each side as it was, not normalised.
      assert.equal(await view.locator('#replay-recorded pre').textContent(), STEPS[1]!.observation);
      assert.equal((await view.locator('#replay-replayed pre').textContent())?.trimEnd(), NOTE_NOW.trimEnd());
      // The diff holds only what no normaliser forgave: the totals; the clock time and line ends are forgiven.
      assert.deepEqual(await texts(view, '.diff-line.recorded pre'), ['recorded total 100.00']);
      assert.deepEqual(await texts(view, '.diff-line.replayed pre'), ['replayed total 99.99']);
      assert.deepEqual(await texts(view, '.diff-line.context pre'), ['ledger balanced at <time>', 'end of note']);
      const changed = await view.locator('li.changed[data-normaliser]').evaluateAll((items) => items.map((i) => i.getAttribute('data-normaliser')));
      assert.ok(changed.includes('line-endings') && changed.includes('timings'), `normalisers marked as applied: ${changed.join(', ')}`);
      assert.ok((await texts(view, 'li.idle[data-normaliser] .name')).includes('pids'), 'the normalisers with nothing to forgive are named too');
      await page.screenshot({ path: path.join(out!, `replay-compare-${theme}.png`) });

      // The view follows the Session view: the first row moves it, no second view opens.
      await row(page, /^1\s+echo ready.*matched/).click();
      await view.locator('#replay-title', { hasText: 'Step 1 · bash' }).waitFor({ timeout: 10_000 });
      assert.equal((await view.locator('#replay-verdict').textContent())?.trim(), 'matched');
      assert.equal(await view.locator('#replay-recorded pre').textContent(), 'ready');
      await view.locator('#replay-no-diff').waitFor({ timeout: 5_000 });
      assert.equal(await page.locator('.tabs-container .tab', { hasText: 'Recorded ↔ Replayed' }).count(), 1);

      await stopSessionLeavingNoContainer(page);
    }
  });
});

describe("the demo's suggested trajectory in code-server", () => {
  const DEMO = 'ledger-allocate.swe-agent.traj';
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;
  let trajectory: string;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    // As `npm start` lays it out: the sample repository with its history (the replay checks out the recorded base commit),
    // and the trajectory beside it, not inside it (it would be copied into the container).
    const home = path.dirname(workspace);
    const repo = path.join(home, 'sample-repo');
    if (!existsSync(repo))
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--eval',
          "import('./test/helpers/sampleRepo.ts').then((m) => (m.materializeSampleRepo ?? m.default.materializeSampleRepo)(process.argv[1]))",
          repo,
        ],
        { cwd: repoRoot, stdio: 'inherit' },
      );
    mkdirSync(path.join(home, 'demo-trajectories'), { recursive: true });
    trajectory = path.join(home, 'demo-trajectories', DEMO);
    cpSync(path.join(repoRoot, 'demo/trajectories', DEMO), trajectory);
    browser = await launchBrowserOn(url, repo);
    page = browser.page;
  });

  after(async () => {
    await stopSessionLeavingNoContainer(page).catch(() => undefined);
    await browser?.close();
  });

  /** Opens a file outside the workspace by its absolute path through Quick Open. */
  async function openOutside(file: string): Promise<void> {
    await waitForExtension(page);
    for (let attempt = 1; ; attempt++) {
      // Quick Open may close under the typing or the click (focus taken by a notification or a
      // view coming up): then it is opened again, as when the row never showed.
      const typed = await typeInQuickInput(page, 'Control+P', file);
      const listed = page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(file) }).first();
      const clicked =
        typed &&
        (await listed.click({ timeout: 10_000 }).then(
          () => true,
          () => false,
        ));
      if (clicked) {
        await webviewFrame(page, '#step-title', 30_000);
        return;
      }
      await page.keyboard.press('Escape');
      if (attempt >= 5) throw new Error(`Quick Open never listed ${file}`);
    }
  }

  test('ledger-allocate.swe-agent.traj replays on the sample repository with every step matched', async () => {
    for (const theme of themes) {
      await setTheme(page, settingsFile!, theme);
      await openOutside(trajectory);
      const rows = await replayFromStepper(page, /6\s+submit.*(matched|diverged)/);
      assert.deepEqual(
        rows.map((r) => r.match(/(matched|diverged)/)?.[1]),
        ['matched', 'matched', 'matched', 'matched', 'matched', 'matched'],
        rows.join(' | '),
      );
      assert.match(rows[0]!, /^1\s+grep -n "def allocate" ledger\/money\.py/);
      await page.screenshot({ path: path.join(out!, `demo-replay-${theme}.png`) });
      await stopSessionLeavingNoContainer(page);
    }
  });
});
