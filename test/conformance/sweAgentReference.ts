/**
 * SWE-agent's own tools (`../shared/oracles/swe-agent/<version>/tools`), installed in a container
 * the way SWE-agent 1.x installs a bundle: the bundle folder at `/root/tools/<name>`, its `bin/`
 * put first on PATH, its `install.sh` sourced from inside it, the tools' environment variables
 * exported, the registry file `/root/.swe-agent-env` and `/root/state.json` written; after each
 * action every bundle's state command runs and `/root/state.json` is read, as the agent does.
 * The code is run in place, never copied into this repository.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { SweAgentVersion } from '../../extension/core/scaffolds/swe-agent/tools/sweAgentVersion';
import type { Mount, Sandbox } from '../../extension/core/runtime/sandbox';
import { needsShared } from '../helpers/sharedFolder';

/** The reference tools (`../shared/oracles`, or `$SWE_WORKBENCH_ORACLES`): their skip reason when absent, and paths inside. */
export const oracles = needsShared('oracles');
import { startConformanceSandbox, type CallOutcome } from './harness';

/** Folders of `../shared/oracles/swe-agent` holding a 1.x `tools/` tree. */
export type SweAgentOracle = 'v1.0.1' | 'v1.1.0' | '3ea751c0';

export const SWE_AGENT_ORACLES = 'swe-agent';

/** The version each oracle folder is, as our tools take it. */
export const ORACLE_VERSIONS: Record<SweAgentOracle, SweAgentVersion> = { 'v1.0.1': '1.0.1', 'v1.1.0': '1.1.0', '3ea751c0': '3ea751c0' };

const RETRY_WITH_OUTPUT_TOKEN = '###SWE-AGENT-RETRY-WITH-OUTPUT###';

export function bundleFolder(oracle: SweAgentOracle, bundle: string): string {
  return oracles.path(SWE_AGENT_ORACLES, oracle, 'tools', bundle);
}

/** `state_command` and the `end_name` of each multi-line tool, read from a bundle's config.yaml. */
function bundleConfig(folder: string): { stateCommand?: string; endNames: Map<string, string> } {
  const text = readFileSync(path.join(folder, 'config.yaml'), 'utf8');
  const state = /^state_command:\s*"?([^"\n]+)"?\s*$/m.exec(text)?.[1];
  const endNames = new Map<string, string>();
  let tool: string | undefined;
  for (const line of text.split('\n')) {
    const header = /^ {2}(\w+):\s*$/.exec(line);
    if (header) tool = header[1];
    const end = /^ {4}end_name:\s*"?([^"\n]+)"?\s*$/.exec(line);
    if (end && tool) endNames.set(tool, end[1] as string);
  }
  return { ...(state ? { stateCommand: state } : {}), endNames };
}

export interface SweAgentReferenceOptions {
  oracle: SweAgentOracle;
  /** Bundle folder names in the order of the agent's config, e.g. `registry`, `windowed`. */
  bundles: readonly string[];
  repoDir: string;
  repoPath: string;
  /** SWE-agent 1.x runs its shell under a pseudo-terminal (SWE-ReX). */
  tty: boolean;
  envVariables?: Record<string, string | number>;
  registryVariables?: Record<string, unknown>;
}

/** Where SWE-agent's registry keeps the tools' variables (`SWE_AGENT_ENV_FILE` moves it). */
const DEFAULT_ENV_FILE = '/root/.swe-agent-env';

export interface SweAgentInstallOptions {
  oracle: SweAgentOracle;
  bundles: readonly string[];
  repoPath: string;
  envVariables?: Record<string, string | number>;
  registryVariables?: Record<string, unknown>;
  /** Default `/root/tools`, where SWE-agent puts them; another folder lets two versions share a container. */
  toolsDir?: string;
  /** Default `/root/.swe-agent-env`; another file (set as `SWE_AGENT_ENV_FILE`) keeps a second version's registry apart. */
  envFile?: string;
}

export class SweAgentReference {
  private constructor(
    readonly sandbox: Sandbox,
    private readonly stateCommands: string[],
    private readonly endNames: Map<string, string>,
  ) {}

  static async start(options: SweAgentReferenceOptions): Promise<SweAgentReference> {
    for (const bundle of options.bundles)
      if (!existsSync(bundleFolder(options.oracle, bundle))) throw new Error(`no reference bundle at ${bundleFolder(options.oracle, bundle)}`);
    const sandbox = await startConformanceSandbox({ repoDir: options.repoDir, repoPath: options.repoPath, tty: options.tty });
    try {
      return await SweAgentReference.install(sandbox, options);
    } catch (err) {
      await sandbox.dispose();
      throw err;
    }
  }

