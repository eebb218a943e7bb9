/**
 * Folders of `../shared` (files written by other projects, reference implementations) that some
 * tests read in place. A clone has no `../shared`; such tests are then skipped with a reason
 * that scripts/test.mjs counts on the summary (`N tests need ../shared/fixtures/third-party,
 * not run`), never failed and never passed silently.
 *
 * One setting per folder: `needsShared('fixtures/third-party')` is `$SWE_WORKBENCH_THIRD_PARTY`
 * when set, else `$SWE_WORKBENCH_SHARED/fixtures/third-party`, else `../shared/fixtures/third-party`
 * beside the checkout. With `SWE_WORKBENCH_REQUIRE_SHARED=1` (CI) a missing folder fails the file.
 */
import path from 'node:path';
import { after, afterEach, before, beforeEach, test, type TestContext, type TestOptions } from 'node:test';
import { sharedPath, type SharedPath } from './sharedPaths';

export { NEEDS_PREFIX, sharedEnvName } from './sharedPaths';

type TestFn = (t: TestContext) => void | Promise<void>;
type HookFn = () => void | Promise<void>;

export interface SharedFolder extends SharedPath {
  /** A path inside the folder. */
  path(...parts: string[]): string;
  /** node:test's `test`, skipped with the counted reason when the folder is absent. */
  test(name: string, fn: TestFn): void;
  test(name: string, options: TestOptions, fn: TestFn): void;
  /** Hooks that read the folder: not run when it is absent (their tests are skipped). */
  before(fn: HookFn): void;
  after(fn: HookFn): void;
  beforeEach(fn: HookFn): void;
  afterEach(fn: HookFn): void;
}

export function needsShared(relative: string, env: NodeJS.ProcessEnv = process.env): SharedFolder {
  const found = sharedPath(relative, env);
  const guard = (fn: HookFn) => () => (found.present ? fn() : undefined);
  return {
    ...found,
    path: (...parts) => path.join(found.dir, ...parts),
    test: (name: string, a: TestOptions | TestFn, b?: TestFn) => {
      const [options, fn] = typeof a === 'function' ? [{}, a] : [a, b!];
      void test(name, { ...options, skip: found.skip }, fn);
    },
    before: (fn) => before(guard(fn)),
    after: (fn) => after(guard(fn)),
    beforeEach: (fn) => beforeEach(guard(fn)),
    afterEach: (fn) => afterEach(guard(fn)),
  };
}

/** The third-party fixtures: files written by SWE-agent, mini-swe-agent, OpenHands, SWE-smith, SWE-bench. */
export const thirdPartyFolder = (): SharedFolder => needsShared('fixtures/third-party');
