import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { startPolicyServer, type PolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { toyDecode } from '../../scripts/demo/policy/toyTokenizer';
import { TrajectoryRecorder, writeTrajectoryFile } from '../../extension/core/session/trajectoryRecorder';
import type { Step } from '../../extension/core/trajectory/model';
import { launchBrowserOn, webviewFrame } from '../helpers/browser';
import { THEMES, openFileInWebview, quickOpen, runCommand, setTheme, waitForExtension } from '../helpers/workbench';
import { writeTokenReport } from '../../extension/core/rollouts/tokenMismatch';
import { thirdPartyFolder } from '../helpers/sharedFolder';

/** Harbor's Terminus-2 recording (ATIF v1.6) keeps token ids and logprobs, no token text. */
const thirdParty = thirdPartyFolder();

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;
const TEXT_FILE = 'tokens-live.traj.json';
const ATIF_FILE = 'tokens-terminus-2.trajectory.json';

/**
 * A live run's recording as the session writes it: step 1's tokens with their top alternatives
 * (`import` sure, ` os` and `sys` uncertain), step 2 without token data.
 */
async function writeTextRecording(file: string): Promise<void> {
  const bash = (command: string) => ({ raw: command, tool: 'bash', args: { command } });
  const lp = Math.log;
  const steps: Step[] = [
    {
      index: 0,
      thought: 'Look.',
      action: bash('python -c "import os"'),
      observation: '',
      exitCode: 0,
      tokens: { prompt: 6, completion: 3 },
      tokenIds: { prompt: [1, 2, 3, 4, 5, 6], completion: [10, 11, 12] },
      logprobs: [
        { token: 'import', logprob: lp(0.98), top: [{ token: 'import', logprob: lp(0.98) }] },
        {
          token: ' os',
          logprob: lp(0.4),
          top: [
            { token: ' os', logprob: lp(0.4) },
            { token: ' sys', logprob: lp(0.35) },
            { token: ' re', logprob: lp(0.2) },
          ],
        },
        {
          token: '\n',
          logprob: lp(0.05),
          top: [
            { token: ' ;', logprob: lp(0.3) },
            { token: '\n', logprob: lp(0.05) },
          ],
        },
      ],
    },
    { index: 1, thought: 'Done.', action: bash('echo done'), observation: 'done', exitCode: 0 },
  ];
  const recorder = new TrajectoryRecorder({ repo: 'ledger', repoPath: '/repo' });
  for (const step of steps) recorder.append(step);
  await writeTrajectoryFile(file, recorder.trajectory({ exitStatus: 'submitted' }));
}

describe('the token view in the stepper', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;
  let server: PolicyServer;
  let settingsBefore: string;
  let firstId: number;

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    await writeTextRecording(path.join(workspace, TEXT_FILE));
    const atif = thirdParty.path('harbor/golden/terminus_2/hello-world-context-summarization.trajectory.json');
    copyFileSync(atif, path.join(workspace, ATIF_FILE));
    firstId = (JSON.parse(readFileSync(atif, 'utf8')) as { steps: Array<{ metrics?: { completion_token_ids?: number[] } }> }).steps.find(
      (s) => s.metrics?.completion_token_ids,
    )!.metrics!.completion_token_ids![0]!;
    // The stand-in decodes the ids the file keeps: its /detokenize, as vLLM's.
    server = await startPolicyServer([]);
    settingsBefore = readFileSync(settingsFile, 'utf8');
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settingsBefore), 'sweWorkbench.policy.url': server.url }, null, 2));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  thirdParty.after(async () => {
    await browser?.close();
    await server?.close();
    if (settingsBefore !== undefined) writeFileSync(settingsFile!, settingsBefore);
  });

  async function openText(theme: keyof typeof THEMES): Promise<Frame> {
    await runCommand(page, 'View: Close All Editors');
    return openFileInWebview(page, TEXT_FILE, `body.${THEMES[theme].webviewClass} #token-run`);
  }

  thirdParty.test('tokens coloured by entropy or probability, their alternatives, and a step without tokens, in three themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      const stepper = await openText(theme).catch(async (error: unknown) => {
        await page.screenshot({ path: path.join(out!, `tokens-open-failed-${theme}.png`) });
        throw error;
      });
      assert.equal(
        await stepper.locator('#token-counts').textContent(),
        'Prompt: 6 tokens (counted from the recorded ids) · Completion: 3 tokens (counted from the recorded tokens)',
      );
      const tokens = stepper.locator('#token-run [data-position]');
      assert.deepEqual(await tokens.allTextContents(), ['import', ' os', '↵\n']);
      // By entropy (alternatives recorded): ` os` spreads 0.95 over three, `\n` less (a lower bound);
      // `import` has only itself recorded, so no entropy: unmeasured, not "certain".
      assert.deepEqual(await tokens.evaluateAll((spans) => spans.map((s) => s.className)), ['token unmeasured', 'token low', 'token low']);
      await stepper.locator('#token-run [data-position="1"]').click();
      await stepper.locator('#token-detail', { hasText: 'Token 2 of 3 · id 11 · p 0.400' }).waitFor({ timeout: 10_000 });
      assert.match((await stepper.locator('#token-detail').textContent()) ?? '', /text " os" · alternatives: " os" 0\.400, " sys" 0\.350, " re" 0\.200$/);
      await page.screenshot({ path: path.join(out!, `tokens-entropy-${theme}.png`) });
      // The keyboard picks the next token.
      await stepper.locator('#token-run').focus();
      await page.keyboard.press('ArrowRight');
      await stepper.locator('#token-detail', { hasText: 'Token 3 of 3 · id 12 · p 0.050' }).waitFor({ timeout: 10_000 });
      // By probability: `\n` (p 0.05) is marked strongly.
      await stepper.locator('#token-colour').click();
      await stepper.locator('#token-colour [role="option"]', { hasText: 'Colour by probability' }).click();
      await stepper.locator('#token-legend', { hasText: '2 below p = 0.5, 1 below p = 0.1' }).waitFor({ timeout: 10_000 });
      assert.deepEqual(await tokens.evaluateAll((spans) => spans.map((s) => s.className)), ['token', 'token low', 'token very-low']);
      const marked = await stepper.locator('#token-run [data-position="2"]').evaluate((e) => getComputedStyle(e).backgroundColor);
      const plain = await stepper.locator('#token-run [data-position="0"]').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(marked, plain, `${theme}: a marked token stands out`);
      await page.screenshot({ path: path.join(out!, `tokens-probability-${theme}.png`) });
      await stepper.locator('#timeline').focus();
      await page.keyboard.press('j');
      await stepper.locator('#token-none', { hasText: 'This step records no per-token data' }).waitFor({ timeout: 10_000 });
      assert.equal(await stepper.locator('#token-counts').textContent(), 'Prompt: unknown · Completion: unknown');
    }
  });

  thirdParty.test("an ATIF file's ids are decoded by the policy server's /detokenize", async () => {
    await runCommand(page, 'View: Close All Editors');
    await quickOpen(page, ATIF_FILE);
    await page.locator('.tab.active', { hasText: ATIF_FILE }).waitFor({ timeout: 15_000 });
    await runCommand(page, 'View: Reopen Editor With...');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'SWE Workbench Trajectory' }).first().click({ timeout: 15_000 });
    const stepper = await webviewFrame(page, '#token-run', 30_000);
    assert.match(
      (await stepper.locator('#token-counts').textContent()) ?? '',
      /^Prompt: 682 tokens \(counted from the recorded ids\) · Completion: 60 tokens \(counted from the recorded tokens\)$/,
    );
    const first = stepper.locator('#token-run [data-position="0"]');
    assert.equal(await first.textContent(), `‹${firstId}›`);
    await first.click();
    await stepper.locator('#token-detail', { hasText: `text ${JSON.stringify(toyDecode([firstId]))}` }).waitFor({ timeout: 30_000 });
    assert.match((await stepper.locator('#token-detail').textContent()) ?? '', new RegExp(`^Token 1 of 60 · id ${firstId} · p `));
    await page.screenshot({ path: path.join(out!, 'tokens-atif-decoded.png') });
  });
});

