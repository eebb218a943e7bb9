import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { DockerSandbox } from '../../extension/core/runtime/docker-sandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo, type SampleRepo } from './sampleRepo';

export const BASE_IMAGE = 'swe-workbench/base:bookworm';
/** Every container the bug tests start carries this label, so a test can prove none is left. */
export const BUG_TEST_LABEL = 'swe-workbench.test-suite';

const repoRoot = path.resolve(__dirname, '../..');
export const bugFixtures = path.join(repoRoot, 'test/fixtures/bugs');

export async function sampleRepoForBugs(): Promise<SampleRepo> {
  return materializeSampleRepo(await mkdtemp(path.join(tmpdir(), 'bug-sample-')));
}

/** Fresh containers of the base image holding `repoDir` at /testbed. */
export function sandboxFactory(repoDir: string, suite: string): (signal?: AbortSignal) => Promise<Sandbox> {
  return (signal) => DockerSandbox.create({ image: BASE_IMAGE, repoDir, repoPath: '/testbed', labels: { [BUG_TEST_LABEL]: suite }, signal });
}

export async function containersLeft(suite: string): Promise<number> {
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });
  const list = await docker.listContainers({ all: true, filters: { label: [`${BUG_TEST_LABEL}=${suite}`] } });
  return list.length;
}
