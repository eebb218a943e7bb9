import { z } from 'zod';
import { InputError } from '../errors';
import { parseReport } from '../reward/reports';
import { parseInput } from '../trajectory/inputSchema';
import { isHarborSideFile, isHarborTrialResult } from './harborTrial';
import type { Evaluation, Prediction } from './record';

/**
 * What a JSON document found in a run folder is. Names decide first (the harnesses' own file
 * names), then keys: the same folder holds trajectories, predictions, evaluation reports and
 * the task instances, and only trajectories become rollouts.
 */
export type DocumentKind = 'trajectory' | 'predictions' | 'report' | 'instances' | 'harbor-trial' | 'harbor-side';

const PREDICTION_FILE = /^(preds\.json|all_preds\.jsonl|predictions\.jsonl?)$/;
const TRAJECTORY_KEYS = ['history', 'trajectory', 'messages', 'trajectory_steps', 'steps', 'trajectories', 'events'];
const REPORT_KEYS = ['tests_status', 'patch_is_None', 'total_instances', 'ids_resolved', 'resolved_ids'];

export function documentKind(fileName: string, value: unknown): DocumentKind {
  if (PREDICTION_FILE.test(fileName)) return 'predictions';
  if (Array.isArray(value)) return value.length > 0 && value.every(isInstance) ? 'instances' : 'trajectory';
  if (!isObject(value)) return 'trajectory';
  if (isPrediction(value)) return 'predictions';
  if (isHarborTrialResult(fileName, value)) return 'harbor-trial';
  if (isHarborSideFile(fileName, value)) return 'harbor-side';
  if (fileName === 'report.json' || REPORT_KEYS.some((k) => k in value) || isWrappedReport(value)) return 'report';
  if (isInstance(value)) return 'instances';
  return 'trajectory';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isPrediction(v: Record<string, unknown>): boolean {
  return typeof v.instance_id === 'string' && 'model_patch' in v && !TRAJECTORY_KEYS.some((k) => k in v);
}

/** A SWE-bench or SWE-smith task instance, or a validation report's test lists. */
function isInstance(v: unknown): boolean {
  if (!isObject(v) || TRAJECTORY_KEYS.some((k) => k in v)) return false;
  return (typeof v.instance_id === 'string' && ('problem_statement' in v || 'FAIL_TO_PASS' in v)) || ('FAIL_TO_PASS' in v && 'PASS_TO_PASS' in v);
}

/** SWE-bench's per-instance report: `{<instance_id>: {resolved, tests_status...}}`. */
function isWrappedReport(v: Record<string, unknown>): boolean {
  const values = Object.values(v);
  return values.length === 1 && isObject(values[0]) && 'resolved' in values[0] && ('tests_status' in values[0] || 'patch_exists' in values[0]);
}

const PredictionEntrySchema = z.object({
  instance_id: z.string(),
  model_patch: z.string().nullable().optional(),
  model_name_or_path: z.string().nullable().optional(),
});

/** preds.json is a map from instance id to entry (or, from some tools, a list); each JSONL line is one entry. */
export function predictionsOf(value: unknown, file: string, line?: number): Prediction[] {
  const entries: Array<[unknown, Array<string | number>]> = Array.isArray(value)
    ? value.map((v, i) => [v, [i]])
    : isObject(value) && !('instance_id' in value)
      ? Object.entries(value).map(([k, v]) => [v, [k]])
      : [[value, []]];
  return entries.map(([entry, path]) => {
    const e = parseInput(PredictionEntrySchema, entry, file, path);
    const p: Prediction = { instanceId: e.instance_id, file, patchChars: (e.model_patch ?? '').trim().length };
    if (line !== undefined) p.line = line;
    if (e.model_name_or_path) p.model = e.model_name_or_path;
    return p;
  });
}

/**
 * Evaluations from a report. SWE-smith's per-instance report has no instance id inside: the
 * harness names its folder after the instance (`run_evaluation/<instance_id>/report.json`).
 */
export function evaluationsOf(value: unknown, file: string, folderName: string): Evaluation[] {
  const report = parseReport(value, file);
  if (report.kind === 'validation') return [];
  if (report.kind === 'run') {
    const s = report.summary;
    const base = { file, source: 'run-report' as const, failingTests: [] };
    return [
      ...s.resolvedIds.map((id) => ({ ...base, instanceId: id, resolved: true, patchExists: true })),
      ...s.unresolvedIds.map((id) => ({ ...base, instanceId: id, resolved: false })),
      ...s.emptyPatchIds.map((id) => ({ ...base, instanceId: id, resolved: false, patchExists: false })),
      ...s.errorIds.map((id) => ({ ...base, instanceId: id, error: 'listed in error_ids' })),
    ];
  }
  const r = report.report;
  const instanceId = report.instanceId ?? folderName;
  if (!instanceId) throw new InputError(file, '$', 'a flat report.json must sit in a folder named after its instance');
  const e: Evaluation = { instanceId, file, source: 'instance-report', resolved: r.resolved, failingTests: [] };
  if (r.tests_status) e.failingTests = [...r.tests_status.FAIL_TO_PASS.failure, ...r.tests_status.PASS_TO_PASS.failure];
  if (r.patch_exists !== undefined) e.patchExists = r.patch_exists && r.patch_is_None !== true;
  if (r.patch_successfully_applied !== undefined) e.patchApplied = r.patch_successfully_applied;
  if (r.infra_failure) {
    e.infra = true;
    e.error = r.infra_failure_reason ?? 'infrastructure failure';
    delete e.resolved;
  }
  return [e];
}
