import type Docker from 'dockerode';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { SANDBOX_LABEL, SESSION_LABEL } from '../../extension/core/runtime/sandboxLabels';

/** The offline image the integration tests run in (built by `swe-workbench image build`). */
export const TEST_IMAGE = 'swe-workbench/base:bookworm';

export function testDocker(): Docker {
  return dockerFromEnv();
}

/** Ids of the sandbox containers (running or not) that carry the given session label. */
export async function containersOfSession(docker: Docker, session: string): Promise<string[]> {
  const list = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `${SESSION_LABEL}=${session}`] } });
  return list.map((c) => c.Id);
}
