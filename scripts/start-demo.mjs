// `npm start`: builds and packages the extension, installs code-server when missing, lays out a
// demo workspace (the sample repository with its git history, recorded trajectories, a bug
// artifact) and serves VS Code on 127.0.0.1 with the extension installed. Ctrl-C stops it.
// Options: --port N (default: a free port), --keep (keep the demo folder on exit).
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { register } from 'tsx/cjs/api';

register();
const require = createRequire(import.meta.url);
const { buildExtension, packageExtension, startCodeServer, removeHome, repoRoot } = require('../test/helpers/codeServer.ts');
const { materializeSampleRepo } = require('../test/helpers/sampleRepo.ts');

const { values } = parseArgs({ options: { port: { type: 'string' }, keep: { type: 'boolean', default: false } } });
const port = values.port === undefined ? undefined : Number(values.port);
if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
  console.error(`start-demo: --port must be a port number, got '${values.port}'`);
  process.exit(2);
}

function layOutWorkspace(home) {
  const workspace = join(home, 'swe-workbench-demo');
  const trajectories = join(workspace, 'trajectories');
  mkdirSync(trajectories, { recursive: true });
  const thirdParty = join(repoRoot, '../shared/fixtures/third-party');
  for (const [name, source] of [
    ['marshmallow-1867.windowed.traj', 'swe-agent/marshmallow-1867.windowed.traj'],
    ['marshmallow-1867.function_calling.traj', 'swe-agent/marshmallow-1867.function_calling.traj'],
    ['pandas-pr_53856.traj', 'swe-smith/pandas-dev__pandas.95280573.pr_53856.traj'],
    ['openhands-basic.json', 'openhands/basic.json'],
    ['mini-swe-agent-github_issue.traj.json', 'mini-swe-agent/github_issue.traj.json'],
  ]) {
    cpSync(join(thirdParty, source), join(trajectories, name));
  }
  cpSync(join(repoRoot, 'test/fixtures/trajectories'), trajectories, { recursive: true, filter: (p) => !p.includes('/malformed') });
  cpSync(join(repoRoot, 'test/fixtures/bugs/valid-allocate-and-close'), join(workspace, 'bugs/valid-allocate-and-close'), { recursive: true });
  return workspace;
}

const started = Date.now();
console.log('start-demo: building and packaging the extension');
buildExtension('production');
const home = mkdtempSync(join(tmpdir(), 'swe-workbench-demo-'));
const vsix = packageExtension(home);
const workspace = layOutWorkspace(home);
await materializeSampleRepo(join(workspace, 'sample-repo'));
const server = await startCodeServer({ home, vsix, port, userSettings: { 'workbench.colorTheme': 'Dark 2026' } });

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\nstart-demo: ${signal}, stopping code-server`);
  await server.stop();
  if (!values.keep) removeHome(home);
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
console.log(`start-demo: ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`\n  SWE Workbench: ${url}\n\n  Open trajectories/marshmallow-1867.windowed.traj to step through a recorded run.\n  code-server log: ${server.logFile}\n  Press Ctrl-C to stop.\n`);
setInterval(() => {}, 1 << 30);
