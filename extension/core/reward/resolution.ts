/**
 * SWE-bench's grading rule, from the status of each test to the instance's resolution: which
 * statuses count as passing for each list, and when the run is FULL, PARTIAL or NO.
 */
import type { TaskInstance } from './instance';
import type { TestStatus, TestStatusMap } from './testStatus';

export const TEST_LISTS = ['FAIL_TO_PASS', 'PASS_TO_PASS', 'FAIL_TO_FAIL', 'PASS_TO_FAIL'] as const;
export type TestListName = (typeof TEST_LISTS)[number];
export interface ListOutcome {
  success: string[];
  failure: string[];
}
export type TestsStatus = Record<TestListName, ListOutcome>;
export type Resolution = 'FULL' | 'PARTIAL' | 'NO';

export interface Grading {
  resolution: Resolution;
  resolved: boolean;
  tests: TestsStatus;
}

export type ExpectedTests = Pick<TaskInstance, TestListName>;

const PASSING: ReadonlySet<TestStatus> = new Set(['PASSED', 'XFAIL']);

const BROKEN: ReadonlySet<TestStatus> = new Set(['FAILED', 'ERROR']);

/** A test that must start passing: only PASSED or XFAIL count; SKIPPED or missing fails it. */
function mustPass(status: TestStatus | undefined): boolean {
  return status !== undefined && PASSING.has(status);
}

/** A test that must keep passing: it fails only when missing, FAILED or ERROR (SKIPPED keeps it). */
function mustNotBreak(status: TestStatus | undefined): boolean {
  return status !== undefined && !BROKEN.has(status);
}

function split(ids: readonly string[] | undefined, statuses: TestStatusMap, ok: (s: TestStatus | undefined) => boolean): ListOutcome {
  const out: ListOutcome = { success: [], failure: [] };
  for (const id of ids ?? []) (ok(statuses.get(id)) ? out.success : out.failure).push(id);
  return out;
}

function passRate(list: ListOutcome): number {
  const total = list.success.length + list.failure.length;
  return total === 0 ? 1 : list.success.length / total;
}

/** SWE-bench's resolution: FULL when both lists pass entirely, PARTIAL when some FAIL_TO_PASS pass and no regression. */
export function resolutionOf(tests: TestsStatus): Resolution {
  const f2p = passRate(tests.FAIL_TO_PASS);
  const p2p = passRate(tests.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return 'FULL';
  if (f2p > 0 && f2p < 1 && p2p === 1) return 'PARTIAL';
  return 'NO';
}

export function gradeStatuses(expected: ExpectedTests, statuses: TestStatusMap): Grading {
  const tests: TestsStatus = {
    FAIL_TO_PASS: split(expected.FAIL_TO_PASS, statuses, mustPass),
    PASS_TO_PASS: split(expected.PASS_TO_PASS, statuses, mustNotBreak),
    FAIL_TO_FAIL: split(expected.FAIL_TO_FAIL, statuses, mustPass),
    PASS_TO_FAIL: split(expected.PASS_TO_FAIL, statuses, mustPass),
  };
  const resolution = resolutionOf(tests);
  return { resolution, resolved: resolution === 'FULL', tests };
}
