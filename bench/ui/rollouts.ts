/**
 * Rollouts table speed in a real code-server and Chromium on a generated 10,000-rollout run,
 * side by side with the raw operations: time from the command until the first rows show,
 * against VS Code's text editor opening one of the run's JSONL files; and frame time while
 * scrolling the virtualized table, against the same scroll over a plain 10,000-row DOM list
 * built in the same webview.
 * Then sort, filter and search in the table: from the action to its answer's first row on screen.
 * Run: node --import tsx bench/ui/rollouts.ts [--instances 1000] [--attempts 10] [--runs 5] [--frames 120] [--no-text]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Frame, Page } from 'playwright-core';
import { launchBrowser, webviewFrame } from '../../test/helpers/browser';
import { buildExtension, makeWorkspace, packageExtension, removeHome, startCodeServer } from '../../test/helpers/codeServer';
import { writeLargeRolloutRun } from '../../test/helpers/largeRolloutRun';
import { quickOpen, runCommand, waitForExtension } from '../../test/helpers/workbench';
import { FIRST_ROWS_MARK } from '../../extension/protocol/rollouts';
import { median } from '../timing';
import { browserNow, closeAll } from './measure';

const { values } = parseArgs({
  options: {
    instances: { type: 'string', default: '1000' },
    attempts: { type: 'string', default: '10' },
    runs: { type: 'string', default: '5' },
    frames: { type: 'string', default: '120' },
    // At 100,000 rollouts each JSONL file is 30 MB: VS Code's text editor takes minutes over one.
    'no-text': { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const FRAMES = Number(values.frames);

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN;

async function timeTableOpen(page: Page): Promise<{ ms: number; frame: Frame }> {
  const start = await browserNow(page);
  await runCommand(page, 'SWE Workbench: Show Rollouts Table');
  const frame = await webviewFrame(page, '#viewport');
  const shown = await frame.waitForFunction(
    (mark) => {
      const entry = performance.getEntriesByName(mark)[0];
      return entry && performance.timeOrigin + entry.startTime;
    },
    FIRST_ROWS_MARK,
    { timeout: 120_000 },
  );
  return { ms: ((await shown.jsonValue()) as number) - start, frame };
}

async function timeTextOpen(page: Page, file: string): Promise<number> {
  const start = await browserNow(page);
  await quickOpen(page, file);
  const shown = await page.waitForFunction(
    () => document.querySelector('.editor-instance .view-lines')?.textContent?.includes('trajectory_steps') && Date.now(),
    undefined,
    { polling: 'raf', timeout: 120_000 },
  );
  return ((await shown.jsonValue()) as number) - start;
}

/** Scrolls `selector` by 40 rows per animation frame and returns each frame's duration. */
function scrollFrames(frame: Frame, selector: string, frames: number): Promise<number[]> {
  return frame.evaluate(
    async ({ selector, frames }) => {
      const scroller = document.querySelector(selector) as HTMLElement;
      scroller.scrollTop = 0;
      await new Promise((r) => requestAnimationFrame(r));
      const times: number[] = [];
      let last = performance.now();
      for (let i = 0; i < frames; i++) {
        scroller.scrollTop += 24 * 40;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      return times;
    },
    { selector, frames },
  );
}

/**
 * From an action in the table (a header click, a filter or search committed) until its answer is
 * on screen: the row count says the query's size and the first row shows `first` in `column`.
 * Measured in the page, with its own clock.
 */
function timeQuery(
  frame: Frame,
  action: { click: string } | { field: 'filter' | 'search'; value: string },
  expect: { count: string; column: string; first: string },
): Promise<number> {
  return frame.evaluate(
    async ({ action, expect }) => {
      const start = performance.now();
      if ('click' in action) (document.querySelector(action.click) as HTMLElement).click();
      else {
        const field = document.getElementById(action.field) as HTMLElement & { value: string };
        field.value = action.value;
        field.dispatchEvent(new Event('change'));
      }
      for (;;) {
        await new Promise((r) => requestAnimationFrame(r));
        const count = document.getElementById('row-count')?.textContent ?? '';
        const cell = document.querySelector(`.rollout-row[data-index="0"] [data-column="${expect.column}"]`)?.textContent ?? '';
        if (count === expect.count && cell.endsWith(expect.first)) return performance.now() - start;
        if (performance.now() - start > 120_000) throw new Error(`no answer: count '${count}', first ${expect.column} '${cell}'`);
      }
    },
    { action, expect },
  );
}

/** The same 10,000 rows as a plain list, every row in the DOM: what virtualization avoids. */
function buildPlainList(frame: Frame, rows: number): Promise<void> {
  return frame.evaluate((rows) => {
    const list = document.createElement('div');
    list.id = 'plain-list';
    Object.assign(list.style, { position: 'fixed', inset: '0', overflow: 'auto', background: 'var(--vscode-editor-background)' });
    for (let i = 0; i < rows; i++) {
      const row = document.createElement('div');
      row.className = 'rollouts-grid';
      row.style.height = '24px';
      for (let c = 0; c < 11; c++) {
        const cell = document.createElement('span');
        cell.textContent = c === 0 ? `acme__widgets-${i}` : String((i * 31 + c) % 97);
        row.append(cell);
      }
      list.append(row);
    }
    document.body.append(list);
  }, rows);
}

/** Rollouts of writeLargeRolloutRun with `steps` steps: its steps are 2 + (7i + 3a) % 9. */
function countOf(run: { instances: number; rollouts: number }, steps: number): number {
  let n = 0;
  for (let a = 0; a < run.rollouts / run.instances; a++) for (let i = 0; i < run.instances; i++) if (2 + ((i * 7 + a * 3) % 9) === steps) n++;
  return n;
}

async function main(): Promise<void> {
  buildExtension();
  const run = writeLargeRolloutRun(Number(values.instances), Number(values.attempts));
  const server = await startCodeServer({
    vsix: packageExtension(path.resolve(__dirname, '../../dist')),
    userSettings: { 'sweWorkbench.rollouts.folder': run.root },
  });
  const browser = await launchBrowser();
  try {
    const workspace = makeWorkspace(server.home, { 'deepswe.jsonl': path.join(run.root, 'attempt_1/deepswe.jsonl') });
    const page = browser.page;
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}`);
    await waitForExtension(page);
    // Warm: activation and the first index of the folder (later opens read the cache).
    const warm = await timeTableOpen(page);
    await warm.frame.locator('#row-count', { hasText: `${run.rollouts} rollouts` }).waitFor({ timeout: 120_000 });
    await closeAll(page);

    const tableOpen: number[] = [];
    const textOpen: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (!values['no-text']) {
        textOpen.push(await timeTextOpen(page, 'deepswe.jsonl'));
        await closeAll(page);
      }
      tableOpen.push((await timeTableOpen(page)).ms);
      if (i < RUNS - 1) await closeAll(page);
    }

    const frame = await webviewFrame(page, '#viewport');
    const virtual = await scrollFrames(frame, '#viewport', FRAMES);
    const domRows = await frame.locator('.rollout-row').count();

    // Sort, filter and search, each answered by the host over every row and shown by the page.
    const all = `${run.rollouts} rollouts`;
    const steps = '[role=columnheader][data-column="steps"]';
    const queries: [string, number][] = [];
    await timeQuery(frame, { click: steps }, { count: all, column: 'steps', first: '2' });
    queries.push(['sort by steps, descending', await timeQuery(frame, { click: steps }, { count: all, column: 'steps', first: '10' })]);
    await timeQuery(frame, { click: steps }, { count: all, column: 'instance', first: '0000' });
    queries.push([
      'filter steps=10',
      await timeQuery(frame, { field: 'filter', value: 'steps=10' }, { count: `${countOf(run, 10)} of ${all}`, column: 'steps', first: '10' }),
    ]);
    queries.push(['filter cleared', await timeQuery(frame, { field: 'filter', value: '' }, { count: all, column: 'instance', first: '0000' })]);
    queries.push([
      'full-text search (no match)',
      await timeQuery(frame, { field: 'search', value: 'a text no step holds' }, { count: `0 of ${all}`, column: 'steps', first: '' }),
    ]);
    await timeQuery(frame, { field: 'search', value: '' }, { count: all, column: 'instance', first: '0000' });
    await buildPlainList(frame, run.rollouts);
    const plain = await scrollFrames(frame, '#plain-list', FRAMES);

    console.log(`\nrollouts table, ${run.rollouts} rollouts in ${run.instances} groups: medians of ${RUNS} opens, ${FRAMES} scroll frames of 40 rows each`);
    console.log('measure'.padEnd(44), 'table'.padStart(9), 'raw'.padStart(9), 'ratio'.padStart(7));
    const rows: [string, number, number][] = [
      ['command to first rows vs text editor (ms)', median(tableOpen), median(textOpen)],
      ['scroll frame, median (ms)', median(virtual), median(plain)],
      ['scroll frame, p95 (ms)', p95(virtual), p95(plain)],
    ];
    for (const [name, ours, raw] of rows)
      console.log(name.padEnd(44), ours.toFixed(1).padStart(9), raw.toFixed(1).padStart(9), (ours / raw).toFixed(2).padStart(7));
    console.log(`\nrows in the DOM while scrolling: ${domRows} of ${run.rollouts}`);
    for (const [name, ms] of queries) console.log(`${name.padEnd(44)} ${ms.toFixed(0).padStart(9)} ms from the action to its first row on screen`);
    const out = path.resolve(__dirname, '../out');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'rollouts-ui.json'), JSON.stringify({ tableOpen, textOpen, virtual, plain, domRows, queries }));
  } finally {
    await browser.close();
    await server.stop();
    removeHome(server.home);
    run.cleanup();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
