// Runs the suites that need a real VS Code: `vscode` (mocha inside code-server's extension host,
// driven through the smoke-test driver) and `e2e` (Playwright tests against code-server with the
// packaged extension installed). Writes {"passed","failed","skipped","failures"} to the counts
// file and always stops code-server and the browser it started, also on failure.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, rmSync, mkdirSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { format } from 'node:util';
import * as esbuild from 'esbuild';
import { register } from 'tsx/cjs/api';

register();
const require = createRequire(import.meta.url);
const { buildExtension, packageExtension, startCodeServer, makeWorkspace, removeHome, repoRoot } = require('../test/helpers/codeServer.ts');
const { launchBrowser } = require('../test/helpers/browser.ts');

const RESULT_MARK = 'SWE_WORKBENCH_MOCHA_RESULT ';
const [suite, countsFile] = process.argv.slice(2);
// A stop for a suite that hangs, well above its normal time on a busy 2-core machine (vscode
// about 4 minutes, e2e 15 quiet and over 20 with other work running beside it).
const SUITE_TIMEOUT_MS = (suite === 'e2e' ? 45 : 20) * 60_000;
if (!['vscode', 'e2e'].includes(suite) || !countsFile) {
  console.error('usage: run-vscode-tests.mjs vscode|e2e <countsFile>');
  process.exit(2);
}
const { sharedPath } = require('../test/helpers/sharedPaths.ts');
// The third-party fixtures, from the one setting the node:test suites use (test/helpers/sharedPaths.ts).
// Without them (a clone with no ../shared) the workspace lacks their files and the tests that open
// them are skipped and counted (test/helpers/sharedFolder.ts, test/helpers/mochaShared.ts).
const thirdParty = sharedPath('fixtures/third-party');
const fixture = (p) => (thirdParty.present ? join(thirdParty.dir, p) : undefined);

// The extension-host suites are bundled like the extension (native add-ons and mocha external);
// the Playwright suites run under plain Node and keep every package external.
async function bundleTests(dir, format, externals) {
  const source = join(repoRoot, 'test', dir);
  // SWE_WORKBENCH_VSCODE_ONLY=checkSetup,reward bundles only those extension-host files (while working on one).
  const only = dir === 'vscode' ? process.env.SWE_WORKBENCH_VSCODE_ONLY?.split(',').map((name) => `${name.trim()}.test.ts`) : undefined;
  const entries = readdirSync(source)
    .filter((f) => f === 'index.ts' || (f.endsWith('.test.ts') && (!only || only.includes(f))))
    .map((f) => join(source, f));
  const outdir = join(repoRoot, 'dist/test', dir);
  rmSync(outdir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    outdir,
    bundle: true,
    platform: 'node',
    format,
    target: 'node20',
    sourcemap: 'inline',
    ...externals,
    logLevel: 'warning',
  });
  return outdir;
}

async function runExtensionHostSuite(server, workspace) {
  const testsDir = await bundleTests('vscode', 'cjs', { external: ['vscode', 'mocha', 'cpu-features', 'ssh2', 'pyright'] });
  const browser = await launchBrowser();
  try {
    let counts;
    const exit = new Promise((resolve) => {
      void browser.page.exposeFunction('codeAutomationExit', (code) => resolve(code));
    });
    await browser.page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = format(...(Array.isArray(args) ? args : [args]));
      if (text.startsWith(RESULT_MARK)) counts = JSON.parse(text.slice(RESULT_MARK.length));
      else if (type === 'error') console.error(text);
      else console.log(text);
    });
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(repoRoot)],
      ['extensionTestsPath', remote(join(testsDir, 'index.js'))],
    ];
    await browser.page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
    const code = await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve('timeout'), SUITE_TIMEOUT_MS))]);
    if (!counts)
      return { passed: 0, failed: 1, skipped: 0, failures: [`vscode: the extension host ended (${code}) without mocha results; see ${server.logFile}`] };
    if (code !== 0 && counts.failed === 0) (counts.failures.push(`vscode: exit code ${code}`), counts.failed++);
    return counts;
  } finally {
    await browser.close();
  }
}

