import { isPytestSummaryLine } from './pytestOutput';
import type { TestStatusMap } from './testStatus';

/**
 * Why a test log cannot be graded. Grading it anyway would turn an infrastructure or parsing
 * failure into a model failure (reward 0), so the log is an infrastructure error, masked with
 * this reason, as SWE-bench's harness and SWE-Master's container-error masking keep them apart.
 * Reward recipes map it to a mask: `{ masked: { reason: unusable.message } }`.
 */
export interface UnusableTestLog {
  kind: 'no-tests-recognised';
  reason: 'empty' | 'binary' | 'foreign-framework' | 'no-test-lines' | 'truncated';
  /** The framework recognised but not graded (jest, go test, ...). */
  framework?: ForeignFramework;
  /** One sentence for the person reading it. */
  message: string;
}

type ForeignFramework = 'jest' | 'go test' | 'TAP' | 'JUnit XML' | 'mocha' | 'cargo test';

/** Lines that only one framework writes; a log is named by the first that matches. Each pattern is anchored and free of nested quantifiers. */
const FOREIGN: ReadonlyArray<[ForeignFramework, RegExp]> = [
  ['JUnit XML', /^\s*<(testsuites|testsuite|testcase)[\s>]/],
  ['TAP', /^(TAP version \d+|1\.\.\d+$|not ok \d+)/],
  ['go test', /^(=== RUN {3}\S|--- (PASS|FAIL|SKIP): \S+ \(\d|ok {2}\t\S|FAIL\t\S+\t)/],
  ['cargo test', /^(running \d+ tests?$|test result: (ok|FAILED)\. \d+ passed)/],
  ['jest', /^(Tests: +\d+ (passed|failed|skipped|todo|total)|Test Suites: +\d+|(PASS|FAIL) \S+\.(test|spec)\.[jt]sx?\b)/],
  ['mocha', /^ +\d+ (passing|failing|pending) \(\d+m?s\)$/],
];

/** unittest / Django's closing line: `Ran 12 tests in 0.345s`. */
const UNITTEST_RAN = /^Ran \d+ tests? in [\d.]+s$/;

const MAX_SCANNED_LINE = 4096;

/** Which foreign framework a log is from, read from its first lines that name one. */
function foreignFramework(text: string): ForeignFramework | undefined {
  for (const raw of text.split('\n')) {
    const line = raw.length > MAX_SCANNED_LINE ? raw.slice(0, MAX_SCANNED_LINE) : raw.trimEnd();
    for (const [name, re] of FOREIGN) if (re.test(line)) return name;
  }
  return undefined;
}

function hasClosingLine(text: string, style: 'pytest' | 'unittest' | 'auto'): boolean {
  for (const raw of text.split('\n')) {
    if (raw.length > MAX_SCANNED_LINE) continue;
    const line = raw.trim();
    if (style !== 'unittest' && isPytestSummaryLine(line)) return true;
    if (style !== 'pytest' && UNITTEST_RAN.test(line)) return true;
  }
  return false;
}

/** Most of the first kilobytes are control bytes, or there is a NUL: not a text log. */
function looksBinary(text: string): boolean {
  const head = text.slice(0, 8192);
  if (head.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffd) control++;
  }
  return control > head.length * 0.1;
}

/**
 * The verdict on a test log before its statuses are graded: undefined when it is a pytest or
 * unittest run that got to its closing line with at least one test; otherwise why not.
 */
export function unusableTestLog(text: string, statuses: TestStatusMap, style: 'pytest' | 'unittest' | 'auto' = 'auto'): UnusableTestLog | undefined {
  const which = style === 'auto' ? 'pytest or unittest' : style;
  if (text.trim() === '') return { kind: 'no-tests-recognised', reason: 'empty', message: `no tests recognised: the test output is empty` };
  if (looksBinary(text))
    return { kind: 'no-tests-recognised', reason: 'binary', message: 'no tests recognised: the test output is binary data, not a text log' };
  const framework = foreignFramework(text);
  if (framework && (statuses.size === 0 || !hasClosingLine(text, style))) {
    return {
      kind: 'no-tests-recognised',
      reason: 'foreign-framework',
      framework,
      message: `no tests recognised: this is ${framework} output, which is not graded (${which} logs are)`,
    };
  }
  if (statuses.size === 0)
    return { kind: 'no-tests-recognised', reason: 'no-test-lines', message: `no tests recognised: no ${which} result lines in the test output` };
  if (!hasClosingLine(text, style)) {
    const closing =
      style === 'unittest'
        ? "unittest's 'Ran N tests in Xs'"
        : style === 'pytest'
          ? "pytest's closing '=== N passed in Xs ==='"
          : "pytest's closing '=== N passed in Xs ===' or unittest's 'Ran N tests in Xs'";
    return {
      kind: 'no-tests-recognised',
      reason: 'truncated',
      message: `no tests recognised as a complete run: ${statuses.size} test result(s) but no ${closing} line, so the log looks truncated`,
    };
  }
  return undefined;
}
