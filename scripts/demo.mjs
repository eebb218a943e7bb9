// The demo `npm start` serves (scripts/start.mjs runs the setup first): packages the extension,
// lays out a workspace that needs nothing outside this repository, starts the scripted stand-in
// policy on 127.0.0.1 and code-server with the extension, and prints the address (Ctrl-C stops
// both). The workspace (demo.code-workspace) has two folders:
//   workbench/    trajectories recorded by this project (demo/trajectories), a bug to validate,
//                 a rollouts folder of a generated training run
//   sample-repo/  the sample repository with its history, the repository replays run on
// Options: --port N (code-server's port; default a free one), --keep (keep the demo folder),
// --smoke (open the demo in Chromium, step through a trajectory, stop, exit 0 when it worked).
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { register } from 'tsx/cjs/api';

register();
const require = createRequire(import.meta.url);
const { packageExtension, startCodeServer, removeHome } = require('../test/helpers/codeServer.ts');
const { layOutDemoWorkspace } = require('../test/helpers/demoWorkspace.ts');
const { PolicyServer } = require('./demo/policy/scriptedPolicyServer.ts');
const { DEMO_MODEL, demoReply } = require('./demo/ledgerDemo.ts');

const { values } = parseArgs({ options: { port: { type: 'string' }, keep: { type: 'boolean', default: false }, smoke: { type: 'boolean', default: false } } });
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error(`demo: --port must be a port number, got '${values.port}'`);
  process.exit(2);
}
const log = (message) => console.log(`demo: ${message}`);

/** Opens the demo in Chromium and steps through the recorded trajectory: what CI checks. */
async function smokeTest(server, workspaceFile, home) {
  const { launchBrowser } = require('../test/helpers/browser.ts');
  const { openFileInWebview } = require('../test/helpers/workbench.ts');
  const browser = await launchBrowser();
  try {
    const page = browser.page;
    await page.goto(`${server.url}/?workspace=${encodeURIComponent(workspaceFile)}`);
    log('smoke: opening trajectories/ledger-allocate.swe-agent.traj in the stepper');
    const stepper = await openFileInWebview(page, 'ledger-allocate.swe-agent.traj', '#step-title');
    const expectStep = async (n) => stepper.locator('#step-title', { hasText: `Step ${n} of 6` }).waitFor({ timeout: 30_000 });
    await expectStep(1);
    await stepper.locator('#timeline').focus();
    for (const n of [2, 3, 4, 5, 6]) {
      await page.keyboard.press('j');
      await expectStep(n);
      log(`smoke: step ${n} of 6: ${(await stepper.locator('#action-raw').textContent())?.trim().split('\n')[0]}`);
    }
    await page.screenshot({ path: join(home, 'smoke.png') });
  } catch (error) {
    await browser.page.screenshot({ path: join(home, 'smoke-failed.png') }).catch(() => {});
    throw error;
  } finally {
    await browser.close();
  }
}

const started = Date.now();
const home = mkdtempSync(join(tmpdir(), 'swe-workbench-demo-'));
let server;
let policy;
let stopping = false;
async function stop(code, signal) {
  if (stopping) return;
  stopping = true;
  if (signal) log(`${signal}: stopping code-server and the policy server`);
  await server?.stop();
  await policy?.close();
  if (!values.keep && code === 0) removeHome(home);
  else log(`demo folder kept at ${home}`);
  process.exit(code);
}
process.on('SIGINT', () => void stop(0, 'SIGINT'));
process.on('SIGTERM', () => void stop(0, 'SIGTERM'));

try {
  log('packaging the extension');
  const vsix = packageExtension(home);
  policy = await new PolicyServer((request) => demoReply(request), { models: [DEMO_MODEL] }).listen();
  log(`scripted stand-in policy (replies from a script, not a model) at ${policy.url}`);
  log('laying out the demo workspace');
  const workspaceFile = await layOutDemoWorkspace(home, policy.url);
  log('starting code-server');
  server = await startCodeServer({ home: join(home, 'code-server'), vsix, port, userSettings: { 'workbench.colorTheme': 'Dark 2026' } });
  const url = `${server.url}/?workspace=${encodeURIComponent(workspaceFile)}`;
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (values.smoke) {
    await smokeTest(server, workspaceFile, home);
    log(`smoke test passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await stop(0);
  }
  console.log(
    `\n  SWE Workbench: ${url}\n\n  Start with trajectories/ledger-allocate.swe-agent.traj; the README's "Demo" section walks through the rest.\n  code-server log: ${server.logFile}\n  Press Ctrl-C to stop.\n`,
  );
} catch (error) {
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  await stop(1);
}
setInterval(() => {}, 1 << 30);
