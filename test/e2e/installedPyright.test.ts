import '../helpers/families';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { toCanonicalJson } from '../../extension/core/trajectory/canonicalExport';
import { TrajectorySchema } from '../../extension/core/trajectory/model';
import { DEMO_MODEL, demoReply } from '../../scripts/demo/ledgerDemo';
import { checkSetupOnInstalled, sessionContainers, stopSessionLeavingNoContainer } from '../helpers/sessionE2e';
import { launchBrowser, webviewFrame } from '../helpers/browser';
import { openFileInWebview, runCommand, typeInQuickInput } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
/** The suites run from the repository's root (scripts/run-vscode-tests.mjs). */
const repoRoot = process.cwd();

const RECORDING = 'pyright-navigation.traj.json';
const row = (page: Page, text: RegExp) => page.locator('.monaco-list-row', { hasText: text });
/** Text as the workbench draws it: no-break spaces for spaces. */
const plain = (text: string | null | undefined) => (text ?? '').replace(/\u00a0/g, ' ');

/** The demo's task starts at its base commit (before the fix), which the replay checks out: its files, not HEAD's. */
const demoBase = (JSON.parse(readFileSync(path.join(repoRoot, 'demo/trajectories/ledger-allocate.canonical.json'), 'utf8')) as { task: { baseCommit: string } })
  .task.baseCommit;

/** `rel` as the sample repository `repo` holds it at the demo's base commit. */
const atBase = (repo: string, rel: string) => execFileSync('git', ['-C', repo, 'show', `${demoBase}:${rel}`], { encoding: 'utf8' });

/** 1-based number of the first line of `rel` (at the demo's base commit) that holds `text`. */
function lineOf(repo: string, rel: string, text: string): number {
  const index = atBase(repo, rel)
    .split('\n')
    .findIndex((l) => l.includes(text));
  assert.ok(index >= 0, `${rel} has no line with ${text}`);
  return index + 1;
}

/**
 * The demo's repository (as `npm start` lays it out) navigated with Pyright by the agent's tools:
 * a SWE-agent recording with the lsp bundle, whose observations were not recorded, so the replay
 * shows what Pyright answers in the container.
 */
function writeNavigationRecording(file: string, use: number, classLine: number): void {
  const demo = JSON.parse(readFileSync(path.join(repoRoot, 'demo/trajectories/ledger-allocate.canonical.json'), 'utf8')) as {
    task: unknown;
    meta: { toolBundles: string[] } & Record<string, unknown>;
  };
  const actions = [
    `goto_definition tests/test_money.py ${use} Money`,
    `hover tests/test_money.py ${use} Money`,
    `find_references ledger/money.py ${classLine} Money`,
  ];
  const trajectory = TrajectorySchema.parse({
    format: 'canonical',
    task: demo.task,
    steps: actions.map((raw, index) => ({ index, thought: `Step ${index + 1}.`, action: { raw, tool: null, args: {} }, observation: '(not recorded)' })),
    outcome: {},
    meta: { ...demo.meta, id: 'e2e:pyright-navigation', toolBundles: [...demo.meta.toolBundles, 'lsp'] },
  });
  writeFileSync(file, toCanonicalJson(trajectory));
}

/** Puts the cursor of the active editor on line `line`, column `column` (1-based), as Go to Line/Column does. */
async function goToPosition(page: Page, line: number, column: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    if (await typeInQuickInput(page, 'Control+G', `:${line}:${column}`)) {
      await page.keyboard.press('Enter');
      const at = page.locator('.statusbar-item', { hasText: `Ln ${line}, Col ${column}` });
      if (
        await at.waitFor({ timeout: 5_000 }).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    await page.keyboard.press('Escape');
    if (attempt >= 5) throw new Error(`the cursor never reached ${line}:${column}`);
  }
}

/**
 * Runs an editor command until `answered` shows: the language client starts with the first
 * container Python file opened, and Pyright answers once it has read the repository.
 */
async function untilAnswered(page: Page, title: string, answered: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 1; attempt <= 30; attempt++) {
    await runCommand(page, title);
    for (let wait = 0; wait < 10; wait++) {
      if (await answered()) return;
      await page.waitForTimeout(500);
    }
    await page.keyboard.press('Escape');
  }
  throw new Error(`${title}: ${what} never showed`);
}

