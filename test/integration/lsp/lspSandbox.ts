import Docker from 'dockerode';
import { DockerSandbox } from '../../../extension/core/runtime/dockerSandbox';
import type { Mount, Sandbox } from '../../../extension/core/runtime/sandbox';
import { sampleRepoTree } from '../../helpers/sampleRepo';

export const LSP_TEST_LABEL = 'swe-workbench.test';
const LABEL_VALUE = 'lsp';

/** A network-less container of the base image with the sample repository at /repo. */
export function startLspSandbox(options: { mounts?: Mount[] }): Promise<Sandbox> {
  return DockerSandbox.create({
    image: 'swe-workbench/base:bookworm',
    repoDir: sampleRepoTree,
    repoPath: '/repo',
    labels: { [LSP_TEST_LABEL]: LABEL_VALUE },
    ...(options.mounts ? { mounts: options.mounts } : {}),
  });
}

/** Pyright language servers running in the sandbox (the `[l]` keeps grep from finding itself). */
export async function countLangservers(sandbox: Sandbox): Promise<number> {
  const { output } = await sandbox.exec("ps -eo args | grep -c '[l]angserver.index.js' || true");
  return Number(output.trim());
}

export async function leftoverContainers(label: string): Promise<string[]> {
  const containers = await new Docker().listContainers({ all: true, filters: { label: [`${label}=${LABEL_VALUE}`] } });
  return containers.map((c) => c.Id);
}
