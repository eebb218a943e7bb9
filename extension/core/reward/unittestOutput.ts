import type { TestStatus, TestStatusMap } from './testStatus';

const OUTCOMES: ReadonlyArray<[RegExp, TestStatus]> = [
  [/^ok$/i, 'PASSED'],
  [/^FAIL$/, 'FAILED'],
  [/^ERROR$/, 'ERROR'],
  [/^skipped\b/, 'SKIPPED'],
  [/^expected failure$/, 'XFAIL'],
  [/^unexpected success$/, 'XPASS'],
];

/**
 * Reads unittest / Django runner lines: `test_x (mod.Class) ... ok`. The id is the text before
 * ` ... `, which is the docstring's first line when the test has one: SWE-bench's Django lists
 * hold such ids ("A cached sitemap index can be rendered (#2713)."). When the test printed
 * something, the outcome lands alone on a later line and belongs to the last test started.
 */
export function parseUnittestOutput(text: string): TestStatusMap {
  const map: TestStatusMap = new Map();
  let lastId: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const sep = line.indexOf(' ... ');
    if (sep < 0) {
      const status = outcomeOf(line);
      if (status && lastId) {
        map.set(lastId, status);
        lastId = undefined;
      }
      continue;
    }
    const id = line.slice(0, sep);
    const status = outcomeOf(line.slice(sep + 5).trim());
    if (status) map.set(id, status);
    lastId = status ? undefined : id;
  }
  return map;
}

function outcomeOf(word: string): TestStatus | undefined {
  return OUTCOMES.find(([re]) => re.test(word))?.[1];
}
