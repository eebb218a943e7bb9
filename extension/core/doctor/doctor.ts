/**
 * `swe-workbench doctor` and "SWE Workbench: Check Setup": what the workbench needs on this
 * machine, checked for real (the Docker engine answers, the image is there, the policy server
 * lists the model...), each problem with the command that fixes it. The CLI and the VS Code
 * command only gather options and print the results.
 */
import { existsSync } from 'node:fs';
import { DEFAULT_BASE_IMAGE } from '../runtime/baseImage';
import { connectDocker, describeDockerHost, type DockerConnectionOptions } from '../runtime/dockerConnection';
import { errorText } from '../errors';
import { compareVersions } from './dottedVersion';
import { checkCodeServer, checkDisk, checkPolicy, checkPyright, DEFAULT_TOOLS_DIR } from './hostChecks';
import type { CheckResult, CheckStatus } from './checkResult';

export type { CheckResult };

export { DEFAULT_TOOLS_DIR };

/** The oldest engine API the workbench is tested against (Debian 12's docker.io 20.10). */
const MIN_DOCKER_API = '1.41';

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
