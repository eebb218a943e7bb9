import { z } from 'zod';

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
