import { gradeTestOutput, resolutionOf, type ExpectedTests, type GradeOutcome } from './grading';
import type { RolloutEvidence } from './recipes';
import type { InstanceReport } from './reports';
import { maskTerm, term, type Reward } from './rewardTerms';
import { resolveReward } from './shapes';
import type { TestOutputFormat } from './testOutput';

/**
 * Grades a test output against the instance's lists: a harness log (it holds the
 * '>>>>> Start Test Output' marker) is read between its markers, where an infra marker voids the
 * run; plain pytest / unittest output is read whole. The CLI and the reward view both call this.
 */
export function gradeOutput(expected: ExpectedTests, text: string, format: TestOutputFormat = 'auto'): GradeOutcome {
  return gradeTestOutput(expected, text, format);
}

/**
 * The SWE-bench reward a per-instance report.json states: masked on an infra failure, graded
 * from its tests_status when it has one, else its resolved flag alone.
 */
export function instanceReportReward(report: InstanceReport): Reward {
  if (report.infra_failure) {
    const reason = report.infra_failure_reason ?? 'infrastructure failure';
    return { value: 0, terms: [maskTerm('infra failure', `report: ${reason}`)], masked: { reason, code: 'infra_error' } };
  }
  if (report.tests_status) return resolveReward({ tests: report.tests_status, resolution: resolutionOf(report.tests_status), resolved: report.resolved });
  const value = report.resolved ? 1 : 0;
  return { value, terms: [term('resolved', value, 'report: resolved flag')] };
}

/** What a grading tells a recipe: the verdict, the statuses, the lists, and the gold patch when the instance has one. */
export function evidenceFromGrading(
  outcome: GradeOutcome,
  instance: ExpectedTests & { patch?: string | undefined },
  run: Partial<RolloutEvidence> = {},
): RolloutEvidence {
  return {
    resolved: outcome.kind === 'graded' ? outcome.resolved : null,
    grading: outcome,
    expected: instance,
    ...(instance.patch !== undefined ? { gold: instance.patch } : {}),
    ...run,
  };
}

/** What a per-instance report tells a recipe: its resolved flag, or the infra failure that voids it. */
export function evidenceFromReport(report: InstanceReport, run: Partial<RolloutEvidence> = {}): RolloutEvidence {
  if (report.infra_failure) return { resolved: null, evaluationError: report.infra_failure_reason ?? 'infrastructure failure', ...run };
  return { resolved: report.resolved, ...run };
}
