/**
 * The doctor's checks of this host, apart from the Docker engine: code-server as setup installs
 * it, the Pyright the navigation tools run, the policy server and free disk space. `runDoctor`
 * runs them in its fixed order.
 */
import { existsSync, readFileSync } from 'node:fs';
import { stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { locatePyright, pyrightFolder } from '../aci/lspServer';
import { PolicyClient } from '../policy/policyClient';
import { errorText } from '../errors';
import type { CheckResult } from './checkResult';

const CODE_SERVER_VERSION = '4.139.1';

export const DEFAULT_TOOLS_DIR = '/var/cache/swe-workbench/tools';

const GIB = 1024 ** 3;

/** The complete code-server install (`<tools>/code-server-<version>`) one of `paths` lies in. */
function codeServerInstallOf(paths: readonly string[]): string | undefined {
  for (const p of paths) {
    if (!path.isAbsolute(p)) continue;
    for (let dir = p; dir !== path.dirname(dir); dir = path.dirname(dir))
      if (/^code-server-\d+\.\d+\.\d+$/.test(path.basename(dir)) && existsSync(path.join(dir, '.complete'))) return dir;
  }
  return undefined;
}

/** code-server as setup installs it: needed by the demo and the VS Code test suites, not by VS Code users. */
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
 * they carry, so a checkout's node_modules cannot make a broken package look ready.
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

/** The policy server answers /v1/models and serves the model (only needed for live runs and forks continued by it). */
export async function checkPolicy(
  options: { policyUrl?: string; model?: string; apiKey?: string; signal?: AbortSignal },
  timeoutMs = 5000,
): Promise<CheckResult> {
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

/** Free space where images, containers and temporary copies go. */
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
