import { z } from 'zod';
import { InputError, jsonPath } from '../errors';
import { describeJsonType } from '../trajectory/inputSchema';
import type { BugConsistency } from './recipes';
import { readJsonFile, parseWithSchema } from './schemaInput';

/**
 * Whether an SSR bug passed its consistency checks, as the SSR injector's reward reads it. The
 * checks are those `swe-workbench bug validate DIR --json` prints (an array of
 * `{name, passed, detail, durationMs}`); a plain true or false says the same without the checks.
 */

const ChecksSchema = z.array(z.looseObject({ name: z.string().min(1), passed: z.boolean() })).min(1, 'expected at least one check');

function bugConsistency(checks: boolean | ReadonlyArray<{ name: string; passed: boolean }>): BugConsistency {
  if (typeof checks === 'boolean') return { consistent: checks, failed: [] };
  const failed = checks.filter((c) => !c.passed).map((c) => c.name);
  return { consistent: failed.length === 0, failed };
}

function parseChecks(value: unknown, file: string, at: ReadonlyArray<string | number>): BugConsistency {
  if (typeof value === 'boolean') return bugConsistency(value);
  if (!Array.isArray(value))
    throw new InputError(file, jsonPath(at), `expected true, false or the checks 'bug validate --json' prints (an array), got ${describeJsonType(value)}`);
  return bugConsistency(parseWithSchema(ChecksSchema, value, file, at));
}

/** One bug's checks: the output of `bug validate DIR --json`, or true / false. */
export async function readBugChecks(file: string): Promise<BugConsistency> {
  return parseChecks(await readJsonFile(file), file, []);
}

/** A run's bugs: an object from instance id (the bug) to its checks or true / false. */
export async function readRunBugChecks(file: string): Promise<Map<string, BugConsistency>> {
  const byBug = parseWithSchema(z.record(z.string().min(1), z.unknown()), await readJsonFile(file), file);
  return new Map(Object.entries(byBug).map(([id, checks]) => [id, parseChecks(checks, file, [id])]));
}