  /**
   * Installs the bundles in `sandbox`'s shell (a fresh one: the shell keeps the PATH, variables
   * and functions the bundles set). The reference owns the sandbox from then on (`dispose`).
   */
  static async install(sandbox: Sandbox, options: SweAgentInstallOptions): Promise<SweAgentReference> {
    const configs = options.bundles.map((b) => ({ bundle: b, folder: bundleFolder(options.oracle, b) }));
    for (const { folder } of configs) if (!existsSync(folder)) throw new Error(`no reference bundle at ${folder}`);
    const toolsDir = options.toolsDir ?? '/root/tools';
    const must = async (command: string) => {
      const r = await sandbox.exec(command, { timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new Error(`installing the reference tools: \`${command.slice(0, 200)}\` exited ${r.exitCode}: ${r.output.slice(-500)}`);
    };
    // The tools' shebangs ask for `python` (SWE-bench images have it); the base image has python3.
    await must('command -v python >/dev/null || ln -s "$(command -v python3)" /usr/local/bin/python');
    const envFile = options.envFile ?? DEFAULT_ENV_FILE;
    const env = { WINDOW: 100, OVERLAP: 2, ...options.envVariables, ...(envFile !== DEFAULT_ENV_FILE ? { SWE_AGENT_ENV_FILE: envFile } : {}) };
    await must(
      `export ${Object.entries(env)
        .map(([k, v]) => `${k}=${JSON.stringify(String(v))}`)
        .join(' ')}`,
    );
    for (const { bundle, folder } of configs) await sandbox.copyIn(folder, `${toolsDir}/${bundle}`);
    // Offline, `pip install` in install.sh cannot run: what it installs is in the image (flake8)
    // or only needed by tools these tests do not call (tree-sitter for filemap).
    await must('pip() { :; }');
    for (const { bundle, folder } of configs) {
      const dir = `${toolsDir}/${bundle}`;
      const steps = [`export PATH=${dir}/bin:$PATH`, `chmod +x ${dir}/bin/*`];
      if (existsSync(path.join(folder, 'install.sh'))) steps.push(`cd ${dir} && source install.sh`);
      await must(steps.join(' && '));
    }
    await must('unset -f pip');
    await sandbox.writeFile(envFile, JSON.stringify(options.registryVariables ?? {}));
    await sandbox.writeFile('/root/state.json', '{}');
    await must(`cd ${options.repoPath}`);
    const parsed = configs.map(({ folder }) => bundleConfig(folder));
    const endNames = new Map(parsed.flatMap((c) => [...c.endNames]));
    return new SweAgentReference(
      sandbox,
      parsed.flatMap((c) => (c.stateCommand ? [c.stateCommand] : [])),
      endNames,
    );
  }

  /**
   * SWE-agent's guard for multi-line commands: the first line of a tool with an `end_name` gets
   * `<< '<end_name>'`, so the body reaches the tool on stdin as a heredoc.
   */
  asSent(action: string): string {
    const name = /^\S+/.exec(action)?.[0] ?? '';
    const end = this.endNames.get(name);
    if (!end || !action.includes('\n')) return action;
    const newline = action.indexOf('\n');
    return `${action.slice(0, newline)} << '${end}'${action.slice(newline)}`;
  }

  /**
   * Runs one action as the agent sends it. The observation is what SWE-agent's agent keeps: the
   * runtime's output without trailing whitespace, and without the retry token a refused edit
   * prints (the agent removes it and asks the model again with the rest).
   */
  async call(action: string): Promise<CallOutcome> {
    const run = await this.sandbox.exec(this.asSent(action), { timeoutMs: 60_000 });
    const observation = run.output.replace(RETRY_WITH_OUTPUT_TOKEN, '').trimEnd();
    return { observation, exitCode: run.exitCode, state: await this.state() };
  }

  /** The bundles' state commands, then `/root/state.json`, with "n/a" read as no open file. */
  async state(): Promise<Record<string, unknown>> {
    for (const command of this.stateCommands) await this.sandbox.exec(command, { timeoutMs: 30_000 });
    const raw = JSON.parse(await this.sandbox.readFile('/root/state.json')) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, k === 'open_file' && v === 'n/a' ? null : v]));
  }

  dispose(): Promise<void> {
    return this.sandbox.dispose();
  }
}

/** Folders of `../shared/oracles/swe-agent` holding a 0.x `config/commands`. */
export type SweAgent0xOracle = 'v0.7.0' | 'v0.2.0';

/**
 * SWE-agent 0.x's commands (`../shared/oracles/swe-agent/v0.7.0/config/commands`, or v0.2.0's) as
 * 0.x installs them: the folder at `/root/commands` on PATH, every `.sh` file sourced into the one
 * shell, each `.py` helper executable without its extension, the window variables exported; no
 * terminal. Its functions need jq, which the base image lacks: the host's (same Debian release) is bound in.
 */
