import type { Page } from 'playwright-core';

/** The browser's clock, so marks set inside the webview and times read here share one origin. */
export const browserNow = (page: Page): Promise<number> => page.evaluate(() => Date.now());

/** Closes every editor so the next open is measured from an empty editor area. */
export async function closeAll(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+W');
  await page.locator('.editor-group-container .tab').first().waitFor({ state: 'detached', timeout: 15_000 });
}
