/**
 * `swe-workbench doctor` and "SWE Workbench: Check Setup": what the workbench needs on this
 * machine, checked for real (the Docker engine answers, the image is there, the policy server
 * lists the model...), each problem with the command that fixes it. The CLI and the VS Code
 * command only gather options and print the results.
 */
import { existsSync, readFileSync } from 'node:fs';
import { stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { locatePyright, pyrightFolder } from '../aci/lspServer';
import { PolicyClient } from '../policy/policyClient';
import { DEFAULT_BASE_IMAGE } from '../runtime/baseImage';
import { connectDocker, describeDockerHost, type DockerConnectionOptions } from '../runtime/dockerConnection';
import { errorText } from '../errors';

type CheckStatus = 'ok' | 'warn' | 'fail' | 'skipped';

export interface CheckResult {
  id: 'docker' | 'image' | 'code-server' | 'pyright' | 'policy' | 'disk';
  title: string;
  status: CheckStatus;
  /** What was found, or what is wrong. */
  detail: string;
  /** The command or setting that fixes it (problems only). */
  fix?: string;
  /** A failed required check makes the setup unusable (the CLI exits 1). */
  required: boolean;
}

/** The oldest engine API the workbench is tested against (Debian 12's docker.io 20.10). */
const MIN_DOCKER_API = '1.41';
/** @internal */
export const CODE_SERVER_VERSION = '4.139.1';
export const DEFAULT_TOOLS_DIR = '/var/cache/swe-workbench/tools';
const GIB = 1024 ** 3;

export interface DoctorOptions {
  docker?: DockerConnectionOptions;
  /** The task image replays run in; default the offline base image. */
  image?: string;
  policyUrl?: string;
  model?: string;
  apiKey?: string;
  /** Where setup put code-server ($SWE_WORKBENCH_TOOLS). */
  toolsDir?: string;
  /**
   * Paths inside the code-server this runs in, if any (the window's app root, a terminal's PATH
   * entries): the demo may run one from another tools folder than `toolsDir`.
   */
  runningFrom?: readonly string[];
  /** Folders whose free space matters (the Docker root is added when the engine is local). */
  diskPaths?: string[];
  /** Below this many bytes free a disk check fails; below four times it warns. Default 2 GiB. */
  minFreeBytes?: number;
  /** Per network check (engine, policy server). Default 5 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Compares dotted versions numerically: -1, 0 or 1. @internal */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface EngineFacts {
  rootDir?: string;
}

async function checkDocker(options: DoctorOptions, timeoutMs: number): Promise<{ results: CheckResult[]; engine?: EngineFacts }> {
  const host = describeDockerHost(options.docker ?? {});
  const docker = connectDocker(options.docker ?? {});
  const image = options.image || DEFAULT_BASE_IMAGE;
  let version: { Version?: string; ApiVersion?: string };
  try {
    version = await withTimeout(docker.version(), timeoutMs, `the Docker engine at ${host}`);
  } catch (err) {
    return {
      results: [
        {
          id: 'docker',
          title: 'Docker engine',
          status: 'fail',
          required: true,
          detail: `no engine answers at ${host}: ${errorText(err)}`,
          fix: 'start one: sudo bash scripts/start-docker.sh (installs docker.io when missing), or point sweWorkbench.docker.host / --docker-host / DOCKER_HOST at a running engine',
        },
        { id: 'image', title: `image ${image}`, status: 'skipped', required: true, detail: 'needs the Docker engine' },
      ],
    };
  }
  const api = version.ApiVersion ?? '0';
  const engine: CheckResult =
    compareVersions(api, MIN_DOCKER_API) >= 0
      ? { id: 'docker', title: 'Docker engine', status: 'ok', required: true, detail: `Docker ${version.Version ?? '?'} (API ${api}) at ${host}` }
      : {
          id: 'docker',
          title: 'Docker engine',
          status: 'fail',
          required: true,
          detail: `Docker ${version.Version ?? '?'} speaks API ${api}; the workbench needs ${MIN_DOCKER_API} or later`,
          fix: 'upgrade the engine: apt-get install -y docker.io (Debian 12 ships 20.10, API 1.41)',
        };
  let imageResult: CheckResult;
  try {
    const info = await withTimeout(docker.getImage(image).inspect(), timeoutMs, `the Docker engine at ${host}`);
    imageResult = {
      id: 'image',
      title: `image ${image}`,
      status: 'ok',
      required: true,
      detail: `${info.Id.slice(0, 19)}, ${(info.Size / 1024 ** 2).toFixed(0)} MB`,
    };
  } catch (err) {
    const missing = (err as { statusCode?: number }).statusCode === 404;
    imageResult = {
      id: 'image',
      title: `image ${image}`,
      status: 'fail',
      required: true,
      detail: missing ? 'not in the engine' : errorText(err),
      fix:
        image === DEFAULT_BASE_IMAGE
          ? "swe-workbench image build (as root; builds it offline from Debian's archive with debootstrap)"
          : `docker pull ${image}, or set sweWorkbench.docker.image / --image to an image the engine has`,
    };
  }
  let rootDir: string | undefined;
  try {
    const info = (await withTimeout(docker.info(), timeoutMs, 'docker info')) as { DockerRootDir?: string };
    rootDir = info.DockerRootDir;
  } catch {
    // only used for the disk check
  }
  return { results: [engine, imageResult], engine: { ...(rootDir ? { rootDir } : {}) } };
}

/** The complete code-server install (`<tools>/code-server-<version>`) one of `paths` lies in. */
function codeServerInstallOf(paths: readonly string[]): string | undefined {
  for (const p of paths) {
    if (!path.isAbsolute(p)) continue;
    for (let dir = p; dir !== path.dirname(dir); dir = path.dirname(dir))
      if (/^code-server-\d+\.\d+\.\d+$/.test(path.basename(dir)) && existsSync(path.join(dir, '.complete'))) return dir;
  }
  return undefined;
}

/** code-server as setup installs it: needed by the demo and the VS Code test suites, not by VS Code users. @internal */
export function checkCodeServer(toolsDir: string, runningFrom: readonly string[] = []): CheckResult {
  const folder = path.join(toolsDir, `code-server-${CODE_SERVER_VERSION}`);
  const launcher = path.join(toolsDir, 'code-server');
  const title = 'code-server (demo and VS Code tests)';
  const fix = `bash scripts/setup-code-server.sh${toolsDir === DEFAULT_TOOLS_DIR ? '' : ` with SWE_WORKBENCH_TOOLS=${toolsDir}`} (code-server ${CODE_SERVER_VERSION} and its Node 24 from the npm registry; needs libkrb5-dev)`;
  const complete = existsSync(path.join(folder, '.complete'));
  // The demo runs code-server from $SWE_WORKBENCH_TOOLS as it was when it started: this process may not have that variable.
  const running = complete && existsSync(launcher) ? undefined : codeServerInstallOf(runningFrom);
  if (running)
    return {
      id: 'code-server',
      title,
      status: 'ok',
      required: false,
      detail: `${path.basename(running).slice('code-server-'.length)} in ${running}, the one running here (${toolsDir} has none; SWE_WORKBENCH_TOOLS=${path.dirname(running)} names it)`,
    };
  if (!complete)
    return {
      id: 'code-server',
      title,
      status: 'warn',
      required: false,
      detail: existsSync(folder)
        ? `${folder} is incomplete (an interrupted install)`
        : `not installed in ${toolsDir}${toolsDir === DEFAULT_TOOLS_DIR ? ' (the default; SWE_WORKBENCH_TOOLS or --tools names another tools folder)' : ''}`,
      fix,
    };
  if (!existsSync(launcher)) return { id: 'code-server', title, status: 'warn', required: false, detail: `no launcher at ${launcher}`, fix };
  return { id: 'code-server', title, status: 'ok', required: false, detail: `${CODE_SERVER_VERSION} in ${folder}` };
}

/**
 * The Pyright language server the navigation tools run inside containers, found as the running
 * program finds it (`locatePyright`): the installed extension and `dist/cli.js` check the copy
 * they carry, so a checkout's node_modules cannot make a broken package look ready. @internal
 */
export function checkPyright(moduleFile?: string): CheckResult {
  const title = 'Pyright';
  let where: ReturnType<typeof locatePyright>;
  try {
    where = locatePyright(moduleFile);
  } catch (err) {
    return { id: 'pyright', title, status: 'fail', required: true, detail: `the pyright npm package cannot be found: ${errorText(err)}`, fix: 'npm ci' };
  }
  const fix =
    where.from === 'carried'
      ? 'reinstall the SWE Workbench extension (its .vsix carries Pyright); for dist/cli.js in a checkout, npm run build puts it beside the bundle'
      : 'npm ci';
  try {
    pyrightFolder(moduleFile);
    const { version } = JSON.parse(readFileSync(path.join(where.folder, 'package.json'), 'utf8')) as { version?: string };
    const source = where.from === 'carried' ? 'carried by SWE Workbench' : 'the npm package';
    return { id: 'pyright', title, status: 'ok', required: true, detail: `${version ?? 'version unknown'}, ${source}, at ${where.folder}` };
  } catch (err) {
    return { id: 'pyright', title, status: 'fail', required: true, detail: errorText(err), fix };
  }
}

/** The policy server answers /v1/models and serves the model (only needed for live runs and forks continued by it). @internal */
export async function checkPolicy(options: Pick<DoctorOptions, 'policyUrl' | 'model' | 'apiKey' | 'signal'>, timeoutMs = 5000): Promise<CheckResult> {
  const title = 'policy server';
  if (!options.policyUrl)
    return {
      id: 'policy',
      title,
      status: 'warn',
      required: false,
      detail: 'no URL set: live runs and forks continued by the policy cannot start',
      fix: 'set sweWorkbench.policy.url (or --policy-url) to your vLLM / SGLang server, e.g. http://127.0.0.1:8000/v1',
    };
  try {
    const client = await PolicyClient.connect(
      {
        baseUrl: options.policyUrl,
        ...(options.model ? { model: options.model } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        timeoutMs,
        retry: { maxAttempts: 1 },
      },
      options.signal,
    );
    return {
      id: 'policy',
      title,
      status: 'ok',
      required: false,
      detail: `${options.policyUrl} serves ${client.model}${client.maxModelLen ? ` (context ${client.maxModelLen} tokens)` : ''}`,
    };
  } catch (err) {
    const text = errorText(err);
    const wrongModel = /does not serve model|several models|serves no model/.test(text);
    return {
      id: 'policy',
      title,
      status: 'fail',
      required: false,
      detail: text,
      fix: wrongModel
        ? 'set sweWorkbench.policy.model (or --model) to one the server lists'
        : `start the server (e.g. vllm serve MODEL --port 8000) or fix sweWorkbench.policy.url / --policy-url; an API key goes in "SWE Workbench: Set Policy Server API Key" / --api-key`,
    };
  }
}

/** Free space where images, containers and temporary copies go. @internal */
export async function checkDisk(paths: readonly string[], minFreeBytes = 2 * GIB): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const devices = new Set<number>();
  for (const p of [...new Set(paths)]) {
    // One line per file system: /tmp and /var/lib/docker are often the same disk.
    const device = await stat(p).then(
      (s) => s.dev,
      () => undefined,
    );
    if (device !== undefined && devices.has(device)) continue;
    if (device !== undefined) devices.add(device);
    const title = `disk space at ${p}`;
    try {
      const s = await statfs(p);
      const free = s.bavail * s.bsize;
      const shown = `${(free / GIB).toFixed(1)} GiB free of ${((s.blocks * s.bsize) / GIB).toFixed(1)} GiB`;
      if (free < minFreeBytes)
        results.push({
          id: 'disk',
          title,
          status: 'fail',
          required: true,
          detail: `${shown}; at least ${(minFreeBytes / GIB).toFixed(1)} GiB are needed`,
          fix: `free space on ${p} (docker image prune removes unused images; swe-workbench image cleanup removes leftover sandboxes)`,
        });
      else if (free < 4 * minFreeBytes)
        results.push({ id: 'disk', title, status: 'warn', required: true, detail: `${shown}; task images need several GiB`, fix: `free space on ${p}` });
      else results.push({ id: 'disk', title, status: 'ok', required: true, detail: shown });
    } catch (err) {
      results.push({ id: 'disk', title, status: 'warn', required: false, detail: `cannot read: ${errorText(err)}` });
    }
  }
  return results;
}

/** Every check, in a fixed order: engine, image, code-server, Pyright, policy, disk. */
export async function runDoctor(options: DoctorOptions = {}): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const [docker, policy] = await Promise.all([checkDocker(options, timeoutMs), checkPolicy(options, timeoutMs)]);
  const local = !options.docker?.host || options.docker.host.startsWith('unix://');
  const diskPaths = [...(options.diskPaths ?? []), ...(local && docker.engine?.rootDir && existsSync(docker.engine.rootDir) ? [docker.engine.rootDir] : [])];
  return [
    ...docker.results,
    checkCodeServer(options.toolsDir ?? DEFAULT_TOOLS_DIR, options.runningFrom),
    checkPyright(),
    policy,
    ...(await checkDisk(diskPaths, options.minFreeBytes)),
  ];
}

/** Exit status of a doctor run: 1 when a required check failed. */
export function doctorExitCode(results: readonly CheckResult[]): 0 | 1 {
  return results.some((r) => r.required && r.status === 'fail') ? 1 : 0;
}

const MARK: Record<CheckStatus, string> = { ok: 'OK  ', warn: 'WARN', fail: 'FAIL', skipped: 'SKIP' };

/** The results as text: one line per check, the fix under each problem, a closing verdict. */
export function formatDoctor(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.title.length));
  const lines = results.flatMap((r) => [
    `${MARK[r.status]}  ${r.title.padEnd(width)}  ${r.detail}`,
    ...(r.fix && r.status !== 'ok' ? [`      fix: ${r.fix}`] : []),
  ]);
  const failed = results.filter((r) => r.required && r.status === 'fail').length;
  lines.push('', failed === 0 ? 'ready: every required check passed' : `not ready: ${failed} required check${failed === 1 ? '' : 's'} failed`);
  return lines.join('\n');
}
