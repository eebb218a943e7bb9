import { readFileSync, writeFileSync } from 'node:fs';
import type { Frame, Locator, Page } from 'playwright-core';
import { webviewFrame } from './browser';

/**
 * Opens the quick input with `shortcut` and types `text` into it. Returns false when the widget
 * did not open or could not take the text in time: keys pressed while the workbench still starts
 * are lost, and a dialog or a focus change while the widget opens leaves it inert or hides it.
 * The caller presses Escape and tries again.
 */
export async function typeInQuickInput(page: Page, shortcut: string, text: string): Promise<boolean> {
  await page.keyboard.press(shortcut);
  const input = page.locator('.quick-input-widget input');
  if (
    !(await input.waitFor({ timeout: 5_000 }).then(
      () => true,
      () => false,
    ))
  )
    return false;
  return input.fill(text, { timeout: 5_000 }).then(
    () => true,
    () => false,
  );
}

/** Lists `fileName` in Quick Open; returns its row, or undefined when it did not appear in time. */
export async function quickOpenRow(page: Page, fileName: string): Promise<Locator | undefined> {
  if (!(await typeInQuickInput(page, 'Control+P', fileName))) return undefined;
  // Clicking the row, not pressing Enter: Enter takes whichever row the list showed for the text
  // typed before, which may be another file.
  const row = page
    .locator('.quick-input-list .monaco-list-row', {
      has: page.locator('.monaco-highlighted-label', { hasText: new RegExp(`^${fileName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }),
    })
    .first();
  return (await row.waitFor({ timeout: 10_000 }).then(
    () => true,
    () => false,
  ))
    ? row
    : undefined;
}

/** Opens a workspace file through Quick Open, retrying while the workbench is still starting. */
export async function quickOpen(page: Page, fileName: string): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  for (let attempt = 1; ; attempt++) {
    const row = await quickOpenRow(page, fileName);
    // The list can close under the click (focus taken by a notification or a view coming up):
    // then Quick Open is opened again, as when the row never showed.
    const clicked =
      row &&
      (await row.click({ timeout: 10_000 }).then(
        () => true,
        () => false,
      ));
    if (clicked) return;
    await page.keyboard.press('Escape');
    if (attempt >= 6) throw new Error(`Quick Open never listed ${fileName}`);
  }
}

/**
 * Waits until the workbench knows the extension's contributions: a file opened before that
 * lands in the text editor instead of the custom editor.
 */
export async function waitForExtension(page: Page): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  for (let attempt = 1; ; attempt++) {
    const typed = await typeInQuickInput(page, 'Control+Shift+P', '>SWE Workbench: Open Trajectory');
    const listed =
      typed &&
      (await page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'SWE Workbench: Open Trajectory' })
        .first()
        .waitFor({ timeout: 5_000 })
        .then(
          () => true,
          () => false,
        ));
    await page.keyboard.press('Escape');
    if (listed) return;
    if (attempt >= 12) throw new Error('the SWE Workbench commands never appeared in the Command Palette');
  }
}

/** Opens a file that shows in a webview and returns the frame once `readySelector` is in it. */
export async function openFileInWebview(page: Page, fileName: string, readySelector: string): Promise<Frame> {
  await waitForExtension(page);
  await quickOpen(page, fileName);
  // A Quick Open issued while the workbench restores editors can be swallowed: ask once more.
  return webviewFrame(page, readySelector, 30_000).catch(async () => {
    await quickOpen(page, fileName);
    return webviewFrame(page, readySelector, 30_000);
  });
}

export const THEMES = {
  dark: { id: 'Dark 2026', workbenchClass: 'vscode-theme-defaults-themes-2026-dark-json', webviewClass: 'vscode-dark' },
  light: { id: 'Light 2026', workbenchClass: 'vscode-theme-defaults-themes-2026-light-json', webviewClass: 'vscode-light' },
  'high-contrast': { id: 'Default High Contrast', workbenchClass: 'vscode-theme-defaults-themes-hc_black-json', webviewClass: 'vscode-high-contrast' },
} as const;

/** Runs a command from the Command Palette, retrying while the workbench is still registering it. */
export async function runCommand(page: Page, title: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const typed = await typeInQuickInput(page, 'Control+Shift+P', `>${title}`);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
    if (
      typed &&
      (await row.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      ))
    ) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('Escape');
    if (attempt >= 6) throw new Error(`the Command Palette never listed '${title}'`);
  }
}

/**
 * Runs a command that acts on the active editor's file and returns the webview it opens. Right
 * after a reload the extension host can learn of the open editor only after the command ran: it
 * then shows its file picker (`pickerTitle`), as with no file open; that picker is closed and the
 * command run again.
 */
export async function runCommandOnActiveFile(page: Page, title: string, pickerTitle: string, ready: string): Promise<Frame> {
  const picker = page.locator('.quick-input-widget', { hasText: pickerTitle });
  for (let attempt = 1; ; attempt++) {
    await runCommand(page, title);
    const shown = webviewFrame(page, ready, 30_000);
    const asked = picker.waitFor({ timeout: 30_000 }).then(
      () => 'asked' as const,
      () => 'not asked' as const,
    );
    const first = await Promise.race([shown, asked]);
    if (first !== 'asked') return first === 'not asked' ? shown : first;
    shown.catch(() => undefined);
    await page.keyboard.press('Escape');
    if (attempt >= 5) throw new Error(`'${title}' never saw the active editor's file`);
    await page.waitForTimeout(1_000);
  }
}

/**
 * Reloads the window as a person does (Developer: Reload Window): the workbench saves its
 * editors and their webviews' state first, which a bare page reload does not wait for.
 */
export async function reloadWindow(page: Page): Promise<void> {
  const reloaded = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), timeout: 60_000 });
  await runCommand(page, 'Developer: Reload Window');
  await reloaded;
}

/**
 * Switches the colour theme by editing the user settings file and reloading the window. The
 * theme picker would search the marketplace first, which cannot answer on these machines, and
 * the server does not notice a settings file written behind its back until a reload.
 */
export async function setTheme(page: Page, settingsFile: string, theme: keyof typeof THEMES): Promise<void> {
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(settingsFile, JSON.stringify({ ...settings, 'workbench.colorTheme': THEMES[theme].id }, null, 2));
  await page.reload();
  await page.locator(`.monaco-workbench.${THEMES[theme].workbenchClass}`).waitFor({ timeout: 60_000 });
}