describe('the installed extension (the .vsix in code-server) carries Pyright', () => {
  let home: string;
  let policy: PolicyServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let sampleRepo: string;
  let use: number;
  let classLine: number;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    home = mkdtempSync(path.join(tmpdir(), 'swe-workbench-installed-pyright-'));
    policy = await new PolicyServer((request) => demoReply(request), { models: [DEMO_MODEL] }).listen();
    // The demo as `npm start` lays it out (the same helper, run from source).
    const workspaceFile = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--eval',
        "import('./test/helpers/demoWorkspace.ts').then((m) => (m.layOutDemoWorkspace ?? m.default.layOutDemoWorkspace)(process.argv[1], process.argv[2])).then((f) => console.log(f))",
        home,
        policy.url,
      ],
      { cwd: repoRoot, encoding: 'utf8' },
    ).trim();
    sampleRepo = path.join(path.dirname(workspaceFile), 'sample-repo');
    use = lineOf(sampleRepo, 'tests/test_money.py', 'return Money(');
    classLine = lineOf(sampleRepo, 'ledger/money.py', 'class Money');
    writeNavigationRecording(path.join(path.dirname(workspaceFile), 'workbench/trajectories', RECORDING), use, classLine);
    browser = await launchBrowser();
    page = browser.page;
    await page.goto(`${url}/?workspace=${encodeURIComponent(workspaceFile)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  });

  after(async () => {
    await page?.screenshot({ path: path.join(out!, 'installed-pyright-last.png') }).catch(() => undefined);
    // Stop Session keeps the container for fork snapshots; Discard then removes it. Anything left
    // is a leak: named, removed so the suite's later files (which count containers) are not
    // blamed for it, and failed.
    const stopped = page
      ? await stopSessionLeavingNoContainer(page).then(
          () => undefined,
          (error: unknown) => error,
        )
      : undefined;
    const left = sessionContainers();
    if (left.length > 0) execFileSync('docker', ['rm', '-f', ...left], { stdio: 'ignore' });
    await browser?.close();
    await policy?.close();
    if (home) rmSync(home, { recursive: true, force: true });
    if (stopped) throw stopped;
  });

  test("Check Setup says ready, with the Pyright the extension carries, and no repository's node_modules in reach", async () => {
    await checkSetupOnInstalled(page, settingsFile!, path.join(out!, 'installed-pyright-check-setup.png'));
  });

  test("the agent's tools: goto_definition, hover and find_references answer in the replay's container", async () => {
    await openFileInWebview(page, RECORDING, '#step-title');
    await page.locator('.editor-actions .action-label[aria-label*="Replay in Container"]').first().click();
    const done = row(page, /^3\s+find_references .*exit \S+ · [\d.]+ m?s · (matched|diverged)/);
    await done.waitFor({ timeout: 300_000 });
    const rows = (await row(page, /exit \S+ · [\d.]+ m?s · (matched|diverged)/).allTextContents()).map(plain);
    assert.equal(rows.length, 3, rows.join(' | '));
    for (const r of rows) assert.match(r, /exit 0 · [\d.]+ m?s · diverged/, r);
    await page.screenshot({ path: path.join(out!, 'installed-pyright-agent-session.png') });

    const replayed = async (n: number, tool: string): Promise<string> => {
      await row(page, new RegExp(`^${n}\\s+${tool} `)).click();
      const view: Frame = await webviewFrame(page, '#replay-verdict');
      await view.locator('#replay-title', { hasText: `Step ${n} ·` }).waitFor({ timeout: 15_000 });
      return (await view.locator('#replay-replayed pre').textContent()) ?? '';
    };
    const definition = await replayed(1, 'goto_definition');
    assert.equal(definition.split('\n')[0], `Definition of 'Money' (tests/test_money.py:${use}):`, definition);
    assert.match(definition, new RegExp(`^ledger/money\\.py:${classLine}: class Money:$`, 'm'), definition);
    const hover = await replayed(2, 'hover');
    assert.match(hover, new RegExp(`^tests/test_money\\.py:${use} 'Money':\\n`), hover);
    assert.match(hover, /class Money/, hover);
    const references = await replayed(3, 'find_references');
    assert.match(references.split('\n')[0]!, new RegExp(`^\\d+ references to 'Money' \\(ledger/money\\.py:${classLine}\\) in \\d+ files:$`), references);
    assert.match(references, new RegExp(`^tests/test_money\\.py:${use}: `, 'm'), references);
    await page.screenshot({ path: path.join(out!, 'installed-pyright-agent-replayed.png') });
  });

  test("the person's: hover on the container's Python file names the class", async () => {
    // The replay's container (finished, not stopped) as a folder of the workspace.
    await runCommand(page, 'SWE Workbench: Add Container Repository to Workspace');
    await runCommand(page, 'View: Show Explorer');
    const rows = page.locator('.explorer-folders-view .monaco-list-row');
    const container = rows.filter({ hasText: /^\/repo \(container / });
    await container.waitFor({ timeout: 60_000 });
    if ((await container.getAttribute('aria-expanded')) !== 'true') await container.click();
    /** Clicks the row named `name`, the first after the container's root at `level`: the sample repository has the same names. */
    const openBelowContainer = async (level: number, name: string) => {
      const index = await rows.evaluateAll(
        (all, [level, name]) => {
          const listed = all.map((r) => ({
            index: Number(r.getAttribute('data-index')),
            level: r.getAttribute('aria-level'),
            text: (r.textContent ?? '').trim(),
          }));
          const root = listed.find((r) => r.level === '1' && r.text.startsWith('/repo (container '));
          return root ? listed.find((r) => r.index > root.index && r.level === String(level) && r.text === name)?.index : undefined;
        },
        [level, name] as const,
      );
      if (index === undefined) return false;
      await rows.and(page.locator(`[data-index="${index}"]`)).click();
      return true;
    };
    for (const [level, name] of [
      [2, 'tests'],
      [3, 'test_money.py'],
    ] as const) {
      for (let attempt = 0; !(await openBelowContainer(level, name)); attempt++) {
        if (attempt >= 60) throw new Error(`the container's ${name} never showed in the Explorer`);
        await page.waitForTimeout(500);
      }
    }
    await page.locator('.tab.active', { hasText: 'test_money.py' }).waitFor({ timeout: 30_000 });
    // The container's file, not the sample repository's of the same name.
    await page
      .locator('.breadcrumbs-control', { hasText: /\/repo \(container / })
      .first()
      .waitFor({ timeout: 15_000 });
    const column = atBase(sampleRepo, 'tests/test_money.py').split('\n')[use - 1]!.indexOf('Money') + 2;

    await goToPosition(page, use, column);
    const hoverBox = page.locator('.monaco-hover:visible', { hasText: /class Money/ });
    await untilAnswered(page, 'Show or Focus Hover', () => hoverBox.isVisible(), "a hover naming 'class Money'");
    await page.screenshot({ path: path.join(out!, 'installed-pyright-person-hover.png') });
    await page.keyboard.press('Escape');
  });
});
