import type { z } from 'zod';
import { InputError, jsonPath } from '../errors';

/** What a JSON value is, in the words an error message uses. */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const ARTICLE: Record<string, string> = { array: 'an array', object: 'an object', record: 'an object', int: 'an integer' };

function expectedPhrase(expected: string): string {
  return ARTICLE[expected] ?? `a ${expected}`;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

type Issue = z.core.$ZodIssue;

function collectExpected(issue: Issue, into: Set<string>): void {
  if (issue.code === 'invalid_type') into.add(expectedPhrase(issue.expected));
  else if (issue.code === 'invalid_union') for (const branch of issue.errors) for (const sub of branch) if (sub.path.length === 0) collectExpected(sub, into);
}

/** JSON numbers past ±1.8e308 (`1e400`) parse as Infinity, which no schema takes: said so, rather than "expected a number, got number". */
function outOfRangeNumber(value: unknown): string | undefined {
  return typeof value === 'number' && !Number.isFinite(value)
    ? `a number too large for a 64-bit float (it reads as ${value}); expected a finite number`
    : undefined;
}

function problemOf(issue: Issue, value: unknown): string {
  const range = outOfRangeNumber(value);
  if (range) return range;
  const expected = new Set<string>();
  collectExpected(issue, expected);
  if (expected.size > 0) return `expected ${[...expected].join(' or ')}, got ${describeJsonType(value)}`;
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${JSON.stringify(value)}`;
  return issue.message;
}

/**
 * Validates `value` (found at `basePath` in `file`) with a zod schema and returns the parsed
 * value, or throws an InputError naming the first offending JSON path and what was expected.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string | undefined,
  basePath: ReadonlyArray<string | number> = [],
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = telling(result.error.issues[0]!);
  const keys = issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
  const path = [...issue.path, ...keys].filter((p): p is string | number => typeof p !== 'symbol');
  throw new InputError(file, jsonPath([...basePath, ...path]), problemOf(issue, valueAt(value, issue.path)));
}

const isRootTypeIssue = (issue: Issue) => issue.path.length === 0 && issue.code === 'invalid_type';

/**
 * A union whose value has the type of exactly one branch (an array where a string or an array
 * of parts will do) failed inside that branch: that branch's issue says what is wrong and where.
 */
function telling(issue: Issue): Issue {
  if (issue.code !== 'invalid_union') return issue;
  const matched = issue.errors.filter((branch) => branch.length > 0 && !branch.every(isRootTypeIssue));
  if (matched.length !== 1) return issue;
  const inner = matched[0]![0]!;
  return telling({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
}
