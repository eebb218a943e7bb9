import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { toCanonicalJson } from '../../extension/core/trajectory/canonicalExport';
import { TrajectorySchema } from '../../extension/core/trajectory/model';
import type { Page } from 'playwright-core';
import { runCommand } from './workbench';

/** A shell step of a recording: the command as the agent wrote it and the output it recorded. */
export interface ShellStep {
  raw: string;
  observation: string;
}

/** The base image the e2e sessions run on. */
export const BASE_IMAGE = 'swe-workbench/base:bookworm';

/**
 * Writes a canonical recording of plain shell steps on `image` (the base image unless given) at
 * /repo, as a replay in the e2e workspace (copied into the container) reads it.
 */
export function writeShellRecording(file: string, steps: readonly ShellStep[], image = BASE_IMAGE): void {
  const trajectory = TrajectorySchema.parse({
    format: 'canonical',
    task: { image, repoPath: '/repo' },
    steps: steps.map((s, index) => ({ index, thought: `Step ${index + 1}.`, action: { raw: s.raw, tool: null, args: {} }, observation: s.observation })),
    outcome: {},
    meta: { parseFunction: 'thought_action' },
  });
  writeFileSync(file, toCanonicalJson(trajectory));
}

/** The parent of process `pid`, or undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read after the last ')'.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs under the code-server whose folders are in `home` (its command line names them). */
function underCodeServer(pid: number, home: string): boolean {
  for (let p: number | undefined = pid, depth = 0; p !== undefined && p > 1 && depth < 32; p = parentOf(p), depth++) {
    try {
      if (
        readFileSync(`/proc/${p}/cmdline`, 'utf8')
          .split('\0')
          .some((arg) => arg.startsWith(home + path.sep))
      )
        return true;
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Containers, running or not, of VS Code sessions started by the code-server these tests drive:
 * those whose owner label (`<hostname>:<pid>` of the extension host) names a process of that
 * code-server, found from the workspace it serves (in its home folder). Other developers' sessions
 * on the same Docker engine are not counted.
 */
export function sessionContainers(workspace = process.env.SWE_WORKBENCH_E2E_WORKSPACE): string[] {
  if (!workspace) throw new Error('sessionContainers: no e2e workspace (SWE_WORKBENCH_E2E_WORKSPACE)');
  const home = path.dirname(workspace);
  const listed = execFileSync(
    'docker',
    ['ps', '-a', '--filter', 'label=swe-workbench.role=vscode-session', '--format', '{{.ID}} {{.Label "swe-workbench.owner"}}'],
    { encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter(Boolean)
    .filter((line) => {
      const [, owner = ''] = line.split(' ');
      const [host, pid] = owner.split(':');
      return host === hostname() && Number(pid) > 0 && underCodeServer(Number(pid), home);
    })
    .map((line) => line.split(' ')[0]!);
}

/**
 * Stops the running session (its Session view row then matches `stoppedRow`), discards the snapshots kept for forks (a stopped session's container
 * stays for them until then) and waits until no container of this code-server's sessions is left:
 * Docker may still be removing the last one.
 */
export async function stopSessionLeavingNoContainer(page: Page, stoppedRow = /stopped/): Promise<void> {
  await runCommand(page, 'SWE Workbench: Stop Session');
  // The row is drawn only while its view shows: a test may have moved to the Explorer.
  await runCommand(page, 'SWE Workbench: Focus on Session View');
  await page.locator('.monaco-list-row', { hasText: stoppedRow }).first().waitFor({ state: 'attached', timeout: 60_000 });
  await runCommand(page, 'SWE Workbench: Discard Kept Fork Snapshots');
  for (let attempt = 0; sessionContainers().length > 0; attempt++) {
    if (attempt > 60) throw new Error(`containers left behind: ${sessionContainers().join(', ')}`);
    await page.waitForTimeout(1000);
  }
}

/** The log file of the extension's output channel, as the code-server these tests drive writes it. */
function extensionLog(userData: string): string {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.name === 'SWE Workbench.log') found.push(p);
    }
  };
  walk(path.join(userData, 'logs'));
  const newest = found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  assert.ok(newest, `no 'SWE Workbench.log' under ${userData}/logs`);
  return readFileSync(newest, 'utf8');
}

/**
 * Runs *Check Setup* and asserts what a person installing the .vsix sees: "SWE Workbench is
 * ready", Pyright found inside the extension as installed in this code-server's extensions folder
 * (its log line), away from the checkout, with no node_modules above it that could lend one.
 */
export async function checkSetupOnInstalled(page: Page, settingsFile: string, screenshot: string): Promise<void> {
  const plain = (text: string | null | undefined) => (text ?? '').replace(/\u00a0/g, ' ');
  await runCommand(page, 'SWE Workbench: Check Setup');
  const verdict = page.locator('.notification-toast', { hasText: /SWE Workbench is (not )?ready/ }).first();
  await verdict.waitFor({ timeout: 120_000 });
  const said = plain(await verdict.textContent());
  await page.screenshot({ path: screenshot });
  assert.match(said, /SWE Workbench is ready/, said);
  assert.doesNotMatch(said, /to look at: .*Pyright/, said);

  // The log (Output > SWE Workbench) has the check's line: where Pyright was found.
  const userData = path.dirname(path.dirname(settingsFile));
  const log = extensionLog(userData);
  const line = log.match(/^OK\s+Pyright\s+(\S+), carried by SWE Workbench, at (\S+)$/m);
  assert.ok(line, `no OK line for Pyright in the log:\n${log.slice(-3000)}`);
  const [, version, folder] = line;
  const repoRoot = process.cwd();
  const pinned = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/pyright/package.json'), 'utf8')) as { version: string }).version;
  assert.equal(version, pinned);
  // Inside the extension as installed in this code-server's extensions folder, away from the checkout.
  const extensions = path.join(path.dirname(userData), 'extensions');
  assert.ok(folder!.startsWith(extensions + path.sep), `${folder} is not in ${extensions}`);
  assert.ok(path.relative(repoRoot, folder!).startsWith('..'), `${folder} is inside the checkout`);
  // No node_modules above the installed extension could have lent it a Pyright.
  const installed = path.resolve(folder!, '../../..');
  for (let dir = path.dirname(installed); dir !== path.dirname(dir); dir = path.dirname(dir))
    assert.ok(!existsSync(path.join(dir, 'node_modules/pyright')), `${dir}/node_modules/pyright is in reach of the installed extension`);
  await page.keyboard.press('Escape');
}
