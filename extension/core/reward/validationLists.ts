import type { TestStatus, TestStatusMap } from './testStatus';

export interface ValidationLists {
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  FAIL_TO_FAIL: string[];
  PASS_TO_FAIL: string[];
}

const passes = (s: TestStatus | undefined) => s === 'PASSED' || s === 'XFAIL';

/**
 * SWE-smith's lists from a reference run and a bugged run, named from the fix's point of view:
 * FAIL_TO_PASS fails with the bug and passes on the reference. A test missing from the bugged
 * run (a collection error) fails there; a test skipped in either run says nothing and is left out.
 */
export function validationLists(reference: TestStatusMap, bugged: TestStatusMap): ValidationLists {
  const lists: ValidationLists = { FAIL_TO_PASS: [], PASS_TO_PASS: [], FAIL_TO_FAIL: [], PASS_TO_FAIL: [] };
  for (const [id, refStatus] of reference) {
    const bugStatus = bugged.get(id);
    if (refStatus === 'SKIPPED' || bugStatus === 'SKIPPED') continue;
    const key = `${passes(bugStatus) ? 'PASS' : 'FAIL'}_TO_${passes(refStatus) ? 'PASS' : 'FAIL'}` as keyof ValidationLists;
    lists[key].push(id);
  }
  return lists;
}

/** Valid with at least one FAIL_TO_PASS and one PASS_TO_PASS test. */
export function isValidBug(lists: ValidationLists): boolean {
  return lists.FAIL_TO_PASS.length > 0 && lists.PASS_TO_PASS.length > 0;
}
