/**
 * Where a folder of `../shared` is, without node:test (bundles for the VS Code suites import it):
 * `$SWE_WORKBENCH_<NAME>` (e.g. SWE_WORKBENCH_THIRD_PARTY for fixtures/third-party) when set, else
 * `$SWE_WORKBENCH_SHARED/<relative>`, else `../shared/<relative>` beside the checkout.
 * See test/helpers/sharedFolder.ts for tests that need one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The checkout: found upwards from here, since tests also run bundled from dist/test. */
function findRepoRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir))
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'scripts/test.mjs'))) return dir;
  return path.resolve(from, '../..');
}

/** The reason a skipped test carries; scripts/count-reporter.mjs reads `needs <folder>` back. */
export const NEEDS_PREFIX = 'needs ';

/** `fixtures/third-party` -> `SWE_WORKBENCH_THIRD_PARTY`. */
export function sharedEnvName(relative: string): string {
  return `SWE_WORKBENCH_${path
    .basename(relative)
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase()}`;
}

export interface SharedPath {
  /** Where the folder is (or would be). */
  readonly dir: string;
  readonly present: boolean;
  /** `false` when present, else the counted skip reason (`needs ../shared/<relative> ...`). */
  readonly skip: string | false;
}

export function sharedPath(relative: string, env: NodeJS.ProcessEnv = process.env): SharedPath {
  const override = env[sharedEnvName(relative)];
  const sharedRoot = env.SWE_WORKBENCH_SHARED ? path.resolve(env.SWE_WORKBENCH_SHARED) : path.resolve(findRepoRoot(__dirname), '../shared');
  const dir = override ? path.resolve(override) : path.join(sharedRoot, relative);
  const present = existsSync(dir);
  const label = `../shared/${relative}`;
  if (!present && env.SWE_WORKBENCH_REQUIRE_SHARED === '1') {
    throw new Error(
      `${label} is required here (SWE_WORKBENCH_REQUIRE_SHARED=1) but ${dir} does not exist; set ${sharedEnvName(relative)} or SWE_WORKBENCH_SHARED`,
    );
  }
  return { dir, present, skip: present ? false : `${NEEDS_PREFIX}${label} (looked in ${dir}; set ${sharedEnvName(relative)})` };
}
