import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Tests that read `../shared` (the reference tools in `../shared/oracles`, third-party
 * recordings) in place: the folder sits beside the checkout and is not part of the repository.
 * When it is missing those tests are not run, and say so with a skip message that
 * `scripts/count-reporter.mjs` counts ("N tests need ../shared/oracles, not run").
 */

const repoRoot = path.resolve(__dirname, '../..');

/** The absolute path of `../shared/<rel>`. */
export function sharedPath(rel: string): string {
  return path.resolve(repoRoot, '..', 'shared', rel);
}

/** Skip message for a test that needs `../shared/<top>`, or false when the folder is there. */
export function needsShared(rel: string): string | false {
  const top = rel.split('/')[0] ?? rel;
  return existsSync(sharedPath(rel)) ? false : `needs ../shared/${top}`;
}
