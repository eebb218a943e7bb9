import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../..');

/** A file of /work/shared/fixtures/third-party (checked out as ../shared beside the repository). */
export function thirdParty(relative: string): string {
  return path.resolve(repoRoot, '../shared/fixtures/third-party', relative);
}

/** A sample trajectory of the project's own, written from the formats' documentation. */
export function sampleTrajectory(relative: string): string {
  return path.resolve(repoRoot, 'test/fixtures/trajectories', relative);
}
