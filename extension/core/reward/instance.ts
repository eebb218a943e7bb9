import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '../errors';
import { parseJsonText, parseWithSchema, readJsonFile } from './schemaInput';

// The dataset stores the test lists as JSON-encoded strings; exports often hold plain lists.
const TestListSchema = z.union([
  z.array(z.string()),
  z.string().transform((text, ctx) => {
    try {
      const value: unknown = JSON.parse(text);
      if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: 'expected a JSON-encoded list of test ids' });
    return z.NEVER;
  }),
]);

/** A SWE-bench or SWE-smith task instance; unknown keys are kept so an export loses nothing. */
export const TaskInstanceSchema = z.looseObject({
  instance_id: z.string().min(1),
  repo: z.string().optional(),
  base_commit: z.string().optional(),
  patch: z.string().optional(),
  test_patch: z.string().optional(),
  problem_statement: z.string().optional(),
  image_name: z.string().optional(),
  FAIL_TO_PASS: TestListSchema,
  PASS_TO_PASS: TestListSchema,
  FAIL_TO_FAIL: TestListSchema.optional(),
  PASS_TO_FAIL: TestListSchema.optional(),
});
export type TaskInstance = z.output<typeof TaskInstanceSchema>;

/** Reads one instance, a list of instances, or JSON Lines (one instance a line). */
export async function readTaskInstances(file: string): Promise<TaskInstance[]> {
  const value = await readJsonFile(file).catch(async (err: unknown) => {
    if (!(err instanceof InputError) || err.problem === 'file not found') throw err;
    return readJsonLines(file);
  });
  if (Array.isArray(value)) return value.map((v, i) => parseWithSchema(TaskInstanceSchema, v, file, [i]));
  return [parseWithSchema(TaskInstanceSchema, value, file)];
}

async function readJsonLines(file: string): Promise<unknown[]> {
  const lines = (await readFile(file, 'utf8')).split('\n');
  const values: unknown[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    try {
      values.push(parseJsonText(line, file));
    } catch (err) {
      throw new InputError(file, `line ${i + 1}`, (err as InputError).problem);
    }
  });
  return values;
}

/** Picks one instance by id from a file, or the only one it holds. */
export async function readTaskInstance(file: string, instanceId?: string): Promise<TaskInstance> {
  const all = await readTaskInstances(file);
  const found = instanceId === undefined ? (all.length === 1 ? all[0] : undefined) : all.find((i) => i.instance_id === instanceId);
  if (found) return found;
  const problem = instanceId === undefined ? `holds ${all.length} instances; name one` : `no instance '${instanceId}'`;
  throw new InputError(file, undefined, problem);
}
