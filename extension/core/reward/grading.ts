import { isSweBenchLog, parseSweBenchLog, parseTestOutput, type TestOutputFormat } from './testOutput';
import { unusableTestLog, type UnusableTestLog } from './testLogVerdict';
import type { TestStatusMap } from './testStatus';
import {
  gradeStatuses,
  resolutionOf,
  type ExpectedTests,
  type Grading,
  type Resolution,
  type TestsStatus,
  type ListOutcome,
  type TestListName,
} from './resolution';

export { resolutionOf, TEST_LISTS } from './resolution';
export type { ExpectedTests, Grading, ListOutcome, TestListName, TestsStatus };

/** An infra failure voids the run: a harness marker, or a log in which no complete test run was recognised (`unusable`). */
export type GradeOutcome = ({ kind: 'graded'; statuses: TestStatusMap } & Grading) | { kind: 'infra-failure'; reason: string; unusable?: UnusableTestLog };

/** Grades a harness log; an infra failure is kept apart from a model failure. */
function gradeTestLog(expected: ExpectedTests, log: string, format: TestOutputFormat = 'auto'): GradeOutcome {
  const parsed = parseSweBenchLog(log, format);
  if (parsed.kind === 'infra-failure') return parsed;
  return gradeRecognised(expected, parsed.text, parsed.statuses, format);
}

/**
 * Grades test output of either kind: a SWE-bench / SWE-smith log read between its markers, or
 * plain pytest / unittest output read whole. An empty, binary, foreign or truncated log is an
 * infra failure with its reason, never a reward of 0.
 */
export function gradeTestOutput(expected: ExpectedTests, text: string, format: TestOutputFormat = 'auto'): GradeOutcome {
  // A harness log that broke before its tests ran (the patch did not apply) has no start marker: its own marker says why.
  if (isSweBenchLog(text)) return gradeTestLog(expected, text, format);
  return gradeRecognised(expected, text, parseTestOutput(text, format), format);
}

function gradeRecognised(expected: ExpectedTests, text: string, statuses: TestStatusMap, format: TestOutputFormat): GradeOutcome {
  const unusable = unusableTestLog(text, statuses, format);
  if (unusable) return { kind: 'infra-failure', reason: unusable.message, unusable };
  return { kind: 'graded', statuses, ...gradeStatuses(expected, statuses) };
}
