import '../helpers/families';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { branchFolderOf, runBranches, type BranchRunResult } from '../../extension/core/branch/branchRun';
import { readTaskFile, runRequest } from '../../extension/core/branch/taskFile';
import { loadTrajectory } from '../../extension/core/trajectory/load';
import { branchPointItem, branchStrip, continuationItem, criticalText } from '../../extension/views/branchView';
import { startPolicyServer } from '../../scripts/demo/policy/scriptedPolicyServer';
import { answerPolicy, answerTask, sampleRepositoryIn } from '../helpers/branchScenario';
import { launchBrowserOn } from '../helpers/browser';
import { THEMES, openFileInWebview, reloadWindow, runCommand, setTheme, waitForExtension } from '../helpers/workbench';

const url = process.env.SWE_WORKBENCH_E2E_URL;
const workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE;
const settingsFile = process.env.SWE_WORKBENCH_E2E_SETTINGS;
const out = process.env.SWE_WORKBENCH_E2E_OUT;

type Theme = keyof typeof THEMES;
const themes = Object.keys(THEMES) as Theme[];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The recording: a canonical trajectory named so that it opens in the stepper (a plain .json opens as text). */
const RECORDING = 'answer.traj.json';
/** The branch point the continuation and Compare steps use: after step 2, the critical one by construction (V 1 to 0.25). */
const POINT = 2;

