import path from 'node:path';
import { thirdPartyFolder } from './sharedFolder';

export const repoRoot = path.resolve(__dirname, '../..');

/** The third-party fixtures folder (../shared/fixtures/third-party, or its setting): tests reading it use `thirdPartyFiles.test`. */
export const thirdPartyFiles = thirdPartyFolder();

/** A file of the third-party fixtures (see test/helpers/sharedFolder.ts for where they are found). */
export function thirdParty(relative: string): string {
  return thirdPartyFiles.path(relative);
}

/** A sample trajectory of the project's own, written from the formats' documentation. */
export function sampleTrajectory(relative: string): string {
  return path.resolve(repoRoot, 'test/fixtures/trajectories', relative);
}