/** An rLLM episode of one text-only step: enough for a row of the table. */
const episode = (id: string) => ({ id, task: { problem_statement: 'T' }, trajectories: [{ steps: [{ thought: 'ls', observation: 'a.py' }] }] });

describe("a re-scored run's mismatch columns in the rollouts table", () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;
  let run: string;
  let settingsBefore: string;

  thirdParty.before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    run = mkdtempSync(path.join(tmpdir(), 'swe-workbench-rescored-'));
    writeFileSync(path.join(run, 'a.json'), JSON.stringify(episode('a')));
    writeFileSync(path.join(run, 'b.json'), JSON.stringify(episode('b')));
    // What `tokens DIR --save` keeps (test/unit/cli/tokens.test.ts runs it): a.json re-scored, b.json not.
    await writeTokenReport(run, [
      {
        rollout: 'a.json',
        steps: 2,
        errors: 1,
        tokens: 2,
        maxAbsDiff: 0.5,
        outside: 1,
        kl: 0.0532653,
        firstDrift: { step: 1, position: 22 },
        driftUnknown: 0,
        bounds: [0.8, 1.25],
      },
    ]);
    settingsBefore = readFileSync(settingsFile, 'utf8');
    writeFileSync(settingsFile, JSON.stringify({ ...JSON.parse(settingsBefore), 'sweWorkbench.rollouts.folder': run }, null, 2));
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  thirdParty.after(async () => {
    await browser?.close();
    if (settingsBefore !== undefined) writeFileSync(settingsFile!, settingsBefore);
    if (run) rmSync(run, { recursive: true, force: true });
  });

  thirdParty.test('max |Δ|, outside, KL and first drift, unknown where not re-scored, filtered on, in three themes', async () => {
    for (const theme of Object.keys(THEMES) as (keyof typeof THEMES)[]) {
      await setTheme(page, settingsFile!, theme);
      await runCommand(page, 'View: Close All Editors');
      await waitForExtension(page);
      await runCommand(page, 'SWE Workbench: Show Rollouts Table');
      const table = await webviewFrame(page, `body.${THEMES[theme].webviewClass} #viewport`, 60_000);
      await table.locator('#row-count', { hasText: /^2 rollouts$/ }).waitFor({ timeout: 60_000 });
      const head = await table.locator('.table-head [data-column]').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-column')));
      assert.deepEqual(head.slice(-4), ['maxdiff', 'outside', 'kl', 'drift']);
      const row = (id: string, column: string) => table.locator(`.rollout-row[data-id="${id}"] [data-column="${column}"]`).textContent();
      await table.locator('.rollout-row[data-id="b.json"]').waitFor({ timeout: 30_000 });
      assert.deepEqual(await Promise.all(['maxdiff', 'outside', 'kl', 'drift'].map((c) => row('a.json', c))), ['0.5', '1', '0.0533', 'step 2, token 23']);
      assert.deepEqual(await Promise.all(['maxdiff', 'outside', 'kl', 'drift'].map((c) => row('b.json', c))), ['unknown', 'unknown', 'unknown', 'unknown']);
      // The table scrolls sideways to the new columns, the head with it.
      await table.locator('.rollout-row[data-id="a.json"] [data-column="drift"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(out!, `rollouts-mismatch-${theme}.png`) });
      const input = table.locator('#filter input');
      await input.fill('kl=unknown');
      await input.press('Enter');
      await table.locator('#row-count', { hasText: /^1 of 2 rollouts$/ }).waitFor({ timeout: 30_000 });
      // The count comes first; the rows follow by range.
      await table.locator('.rollout-row[data-id="b.json"]').waitFor({ timeout: 30_000 });
      assert.deepEqual(await table.locator('.rollout-row[data-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id'))), ['b.json']);
      await input.fill('');
      await input.press('Enter');
      await table.locator('#row-count', { hasText: /^2 rollouts$/ }).waitFor({ timeout: 30_000 });
    }
  });
});
