// `npm start` on a bare clone: the setup steps first (Node built-ins only, so nothing from
// node_modules is imported before it exists), then the demo (scripts/demo.mjs). Each step prints
// its progress; anything missing is named with why it is needed and the command that fixes it.
// Docker is optional here: without it the demo opens, but replays and forks cannot run.
// Options are passed on to the demo: --port N, --keep, --smoke.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  build,
  cleanNpmEnv,
  ensureBaseImage,
  ensureCodeServer,
  ensureDocker,
  ensureNodeModules,
  ensurePackages,
  reexecOnSupportedNode,
  reportingSetupErrors,
  root,
} from './setup-steps.mjs';

const args = process.argv.slice(2);
const smoke = args.includes('--smoke');
const started = Date.now();

await reportingSetupErrors(() => {
  ensurePackages(['git', 'libkrb5-dev', ...(smoke ? ['chromium'] : [])]);
  ensurePackages(['docker.io', 'debootstrap', 'ripgrep', 'flake8', 'python3-pytest'], { required: false });
  reexecOnSupportedNode();
  ensureNodeModules();
  build({ production: true });
  if (ensureDocker({ required: false })) ensureBaseImage({ required: false });
  ensureCodeServer();
});
console.log(`start: set up in ${((Date.now() - started) / 1000).toFixed(1)} s; starting the demo`);

const demo = spawn(process.execPath, [join(root, 'scripts/demo.mjs'), ...args], { stdio: 'inherit', env: cleanNpmEnv() });
// Ctrl-C reaches the demo too (same process group); it stops code-server and exits.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => demo.kill(signal));
demo.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
