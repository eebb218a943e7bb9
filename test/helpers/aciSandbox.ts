import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AciSession, type AciSessionOptions } from '../../extension/core/aci/aciSession';
import type { ToolSet } from '../../extension/core/aci/toolRegistry';
import { toolSetFor } from '../../extension/core/scaffolds/swe-agent/tools/standardTools';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import type { Sandbox } from '../../extension/core/runtime/sandbox';
import { materializeSampleRepo, type SampleRepo } from './sampleRepo';

/** The offline base image: python3, pytest, git, flake8, ripgrep. */
export const BASE_IMAGE = 'swe-workbench/base:bookworm';

/** Label on every container these tests start, so a leftover can be found and removed. */
export const ACI_TEST_LABEL = 'swe-workbench.test';

export interface AciFixture {
  sandbox: Sandbox;
  session: AciSession;
  /** The sample repository on the host, with its git history. */
  repo: SampleRepo;
  dispose(): Promise<void>;
}

/** A container of the base image with `repoDir` copied to `repoPath`, labelled as a test's. */
export function startTestSandbox(repoDir: string, repoPath: string): Promise<Sandbox> {
  return DockerSandbox.create({
    image: BASE_IMAGE,
    repoDir,
    repoPath,
    labels: { [ACI_TEST_LABEL]: 'aci' },
    limits: { commandTimeoutMs: 60_000 },
  });
}

/** The sample repository in a container of the base image at `repoPath`, and a session on it. */
/** A session's options with SWE-agent's tools of `bundles` (default: its default bundles) unless `tools` are given. */
export type TestSessionOptions = Omit<AciSessionOptions, 'tools'> & { tools?: ToolSet; bundles?: readonly string[] };

/** The `AciSession` options of `TestSessionOptions`. */
export function sessionOptions({ bundles, tools, ...rest }: TestSessionOptions): AciSessionOptions {
  return { ...rest, tools: tools ?? toolSetFor(bundles) };
}

export async function startAciOnSampleRepo(options: TestSessionOptions & { repoPath?: string } = {}): Promise<AciFixture> {
  const hostDir = await mkdtemp(path.join(tmpdir(), 'swe-workbench-aci-'));
  try {
    const repo = await materializeSampleRepo(path.join(hostDir, 'repo'));
    const sandbox = await startTestSandbox(repo.dir, options.repoPath ?? '/repo');
    const session = new AciSession(sandbox, sessionOptions(options));
    return {
      sandbox,
      session,
      repo,
      dispose: async () => {
        await sandbox.dispose();
        await rm(hostDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(hostDir, { recursive: true, force: true });
    throw err;
  }
}
