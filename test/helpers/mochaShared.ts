/**
 * The extension-host (mocha) twin of sharedFolder.ts: tests that read a folder of `../shared`
 * are skipped with the counted reason when it is absent, never failed and never passed silently.
 * test/vscode/index.ts hands the counts to scripts/test.mjs, which prints
 * `N tests need ../shared/<folder>, not run`. With `SWE_WORKBENCH_REQUIRE_SHARED=1` (CI) a missing
 * folder fails the file, as in the node:test suites.
 */
import path from 'node:path';
import type { Context, Suite } from 'mocha';
import { sharedPath, type SharedPath } from './sharedPaths';

const NEEDS_KEY = '__sweWorkbenchNeeds';

/** Tests skipped for a missing folder, per folder label (`../shared/fixtures/third-party`). */
export function needsCounts(): Record<string, number> {
  return ((globalThis as Record<string, unknown>)[NEEDS_KEY] as Record<string, number> | undefined) ?? {};
}

function countNeed(label: string, tests: number): void {
  (globalThis as Record<string, unknown>)[NEEDS_KEY] = { ...needsCounts(), [label]: (needsCounts()[label] ?? 0) + tests };
}

const testsIn = (suite: Suite): number => suite.tests.length + suite.suites.reduce((n, child) => n + testsIn(child), 0);

/** A test or hook body: synchronous or returning a promise (no `done` callback). */
type Body = (this: Context) => unknown;

export interface MochaSharedFolder extends SharedPath {
  path(...parts: string[]): string;
  /** mocha's `it`, skipped and counted when the folder is absent. */
  it(title: string, fn: Body): void;
  /** A suite's `before` that skips (and counts) every test of the suite when the folder is absent. */
  before(fn: Body): void;
  /** A suite's `after` that runs only when the folder is present. */
  after(fn: Body): void;
}

export function mochaShared(relative: string): MochaSharedFolder {
  const found = sharedPath(relative);
  const label = `../shared/${relative}`;
  return {
    ...found,
    path: (...parts) => path.join(found.dir, ...parts),
    it: (title, fn) =>
      it(title, function (this: Context) {
        if (!found.present) {
          countNeed(label, 1);
          this.skip();
        }
        return fn.call(this);
      }),
    before: (fn) =>
      before(function (this: Context) {
        if (!found.present) {
          countNeed(label, this.test?.parent ? testsIn(this.test.parent) : 0);
          this.skip();
        }
        return fn.call(this);
      }),
    after: (fn) =>
      after(function (this: Context) {
        if (!found.present) return undefined;
        return fn.call(this);
      }),
  };
}

/** The third-party fixtures: files written by SWE-agent, mini-swe-agent, OpenHands, SWE-smith. */
export const mochaThirdParty = (): MochaSharedFolder => mochaShared('fixtures/third-party');