async function runPlaywrightSuite(server, workspace) {
  // Packages stay external (node_modules is beside the bundle), except jsonc-parser: the core reads
  // its ESM build, whose extensionless relative imports only a bundler resolves.
  const { dependencies = {}, devDependencies = {} } = require('../package.json');
  const external = Object.keys({ ...dependencies, ...devDependencies }).filter((name) => name !== 'jsonc-parser');
  const testsDir = await bundleTests('e2e', 'cjs', { external });
  // SWE_WORKBENCH_E2E_ONLY=stepper,bugs runs only those files (while working on one view).
  const only = process.env.SWE_WORKBENCH_E2E_ONLY?.split(',').map((name) => `${name.trim()}.test.js`);
  const files = readdirSync(testsDir)
    .filter((f) => f.endsWith('.test.js') && (!only || only.includes(f)))
    .map((f) => join(testsDir, f));
  const out = join(repoRoot, 'test/e2e/out');
  mkdirSync(out, { recursive: true });
  const counts = join(server.home, 'e2e-counts.json');
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-concurrency=1',
      '--test-timeout=600000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(repoRoot, 'scripts/count-reporter.mjs')}`,
      `--test-reporter-destination=${counts}`,
      ...files,
    ],
    {
      cwd: repoRoot,
      stdio: 'inherit',
      env: {
        ...process.env,
        SWE_WORKBENCH_E2E_URL: server.url,
        SWE_WORKBENCH_E2E_WORKSPACE: workspace,
        SWE_WORKBENCH_E2E_SETTINGS: server.userSettingsFile,
        SWE_WORKBENCH_E2E_OUT: out,
      },
    },
  );
  stopOnSignal.push(() => child.kill('SIGTERM'));
  let stopped = false;
  const limit = setTimeout(() => ((stopped = true), child.kill('SIGTERM')), SUITE_TIMEOUT_MS);
  const r = await new Promise((resolve) => child.once('exit', (status, signal) => resolve({ status, signal })));
  clearTimeout(limit);
  if (stopped) return { passed: 0, failed: 1, skipped: 0, failures: [`e2e: stopped at the suite's limit of ${SUITE_TIMEOUT_MS / 60_000} minutes`] };
  // A child that was killed may leave the counts file empty or cut short.
  let result;
  try {
    result = existsSync(counts) ? JSON.parse(readFileSync(counts, 'utf8')) : undefined;
  } catch {
    result = undefined;
  }
  if (!result) return { passed: 0, failed: 1, skipped: 0, failures: [`e2e: node --test exited with ${r.status ?? r.signal} and no readable counts`] };
  if (r.status !== 0 && result.failed === 0) (result.failures.push(`e2e: node --test exited with ${r.status ?? r.signal}`), result.failed++);
  return result;
}

let server;
let counts;
let vsixDir;
const stopOnSignal = [];
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, async () => {
    console.error(`run-vscode-tests: ${signal}, stopping code-server`);
    for (const stop of stopOnSignal) stop();
    await server?.stop();
    process.exit(1);
  });
}
try {
  buildExtension(suite === 'e2e' ? 'production' : 'development');
  // The e2e suite drives the extension as users install it: the .vsix, packaged away from the
  // checkout and installed into the fresh extensions folder of a code-server in a temporary
  // folder, where no node_modules is in reach (test/e2e/installedPyright.test.ts checks that).
  vsixDir = suite === 'e2e' ? mkdtempSync(join(tmpdir(), 'swe-workbench-vsix-')) : undefined;
  const vsix = vsixDir ? packageExtension(vsixDir) : undefined;
  server = await startCodeServer({ vscodeOptions: suite === 'vscode' ? ['enable-smoke-test-driver'] : [], vsix });
  const workspace = makeWorkspace(server.home, {
    'marshmallow-1867.windowed.traj': fixture('swe-agent/marshmallow-1867.windowed.traj'),
    'marshmallow-1867.function_calling.traj': fixture('swe-agent/marshmallow-1867.function_calling.traj'),
    'pandas-dev__pandas.95280573.pr_53856.traj': fixture('swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'),
    'basic.json': fixture('openhands/basic.json'),
    'truncated.traj': join(repoRoot, 'test/fixtures/trajectories/malformed/truncated.traj'),
  });
  counts = suite === 'vscode' ? await runExtensionHostSuite(server, workspace) : await runPlaywrightSuite(server, workspace);
} catch (error) {
  console.error(error);
  counts = { passed: 0, failed: 1, skipped: 0, failures: [`${suite}: ${error instanceof Error ? error.message : String(error)}`] };
} finally {
  if (vsixDir) rmSync(vsixDir, { recursive: true, force: true });
  if (server) {
    await server.stop();
    if (counts?.failed === 0) removeHome(server.home);
    else {
      console.log(`code-server log kept at ${server.logFile}`);
      // CI keeps only what was printed: the log's end, where a failing suite's server errors are.
      if (process.env.CI && existsSync(server.logFile)) {
        const lines = readFileSync(server.logFile, 'utf8').trimEnd().split('\n');
        console.log(`its last ${Math.min(lines.length, 80)} lines:\n${lines.slice(-80).join('\n')}`);
      }
    }
  }
}
writeFileSync(countsFile, JSON.stringify(counts));
console.log(`${counts.passed} passed, ${counts.failed} failed`);
process.exit(counts.failed > 0 ? 1 : 0);
