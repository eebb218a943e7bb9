/**
 * Our port of Python's `difflib.unified_diff` (OpenHands words a file edit's observation with it)
 * against Python's own, on 300 generated pairs of line lists and three context sizes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { unifiedDiff } from '../../extension/core/diff/sequenceMatcher';

test("unified diffs are Python difflib's, line for line", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = ['a', 'b', 'c', 'd', '', 'x y'];
  const cases: [string[], string[], number][] = [[[''], 'import random\nimport keyboard\n\nclass Game:\n    pass'.split('\n'), 0]];
  for (let k = 0; k < 300; k++) {
    const a = Array.from({ length: Math.floor(random() * 12) }, () => words[Math.floor(random() * words.length)]!);
    const b = a.filter(() => random() > 0.3).flatMap((line) => (random() > 0.8 ? [line, words[Math.floor(random() * words.length)]!] : [line]));
    cases.push([a, b, [0, 1, 3][k % 3]!]);
  }
  const script =
    "import difflib, json, sys\nprint(json.dumps([list(difflib.unified_diff(a, b, 'f', 'f', n=n, lineterm='')) for a, b, n in json.load(sys.stdin)]))";
  const expected = JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(cases) }).toString()) as string[][];
  const differ = cases.filter(([a, b, n], i) => JSON.stringify(unifiedDiff(a, b, 'f', 'f', n)) !== JSON.stringify(expected[i]));
  assert.deepEqual(differ, []);
});
