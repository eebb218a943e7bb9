import type { TestStatus, TestStatusMap } from './testStatus';

const STATUS = '(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)';
// `tests/x.py::test_y[a b] PASSED [ 10%]`; -v also prints `SKIPPED (reason)` and `XFAIL (reason)`.
const VERBOSE_LINE = new RegExp(`^(\\S.*?::.+?) ${STATUS}(?: \\(.*\\))?(?:\\s+\\[\\s*\\d+%\\])?\\s*$`);
// `-rA` summary: `FAILED tests/x.py::test_y - AssertionError`; xdist verbose puts `[gw0] [ 10%]` first.
const SUMMARY_LINE = new RegExp(`^(?:\\[gw\\d+\\] \\[\\s*\\d+%\\] )?${STATUS} (.+)$`);
// The message after ` - ` may hold brackets, so the shortest closing bracket wins.
const SUMMARY_ID = /^(\S+?::[^\s[]+(?:\[.*?\])?)(?:$| - | )/;

/**
 * Reads pytest's per-test lines, verbose (`-v`) and short summary (`-rA`) alike. A later line
 * about the same test wins, as in SWE-bench's parser (a teardown ERROR after a PASSED call).
 * `SKIPPED [1] file.py:12: reason` summary lines name no test and are left out.
 */
export function parsePytestOutput(text: string): TestStatusMap {
  const map: TestStatusMap = new Map();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    const hit = matchSummary(line) ?? matchVerbose(line);
    if (hit) map.set(hit.id, hit.status);
  }
  return map;
}

function matchSummary(line: string): { id: string; status: TestStatus } | undefined {
  const m = SUMMARY_LINE.exec(line);
  if (!m) return undefined;
  const id = SUMMARY_ID.exec(m[2] ?? '')?.[1];
  return id ? { id, status: m[1] as TestStatus } : undefined;
}

function matchVerbose(line: string): { id: string; status: TestStatus } | undefined {
  const m = VERBOSE_LINE.exec(line);
  return m?.[1] ? { id: m[1], status: m[2] as TestStatus } : undefined;
}