/** The frame of a webview whose `selector` holds `text` (several webviews may be open, the last theme's restored ones too). */
async function frameWith(page: Page, selector: string, text: RegExp, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const found = await frame
        .locator(selector, { hasText: text })
        .count()
        .catch(() => 0);
      if (found > 0) return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview shows ${selector} with ${String(text)} within ${timeoutMs / 1000} s`);
}

describe('branch values in code-server: the strip, the tree, a continuation, Compare from the branch point', () => {
  let browser: Awaited<ReturnType<typeof launchBrowserOn>>;
  let page: Page;
  let work: string;
  let run: BranchRunResult;

  before(async () => {
    assert.ok(url && workspace && settingsFile && out, 'run through scripts/run-vscode-tests.mjs e2e');
    // A real branch run, made here: the core, real Docker and the scripted policy whose values are known (test/helpers/branchScenario.ts).
    work = mkdtempSync(path.join(tmpdir(), 'swb-e2e-branch-'));
    const folder = path.join(workspace, 'branch-answer');
    mkdirSync(folder, { recursive: true });
    const { taskFile, recordingFile } = await answerTask(folder, sampleRepositoryIn(path.join(work, 'repo'), process.cwd()), RECORDING);
    const recording = (await loadTrajectory(recordingFile)).trajectory;
    const server = await startPolicyServer(answerPolicy, { recordRequests: false });
    try {
      run = await runBranches({
        request: {
          ...runRequest(await readTaskFile(taskFile), taskFile, { fork: { trajectory: recording, ref: recordingFile, at: 0 } }),
          recording: { trajectory: recording, ref: recordingFile },
        },
        steps: [0, 1, 2],
        samples: 4,
        concurrency: 2,
        maxSteps: 5,
        policy: { baseUrl: server.url, model: 'test-policy', sampling: { temperature: 1, seed: 1 } },
        out: branchFolderOf(recordingFile),
      });
    } finally {
      await server.close();
    }
    browser = await launchBrowserOn(url, workspace);
    page = browser.page;
  });

  after(async () => {
    await page?.screenshot({ path: path.join(out!, 'branch-last.png') }).catch(() => undefined);
    await browser?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const branchesView = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Branches/ }) });
  /** A tree row by its whole label. */
  const row = (view: Locator, label: string) =>
    view.locator('.monaco-list-row', { has: page.locator('.label-name', { hasText: new RegExp(`^${escape(label)}$`) }) }).first();

  /** Opens the SWE Workbench container with only the Branches view expanded (the others collapsed, for its height). */
  async function openBranchesView(): Promise<Locator> {
    await page.locator('.activitybar .action-label[aria-label^="SWE Workbench"]').click();
    await runCommand(page, 'SWE Workbench: Focus on Branches View');
    for (const other of ['Rollouts', 'Bugs', 'Session']) {
      const header = page.locator('.pane-header', { hasText: new RegExp(`^${other}`) });
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    }
    return branchesView();
  }

  /** The rows of the view in order, as "label description". */
  async function rowsOf(view: Locator): Promise<string[]> {
    const rows = await view.locator('.monaco-list-row').evaluateAll((elements) =>
      elements.map((e) => ({
        index: Number(e.getAttribute('data-index')),
        text: [e.querySelector('.label-name')?.textContent, e.querySelector('.label-description')?.textContent].filter(Boolean).join(' '),
      })),
    );
    return rows.sort((a, b) => a.index - b.index).map((r) => r.text);
  }

  test('in each theme: V on the timeline, the branch tree, a continuation opened after its branch point, Compare from the branch point', async () => {
    const { summary, index } = run;
    const point = index.points.find((p) => p.afterStep === POINT)!;
    const continuation = point.continuations[0]!;
    const continuationName = path.basename(continuation.file);
    const continuationSteps = POINT + continuation.steps;
    const valueAt = (t: number) => summary.values.find((v) => v.at === t)!;
    for (const theme of themes) {
      await setTheme(page, settingsFile!, theme);
      await waitForExtension(page);
      // Editors restored by the reload open no tab, so the view would not hear of the recording: start with none.
      await runCommand(page, 'View: Close All Editors');

      // The value strip on the stepper's timeline: the core's V per branched step, the critical step marked.
      await openFileInWebview(page, RECORDING, '#step-title');
      const stepper = await frameWith(page, '#branch-strip:not([hidden])', /Branch values/);
      assert.equal(await stepper.locator('#branch-strip .branch-critical-text').textContent(), criticalText(summary));
      // Each branched step's row (and the strip, for the start) says V, its interval and n as the core computed them.
      const cells = branchStrip(summary, '').cells;
      const cellText = (t: number) => {
        const c = cells.find((x) => x.afterStep === t)!;
        return `V ${c.value} ${c.interval} n ${c.n}`;
      };
      assert.match((await stepper.locator('#branch-strip').textContent()) ?? '', new RegExp(`start: ${escape(cellText(0))}`));
      for (const t of [1, 2]) {
        const cell = stepper.locator(`.step-row .branch-value[data-after-step="${t}"]`);
        assert.equal(((await cell.textContent()) ?? '').trim(), cellText(t), `the value after step ${t}`);
      }
      const critical = summary.critical!.to;
      assert.equal(critical, POINT, 'the scenario is built so that step 2 is critical');
      assert.equal(await stepper.locator(`.step-row.critical-step .branch-value[data-after-step="${critical}"]`).count(), 1, 'the critical step is marked');

      // The branch tree: the recording, its branch points with the core's V, the continuations of the critical one.
      const view = await openBranchesView();
      await row(view, RECORDING).waitFor({ timeout: 30_000 });
      const criticalLabel = branchPointItem(valueAt(POINT), summary).label;
      const pointRow = row(view, criticalLabel);
      if ((await pointRow.getAttribute('aria-expanded')) !== 'true') await pointRow.locator('.monaco-tl-twistie').click();
      await row(view, 'continuation 1').waitFor({ timeout: 15_000 });
      const rows = await rowsOf(view);
      const expected = [
        `${RECORDING} ${criticalText(summary)}`,
        ...summary.values.flatMap((v) => {
          const shown = branchPointItem(v, summary);
          const head = `${shown.label} ${shown.description}`;
          return v.at === POINT
            ? [
                head,
                ...point.continuations.map((c) => {
                  const item = continuationItem(c);
                  return `${item.label} ${item.description}`;
                }),
              ]
            : [head];
        }),
      ];
      assert.deepEqual(rows, expected);
      await page.screenshot({ path: path.join(out!, `branch-values-${theme}.png`) });

      // A click on a continuation opens it in the stepper on its first step after the branch point.
      await row(view, 'continuation 1').click();
      const opened = await frameWith(page, '#file-name', new RegExp(`^${escape(continuationName)}$`));
      await opened.locator('#step-title', { hasText: `Step ${POINT + 1} of ${continuationSteps}` }).waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(out!, `branch-continuation-${theme}.png`) });

      // Compare with the recording from the branch point (the row's inline action): the shared prefix folded, the branch point on top.
      await row(view, 'continuation 1').hover();
      await row(view, 'continuation 1').locator('.action-label[aria-label="Compare with the Recording from the Branch Point"]').click();
      const compare = await frameWith(page, '#branch-point', new RegExp(`after step ${POINT}`));
      assert.match(
        (await compare.locator('#compare-summary').textContent()) ?? '',
        new RegExp(`^from the branch point after step ${POINT} \\(steps 1–${POINT} shared\\), `),
      );
      const toggle = compare.locator('#shared-prefix-toggle');
      assert.equal(await toggle.textContent(), `Steps 1–${POINT}, shared up to the branch point: show`);
      assert.equal(await compare.locator('tr.shared:visible').count(), 0, 'the shared prefix starts folded');
      // The first row after the branch point holds the continuation's first own step, at the top of the steps.
      const first = compare.locator('#branch-point + tr');
      assert.equal(await first.locator('td').nth(1).locator('.step-number').textContent(), String(POINT + 1));
      const [mark, body] = await Promise.all([first.boundingBox(), compare.locator('#compare-body').boundingBox()]);
      assert.ok(mark && body && mark.y >= body.y && mark.y + mark.height <= body.y + body.height, 'the first row after the branch point is in view');
      await page.screenshot({ path: path.join(out!, `branch-compare-${theme}.png`) });
      await toggle.click();
      assert.equal(await compare.locator('tr.shared:visible').count(), POINT, 'shown, the prefix is its two steps');
    }
  });

  test("the Rollouts table of the recording's folder shows its critical step in a column of its own", async () => {
    const { critical } = run.summary;
    assert.ok(critical, 'V falls by construction');
    const value = (at: number) => run.summary.values.find((v) => v.at === at)!.value!.toFixed(2);
    // Written out here, as a person reads it: the step from 1, V before and after it.
    const expected = `${critical.to - critical.from === 1 ? `step ${critical.to}` : `steps ${critical.from + 1}..${critical.to}`} (V ${value(critical.from)} -> ${value(critical.to)})`;
    const original = readFileSync(settingsFile!, 'utf8');
    writeFileSync(
      settingsFile!,
      JSON.stringify({ ...(JSON.parse(original) as object), 'sweWorkbench.rollouts.folder': path.join(workspace!, 'branch-answer') }, null, 2),
    );
    try {
      await runCommand(page, 'View: Close All Editors');
      await reloadWindow(page);
      await waitForExtension(page);
      await runCommand(page, 'SWE Workbench: Show Rollouts Table');
      const table = await frameWith(page, `.rollout-row[data-id="${RECORDING}"] [data-column="critical"]`, /./);
      const head = table.locator('.table-head [data-column="critical"]');
      const cell = table.locator(`.rollout-row[data-id="${RECORDING}"] [data-column="critical"]`);
      assert.equal(await head.textContent(), 'Critical step');
      assert.equal(await cell.textContent(), expected);
      assert.equal(await table.locator('.rollout-row[data-id]').count(), 1, 'the continuations are no rollouts of the folder');
      // Scrolled to the end: the cell sits under its header, in a track of its own after Duration.
      await table.locator('#viewport').evaluate((v) => (v.scrollLeft = v.scrollWidth));
      await table.waitForFunction(() => {
        const rows = document.getElementById('viewport')!;
        return Math.abs(document.getElementById('table-head-scroll')!.scrollLeft - rows.scrollLeft) < 1;
      });
      const [headBox, cellBox, durationBox] = await Promise.all([
        head.boundingBox(),
        cell.boundingBox(),
        table.locator(`.rollout-row[data-id="${RECORDING}"] [data-column="duration"]`).boundingBox(),
      ]);
      assert.ok(headBox && cellBox && durationBox);
      // Within the row's 1px border.
      assert.ok(Math.abs(headBox.x - cellBox.x) < 2, `header at ${headBox.x}, cell at ${cellBox.x}`);
      assert.ok(cellBox.x >= durationBox.x + durationBox.width, 'after the Duration column, not over it');
      assert.ok(await cell.evaluate((e) => e.scrollWidth <= e.clientWidth), 'the critical step reads whole, not cut short');
      await page.screenshot({ path: path.join(out!, 'branch-rollouts-critical.png') });
    } finally {
      writeFileSync(settingsFile!, original);
    }
  });
});
