import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Frame, type Page } from 'playwright-core';

/** Debian's Chromium with the flags measured to work headless on these machines. */
export async function launchBrowser(): Promise<{ context: BrowserContext; page: Page; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(tmpdir(), 'swe-workbench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The frame of a webview that holds `selector` (webviews are nested iframes). */
export async function webviewFrame(page: Page, selector: string, timeoutMs = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      if (await frame.$(selector).catch(() => null)) return frame;
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview shows ${selector} within ${timeoutMs / 1000} s`);
}

/** A browser on code-server at `url` with `folder` open. */
export async function launchBrowserOn(url: string, folder: string): Promise<Awaited<ReturnType<typeof launchBrowser>>> {
  const browser = await launchBrowser();
  // A loaded machine can take longer than Playwright's default 30 s to serve the workbench; a
  // browser that never got there is closed, else it keeps the test process alive after the failure.
  await browser.page.goto(`${url}/?folder=${encodeURIComponent(folder)}`, { timeout: 120_000 }).catch(async (error: unknown) => {
    await browser.close();
    throw error;
  });
  return browser;
}
