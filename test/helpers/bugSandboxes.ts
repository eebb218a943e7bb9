import { cp, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo, type SampleRepo } from './sampleRepo';

export const BASE_IMAGE = 'swe-workbench/base:bookworm';
/** Every container the bug tests start carries this label, so a test can prove none is left. */
export const BUG_TEST_LABEL = 'swe-workbench.test-suite';

const repoRoot = path.resolve(__dirname, '../..');
export const bugFixtures = path.join(repoRoot, 'test/fixtures/bugs');

const validBug = 'valid-allocate-and-close';

/**
 * A bug folder on disk: the valid bug itself, or a copy of it with a variant's files laid over
 * (`test/fixtures/bugs/variants/<name>` holds only what differs).
 */
export async function bugFixtureDir(name: string): Promise<string> {
  if (name === validBug) return path.join(bugFixtures, validBug);
  const variant = path.join(bugFixtures, 'variants', name);
  const names = await readdir(variant);
  if (names.length === 0) throw new Error(`bug variant ${name} holds no file`);
  const dir = path.join(await mkdtemp(path.join(tmpdir(), `bug-${name}-`)), 'bug');
  await cp(path.join(bugFixtures, validBug), dir, { recursive: true });
  for (const file of names) await cp(path.join(variant, file), path.join(dir, file));
  return dir;
}

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
