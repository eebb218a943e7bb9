import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The checkout: found upwards from here, since tests also run bundled from dist/test. */
function findRepoRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir)) if (existsSync(path.join(dir, 'scripts/setup-code-server.sh'))) return dir;
  throw new Error(`no checkout above ${from}`);
}

export const repoRoot = findRepoRoot(__dirname);

/** Runs the setup script (a no-op once installed) and returns the code-server launcher. */
export function codeServerLauncher(): string {
  const r = spawnSync('bash', [path.join(repoRoot, 'scripts/setup-code-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const launcher = r.stdout.trim().split('\n').pop();
  if (r.status !== 0 || !launcher) throw new Error(`scripts/setup-code-server.sh failed with ${r.status ?? r.signal}`);
  return launcher;
}

function run(command: string, args: string[], cwd = repoRoot): void {
  const r = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed with ${r.status ?? r.signal}`);
}

/** Builds the bundles; `production` minifies them as a packaged extension ships them. */
export function buildExtension(mode: 'development' | 'production' = 'development'): void {
  run(process.execPath, [path.join(repoRoot, 'scripts/build.mjs'), ...(mode === 'production' ? ['--production'] : [])]);
}

/** Packages the extension as users get it and returns the .vsix path. */
export function packageExtension(outDir: string): string {
  const vsix = path.join(outDir, 'swe-workbench.vsix');
  // The Extensions view shows docs/extension.md: the README is the repository's front page, and its
  // relative image would be broken inside VS Code (vsce refuses to package it). package.json's
  // `package` script passes the same --readme-path.
  run(process.execPath, [
    path.join(repoRoot, 'node_modules/@vscode/vsce/vsce'),
    'package',
    '--no-dependencies',
    '--readme-path',
    'docs/extension.md',
    '--out',
    vsix,
  ]);
  return vsix;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface CodeServerOptions {
  /** Extra `--vscode-option` values, e.g. `enable-smoke-test-driver`. */
  readonly vscodeOptions?: readonly string[];
  readonly vsix?: string;
  readonly userSettings?: Record<string, unknown>;
  /** Where its folders go; a fresh temporary folder when absent. */
  readonly home?: string;
  /** A fixed port on 127.0.0.1; a free one when absent. */
  readonly port?: number;
}

export interface CodeServer {
  readonly url: string;
  readonly port: number;
  readonly home: string;
  readonly userSettingsFile: string;
  readonly logFile: string;
  stop(): Promise<void>;
}

export const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
};

async function waitForHealth(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited with ${child.exitCode}; see ${logFile}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url}/healthz within 90 s; see ${logFile}`);
}

/** Kills a process group: code-server's children outlive the launcher otherwise. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

export async function startCodeServer(options: CodeServerOptions = {}): Promise<CodeServer> {
  const launcher = codeServerLauncher();
  const home = options.home ?? mkdtempSync(path.join(tmpdir(), 'swe-workbench-code-server-'));
  const dir = (name: string) => {
    const p = path.join(home, name);
    mkdirSync(p, { recursive: true });
    return p;
  };
  const [userData, extensions, config, data, tmp] = ['user-data', 'extensions', 'config', 'data', 'tmp'].map(dir) as [string, string, string, string, string];
  const env = { ...process.env, XDG_CONFIG_HOME: config, XDG_DATA_HOME: data, TMPDIR: tmp };
  const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
  const userSettingsFile = path.join(userData, 'User', 'settings.json');
  mkdirSync(path.dirname(userSettingsFile), { recursive: true });
  writeFileSync(userSettingsFile, JSON.stringify({ ...QUIET_SETTINGS, ...options.userSettings }, null, 2));
  if (options.vsix) {
    const r = spawnSync(launcher, [...common, '--install-extension', options.vsix, '--force'], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`installing ${options.vsix} failed: ${r.stderr}`);
  }
  const port = options.port ?? (await freePort());
  const configFile = path.join(config, 'code-server.yaml');
  writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const logFile = path.join(home, 'code-server.log');
  const log = openSync(logFile, 'a');
  const flags = [
    ...common,
    '--config',
    configFile,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    ...(options.vscodeOptions ?? []).flatMap((o) => ['--vscode-option', o]),
  ];
  const child = spawn('setsid', [launcher, ...flags], { env, stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    killGroup(child, 'SIGTERM');
    const exited =
      child.exitCode !== null ||
      (await Promise.race([new Promise<boolean>((r) => child.once('exit', () => r(true))), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]));
    if (!exited) killGroup(child, 'SIGKILL');
    killGroup(child, 'SIGKILL');
  };
  try {
    await waitForHealth(url, child, logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, home, userSettingsFile, logFile, stop };
}

/** A workspace folder holding copies of the given files (by name), for a run to open. */
/** A workspace folder holding `files` (name to source); a file whose source is undefined is left out. */
export function makeWorkspace(home: string, files: Readonly<Record<string, string | undefined>>): string {
  const folder = path.join(home, 'workspace');
  mkdirSync(folder, { recursive: true });
  for (const [name, source] of Object.entries(files)) if (source !== undefined) cpSync(source, path.join(folder, name), { recursive: true });
  return folder;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}
