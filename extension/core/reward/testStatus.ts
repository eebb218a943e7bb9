/** The statuses a test run can report, named as SWE-bench names them. */
export const TEST_STATUSES = ['PASSED', 'FAILED', 'SKIPPED', 'ERROR', 'XFAIL', 'XPASS'] as const;
export type TestStatus = (typeof TEST_STATUSES)[number];

/** Test id -> status, in the order the tests were first seen. */
export type TestStatusMap = Map<string, TestStatus>;

export function statusMapToObject(map: TestStatusMap): Record<string, TestStatus> {
  return Object.fromEntries(map);
}
