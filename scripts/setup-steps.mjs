// The setup steps, written once and shared by `npm start` (scripts/start.mjs) and
// `bash scripts/setup.sh` (scripts/setup.mjs). Node built-ins only: this runs on a bare clone,
// before node_modules exists. Each step is skipped when its result is already there, prints its
// progress, and when it cannot be done says what is missing, why it is needed and the command
// that fixes it.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** The oldest Node the project supports (openai@7 declares >= 22; Node 20 reached end of life in April 2026). */
export const MIN_NODE_MAJOR = 22;
export const TOOLS = process.env.SWE_WORKBENCH_TOOLS || '/var/cache/swe-workbench/tools';

export class SetupError extends Error {
  constructor(what, why, fix) {
    super(`${what}\n  why: ${why}\n  fix: ${fix}`);
    this.what = what;
    this.why = why;
    this.fix = fix;
  }
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The environment for a nested npm: without the npm_* variables `npm start` sets (code-server's
 * postinstall reads the Node version from npm_config_user_agent, which would name ours). */
export function cleanNpmEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

function run(command, args, options = {}) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', env: cleanNpmEnv(), ...options });
}

function log(message) {
  console.log(`setup: ${message}`);
}

function timed(name, fn) {
  const started = Date.now();
  log(`${name}...`);
  const result = fn();
  log(`${name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

const dpkgInstalled = (pkg) => spawnSync('dpkg', ['-s', pkg], { stdio: 'ignore' }).status === 0;

/** Debian packages, each with what needs it. */
export const PACKAGES = {
  git: 'the demo and the tests lay out the sample repository with its history',
  'libkrb5-dev': "code-server's native modules build against it",
  'docker.io': 'replay, live runs, forks and bug checks run in Docker containers',
  debootstrap: "the offline base image is built from Debian's archive",
  chromium: 'the smoke test and the end-to-end tests drive VS Code in it',
  ripgrep: "the agent's search tools use it inside containers and on this machine",
  flake8: "SWE-agent's linted edit runs it",
  'python3-pytest': "the sample repository's tests",
  zstd: 'the tests write .zst trajectories, as training runs store them',
  time: 'the hostile-input tests measure peak memory with GNU time',
  jq: "the SWE-agent 0.7 conformance tests bind the host's jq into the container, as 0.7's tools need it",
};

export function ensurePackages(names, { required = true } = {}) {
  const missing = names.filter((p) => !dpkgInstalled(p));
  if (missing.length === 0) return true;
  const fix = `${isRoot ? '' : 'sudo '}apt-get update && ${isRoot ? '' : 'sudo '}apt-get install -y ${missing.join(' ')}`;
  if (!isRoot) {
    const why = missing.map((p) => `${p}: ${PACKAGES[p] ?? 'needed'}`).join('; ');
    if (required) throw new SetupError(`missing Debian packages: ${missing.join(', ')}`, why, fix);
    log(`skipped: ${missing.join(', ')} not installed and not root (${why}); fix: ${fix}`);
    return false;
  }
  return timed(`apt-get install ${missing.join(' ')}`, () => {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['update', '-qq'], { env }).status !== 0 || run('apt-get', ['install', '-y', '-qq', ...missing], { env }).status !== 0) {
      if (required) throw new SetupError(`apt-get could not install ${missing.join(', ')}`, 'the Debian archive must be reachable', fix);
      return false;
    }
    return true;
  });
}

/** A Docker engine that answers; started (without systemd) when installed but not running. */
export function ensureDocker({ required = true } = {}) {
  const answers = () => spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { stdio: 'ignore' }).status === 0;
  if (answers()) return true;
  if (!isRoot && !required) {
    log('skipped: no Docker engine answers (replay, live runs and bug checks need one); fix: sudo bash scripts/start-docker.sh');
    return false;
  }
  const r = timed('starting a Docker engine', () => run('bash', [join(root, 'scripts/start-docker.sh')]));
  if (r.status === 0) return true;
  const error = new SetupError(
    'no Docker engine answers',
    'replay, live runs, forks and bug checks run in containers',
    'sudo bash scripts/start-docker.sh (log: /var/lib/swe-workbench/dockerd.log)',
  );
  if (required) throw error;
  log(`skipped: ${error.message}`);
  return false;
}

/**
 * The two-node Slurm cluster on this host that the `--scheduler slurm` tests submit to (munged,
 * slurmctld, `slurmd -N n1` and `-N n2`), installed and started by scripts/slurm/start.sh;
 * .ci/run stops it after the tests (scripts/slurm/stop.sh).
 */
export function ensureSlurm({ required = true } = {}) {
  if (!isRoot && !required) {
    log('skipped: the Slurm test cluster (the --scheduler slurm tests need it); fix: sudo bash scripts/slurm/start.sh');
    return false;
  }
  const r = timed('starting the two-node Slurm cluster', () => run('bash', [join(root, 'scripts/slurm/start.sh')]));
  if (r.status === 0) return true;
  const error = new SetupError(
    'the Slurm test cluster did not start',
    'the --scheduler slurm tests submit job arrays to it',
    'sudo bash scripts/slurm/start.sh (logs: /var/lib/swe-workbench/slurm/log)',
  );
  if (required) throw error;
  log(`skipped: ${error.message}`);
  return false;
}

/** node_modules as the lockfile says, installed when missing or older than the lockfile. */
export function ensureNodeModules() {
  const marker = join(root, 'node_modules/.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(join(root, 'package-lock.json')).mtimeMs) return;
  timed('npm ci (the node modules)', () => {
    if (run('npm', ['ci', '--no-audit', '--no-fund']).status !== 0) {
      throw new SetupError(
        'npm ci failed',
        'the extension, its build and its tests need the node modules',
        'check that the npm registry is reachable (npm ping), then run npm ci',
      );
    }
  });
}

export function build({ production = false } = {}) {
  timed(`building the bundles${production ? ' (production)' : ''}`, () => {
    if (run(process.execPath, [join(root, 'scripts/build.mjs'), ...(production ? ['--production'] : [])]).status !== 0) {
      throw new SetupError('the build failed', 'the extension and the CLI are bundles in dist/', 'npm run build (its errors are printed above)');
    }
  });
}

/** The offline base image swe-workbench/base:bookworm and, from it, the R2E-Gym image swe-workbench/r2e:bookworm (needs Docker and debootstrap). */
export function ensureBaseImage({ required = true } = {}) {
  const r = timed('the base and R2E-Gym images swe-workbench/base:bookworm, swe-workbench/r2e:bookworm', () =>
    run(process.execPath, [join(root, 'dist/cli.js'), 'image', 'build']),
  );
  if (r.status === 0) return true;
  const error = new SetupError(
    'the base image could not be built',
    "the demo's replays and the tests run in it",
    `${isRoot ? '' : 'sudo '}node dist/cli.js image build (needs Docker and debootstrap)`,
  );
  if (required) throw error;
  log(`skipped: ${error.message}`);
  return false;
}

/** code-server with its own Node 24, from the npm registry; returns the launcher path. */
export function ensureCodeServer() {
  return timed('code-server and its Node 24', () => {
    const r = spawnSync('bash', [join(root, 'scripts/setup-code-server.sh')], {
      cwd: root,
      env: cleanNpmEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    const launcher = r.stdout?.trim().split('\n').pop();
    if (r.status !== 0 || !launcher) {
      throw new SetupError(
        'code-server could not be installed',
        'the demo and the VS Code tests run VS Code as code-server',
        `bash scripts/setup-code-server.sh (installs into ${TOOLS}, which must be writable: set SWE_WORKBENCH_TOOLS to another folder otherwise; needs the npm registry and libkrb5-dev)`,
      );
    }
    return launcher;
  });
}

/**
 * A Node this project supports: this one when it is 22 or later, else Node 24 from the npm
 * registry (the one code-server uses, in the tools folder). Returns the node binary to use.
 */
export function supportedNode() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return process.execPath;
  log(
    `Node ${process.versions.node} is older than ${MIN_NODE_MAJOR} (Node 20 reached end of life in April 2026; openai@7 needs ${MIN_NODE_MAJOR}+): using Node 24 from ${TOOLS}`,
  );
  const r = spawnSync('bash', [join(root, 'scripts/setup-code-server.sh'), '--node-only'], {
    cwd: root,
    env: cleanNpmEnv(),
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  const node = r.stdout?.trim().split('\n').pop();
  if (r.status !== 0 || !node || !existsSync(node)) {
    throw new SetupError(
      `Node ${process.versions.node} is not supported and Node 24 could not be installed`,
      `the project needs Node ${MIN_NODE_MAJOR} or later`,
      `install Node 22 or 24, or check that the npm registry is reachable and run bash scripts/setup-code-server.sh --node-only`,
    );
  }
  return node;
}

/**
 * Runs this script again under a supported Node when the current one is older (PATH puts that
 * Node first, so nested `node` and `npm` use it too). Returns only when already supported.
 */
export function reexecOnSupportedNode() {
  const node = supportedNode();
  if (node === process.execPath) return;
  const bin = join(node, '..');
  const r = spawnSync(node, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
  });
  process.exit(r.status ?? 1);
}

/** Runs `fn`; a SetupError is printed as what / why / fix and exits 1, never as a stack trace. */
export async function reportingSetupErrors(fn) {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof SetupError)) throw error;
    console.error(`\nsetup: ${error.message}`);
    process.exit(1);
  }
}
