import Mocha from 'mocha';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { needsCounts } from '../helpers/mochaShared';

/** Read by scripts/run-vscode-tests.mjs from the forwarded console. */
const RESULT_MARK = 'SWE_WORKBENCH_MOCHA_RESULT ';

/** Called by the extension host (extensionTestsPath): runs every bundled suite beside this file. */
export async function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000 });
  // SWE_WORKBENCH_VSCODE_ONLY=compare,trajectoryEditor runs only those files (while working on one view).
  const only = process.env.SWE_WORKBENCH_VSCODE_ONLY?.split(',').map((name) => `${name.trim()}.test.js`);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.test.js') && (!only || only.includes(f)))
    .sort();
  console.log(`vscode suite: ${files.join(', ')}`);
  for (const file of files) mocha.addFile(path.join(__dirname, file));
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[], needs: {} as Record<string, number> };
  await new Promise<void>((resolve, reject) => {
    const runner = mocha.run(() => {
      // Each test file is its own bundle: the skips for a missing ../shared folder meet on globalThis.
      counts.needs = needsCounts();
      console.log(RESULT_MARK + JSON.stringify(counts));
      if (counts.failed > 0) reject(new Error(`${counts.failed} test(s) failed`));
      else resolve();
    });
    runner.on('pass', () => counts.passed++);
    runner.on('pending', () => counts.skipped++);
    runner.on('fail', (test, error: Error) => {
      counts.failed++;
      counts.failures.push(`${test.fullTitle()}: ${error.message}`);
    });
  });
}
