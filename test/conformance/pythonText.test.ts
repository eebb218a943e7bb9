/**
 * The Python text behaviours every family's tools show the model (`core/parsing/pythonText.ts`)
 * against Python's own, on generated strings and values: `repr`, `str`, `str(float)`,
 * `shlex.quote`, `strip`, `splitlines` and `expandtabs`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { expandTabs, pyFloat, pyRepr, pySplitLines, pyStr, pyStrip, shlexQuote } from '../../extension/core/parsing/pythonText';

// Characters of every kind the tools meet: quotes, backslashes, C0 and C1 controls, tabs and line
// ends of every sort, non-breaking and other Unicode spaces, format characters, accents, CJK,
// astral pictographs, and words shlex leaves bare.
const PIECES = [
  "'",
  '"',
  '\\',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\x00',
  '\x1b',
  '\x7f',
  '\x85',
  '\x9f',
  '\xa0',
  '\u2028',
  '\u200b',
  '\u3000',
  '\ufeff',
  'é',
  '中文',
  '😀',
  ' ',
  'ab',
  'x_y',
  '@%+=:,./-',
  '$HOME',
  '\v',
  '\f',
  '\x1c',
];

function strings(count: number): string[] {
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = ['', 'plain', "it's", 'say "hi"', `both ' and "`];
  for (let k = 0; k < count; k++) out.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => PIECES[Math.floor(random() * PIECES.length)]!).join(''));
  return out;
}

function python(script: string, input: unknown): unknown {
  return JSON.parse(
    execFileSync('python3', ['-c', `import json, shlex, sys\ncases = json.load(sys.stdin)\n${script}`], { input: JSON.stringify(input) }).toString(),
  );
}

test("repr, shlex.quote, strip, splitlines and expandtabs of 400 strings are Python's", () => {
  const cases = strings(400);
  const expected = python(
    'print(json.dumps([[repr(s), shlex.quote(s), s.strip(), s.splitlines(), s.expandtabs(), s.expandtabs(4)] for s in cases]))',
    cases,
  ) as unknown[][];
  const ours = cases.map((s) => [pyRepr(s), shlexQuote(s), pyStrip(s), pySplitLines(s), expandTabs(s), expandTabs(s, 4)]);
  const differ = cases.map((s, i) => ({ s, ours: ours[i], python: expected[i] })).filter((c) => JSON.stringify(c.ours) !== JSON.stringify(c.python));
  assert.deepEqual(differ, []);
});

test("str() of JSON values and str(float) are Python's", () => {
  const values: unknown[] = [
    null,
    true,
    false,
    0,
    7,
    -3,
    0.5,
    -2.25,
    1e-7,
    1.5e-10,
    1e16,
    1e21,
    123456789.125,
    'text',
    "it's",
    ['a', 1, null, [true]],
    { k: 'v', n: 2.5, nested: { x: ['é', '\x85'] } },
  ];
  const expected = python('print(json.dumps([str(v) for v in cases]))', values) as string[];
  assert.deepEqual(
    values.map((v) => pyStr(v)),
    expected,
  );
  const floats = [
    0.5,
    180,
    2,
    1e-7,
    3.14159,
    1e21,
    1e16,
    1e15,
    123456789012345680,
    -0.25,
    100.125,
    0.0001,
    0.00001,
    5e-324,
    1.7976931348623157e308,
    0,
    2 ** 53,
    0.1 + 0.2,
  ];
  assert.deepEqual(floats.map(pyFloat), python('print(json.dumps([str(float(v)) for v in cases]))', floats));
});