export class SweAgent07Reference {
  private constructor(readonly sandbox: Sandbox) {}

  static readonly COMMAND_FILES = ['defaults.sh', 'search.sh', 'edit_linting.sh', 'submit.sh', '_split_string.py'];
  /** 0.2 kept `submit` in defaults.sh. */
  static readonly COMMAND_FILES_0_2 = ['defaults.sh', 'search.sh', 'edit_linting.sh', '_split_string.py'];

  /** The host's jq and its libraries, or why they cannot be bound in. */
  static jqMounts(): Mount[] | string {
    const files = ['/usr/bin/jq', '/lib/x86_64-linux-gnu/libjq.so.1', '/lib/x86_64-linux-gnu/libonig.so.5'];
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length > 0) return `needs jq on the host for SWE-agent 0.7's commands (missing ${missing.join(', ')})`;
    return files.map((f) => ({ hostPath: realpathSync(f), containerPath: f, readOnly: true }));
  }

  static async start(options: { repoDir: string; repoPath: string; oracle?: SweAgent0xOracle }): Promise<SweAgent07Reference> {
    const mounts = SweAgent07Reference.jqMounts();
    if (typeof mounts === 'string') throw new Error(mounts);
    const sandbox = await startConformanceSandbox({ repoDir: options.repoDir, repoPath: options.repoPath, tty: false, mounts });
    try {
      return await SweAgent07Reference.install(sandbox, options.repoPath, options.oracle);
    } catch (err) {
      await sandbox.dispose();
      throw err;
    }
  }

  /**
   * Installs the commands in `sandbox`'s shell (one without a terminal, in a container with
   * `jqMounts()` bound in); the reference owns the sandbox from then on.
   */
  static async install(sandbox: Sandbox, repoPath: string, oracle: SweAgent0xOracle = 'v0.7.0'): Promise<SweAgent07Reference> {
    const folder = oracles.path(SWE_AGENT_ORACLES, `${oracle}/config/commands`);
    const must = async (command: string) => {
      const r = await sandbox.exec(command, { timeoutMs: 60_000 });
      if (r.exitCode !== 0) throw new Error(`installing SWE-agent ${oracle}'s commands: \`${command}\` exited ${r.exitCode}: ${r.output.slice(-500)}`);
    };
    const files = oracle === 'v0.2.0' ? SweAgent07Reference.COMMAND_FILES_0_2 : SweAgent07Reference.COMMAND_FILES;
    for (const name of files) await sandbox.copyIn(path.join(folder, name), `/root/commands/${name}`);
    await must("export WINDOW=100 OVERLAP=2 CURRENT_LINE=0 CURRENT_FILE='' SEARCH_RESULTS='()' SEARCH_FILES='()' SEARCH_INDEX=0 ROOT=" + repoPath);
    await must('export PATH=/root/commands:$PATH && cp /root/commands/_split_string.py /root/commands/_split_string && chmod +x /root/commands/_split_string');
    for (const name of files.filter((n) => n.endsWith('.sh'))) await must(`source /root/commands/${name}`);
    await must(`cd ${repoPath}`);
    return new SweAgent07Reference(sandbox);
  }

  /** 0.7 sent a multi-line command's body on stdin after `<< 'end_of_edit'`, and kept the output as printed. */
  async call(action: string): Promise<CallOutcome> {
    const newline = action.indexOf('\n');
    const sent = action.startsWith('edit ') && newline > 0 ? `${action.slice(0, newline)} << 'end_of_edit'${action.slice(newline)}` : action;
    const run = await this.sandbox.exec(sent, { timeoutMs: 60_000 });
    const state = await this.sandbox.exec('printf \'%s\\n%s\\n\' "${CURRENT_FILE:-}" "$PWD"', { timeoutMs: 10_000 });
    const [openFile, workingDir] = state.output.split('\n');
    // 0.7's env (`get_submission`) takes what `submit` printed between its markers as the
    // observation, and the episode ends. Its `model.patch`, left in $ROOT where no later action
    // can see it, is taken out so the final trees compare the edits alone.
    const submission = /<<SUBMISSION\|\|(.*)\|\|SUBMISSION>>/s.exec(run.output);
    if (submission) await this.sandbox.exec('rm -f "$ROOT/model.patch"', { timeoutMs: 10_000 });
    const observation = submission ? submission[1]! : run.output;
    return { observation, exitCode: run.exitCode, state: { open_file: openFile ? openFile : null, working_dir: workingDir } };
  }

  dispose(): Promise<void> {
    return this.sandbox.dispose();
  }
}
