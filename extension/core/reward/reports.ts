import { z } from 'zod';
import { InputError } from '../errors';
import { TEST_LISTS, type TestListName, type TestsStatus } from './grading';
import { parseInput as parseWithSchema } from '../trajectory/inputSchema';

const ListOutcomeSchema = z.object({ success: z.array(z.string()), failure: z.array(z.string()) });
const TestsStatusSchema = z
  .object({
    FAIL_TO_PASS: ListOutcomeSchema,
    PASS_TO_PASS: ListOutcomeSchema,
    FAIL_TO_FAIL: ListOutcomeSchema.optional(),
    PASS_TO_FAIL: ListOutcomeSchema.optional(),
  })
  .transform((t): TestsStatus => ({
    ...t,
    FAIL_TO_FAIL: t.FAIL_TO_FAIL ?? { success: [], failure: [] },
    PASS_TO_FAIL: t.PASS_TO_FAIL ?? { success: [], failure: [] },
  }));

const InstanceReportSchema = z.looseObject({
  patch_is_None: z.boolean().optional(),
  patch_exists: z.boolean().optional(),
  patch_successfully_applied: z.boolean().optional(),
  resolved: z.boolean(),
  tests_status: TestsStatusSchema.optional(),
  infra_failure: z.boolean().optional(),
  infra_failure_reason: z.string().nullable().optional(),
});
export type InstanceReport = z.output<typeof InstanceReportSchema>;

const SweBenchRunSchema = z.looseObject({
  total_instances: z.number(),
  submitted_instances: z.number(),
  completed_instances: z.number(),
  resolved_instances: z.number(),
  unresolved_instances: z.number(),
  empty_patch_instances: z.number().optional(),
  error_instances: z.number(),
  resolved_ids: z.array(z.string()),
  unresolved_ids: z.array(z.string()),
  error_ids: z.array(z.string()).optional(),
  empty_patch_ids: z.array(z.string()).optional(),
});
const SweSmithRunSchema = z.looseObject({
  resolved: z.number(),
  unresolved: z.number(),
  total: z.number(),
  ids_resolved: z.array(z.string()),
  ids_unresolved: z.array(z.string()),
});
const ValidationReportSchema = z.object({
  FAIL_TO_PASS: z.array(z.string()),
  PASS_TO_PASS: z.array(z.string()),
  FAIL_TO_FAIL: z.array(z.string()).default([]),
  PASS_TO_FAIL: z.array(z.string()).default([]),
});

/** A run over many instances, both harnesses' shapes brought to one. */
export interface RunSummary {
  total: number;
  resolvedIds: string[];
  unresolvedIds: string[];
  errorIds: string[];
  emptyPatchIds: string[];
}

export type Report =
  | { kind: 'instance'; shape: 'swe-bench' | 'swe-smith'; instanceId: string | undefined; report: InstanceReport }
  | { kind: 'run'; shape: 'swe-bench' | 'swe-smith'; summary: RunSummary }
  | { kind: 'validation'; lists: Record<TestListName, string[]> };

/** Tells the report shapes apart by their keys and validates the one found. */
export function parseReport(value: unknown, file?: string): Report {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputError(file, '$', 'expected a JSON object');
  const obj = value as Record<string, unknown>;
  if ('tests_status' in obj || 'patch_is_None' in obj) {
    return { kind: 'instance', shape: 'swe-smith', instanceId: undefined, report: parseWithSchema(InstanceReportSchema, obj, file) };
  }
  if ('total_instances' in obj) return { kind: 'run', shape: 'swe-bench', summary: sweBenchRun(parseWithSchema(SweBenchRunSchema, obj, file)) };
  if ('ids_resolved' in obj) return { kind: 'run', shape: 'swe-smith', summary: sweSmithRun(parseWithSchema(SweSmithRunSchema, obj, file)) };
  if (TEST_LISTS.some((k) => k in obj)) return { kind: 'validation', lists: parseWithSchema(ValidationReportSchema, obj, file) };
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] !== undefined) {
    return { kind: 'instance', shape: 'swe-bench', instanceId: keys[0], report: parseWithSchema(InstanceReportSchema, obj[keys[0]], file, [keys[0]]) };
  }
  throw new InputError(file, '$', 'not a SWE-bench or SWE-smith report (no tests_status, run totals or test lists)');
}

function sweBenchRun(r: z.output<typeof SweBenchRunSchema>): RunSummary {
  return {
    total: r.total_instances,
    resolvedIds: r.resolved_ids,
    unresolvedIds: r.unresolved_ids,
    errorIds: r.error_ids ?? [],
    emptyPatchIds: r.empty_patch_ids ?? [],
  };
}

function sweSmithRun(r: z.output<typeof SweSmithRunSchema>): RunSummary {
  return { total: r.total, resolvedIds: r.ids_resolved, unresolvedIds: r.ids_unresolved, errorIds: [], emptyPatchIds: [] };
}
