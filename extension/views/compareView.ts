import { alignRuns, normaliseAction } from '../core/trajectory/alignSteps';
import type { Trajectory } from '../core/trajectory/model';
import { outcomeText, runFacts } from '../core/trajectory/runFacts';
import type { CompareContent, CompareRun } from '../protocol/compare';
import { toStepSummary } from './stepView';

export interface LoadedRun {
  label: string;
  path: string;
  trajectory: Trajectory;
}

function runView({ label, path, trajectory: t }: LoadedRun): CompareRun {
  return {
    label,
    path,
    format: t.format,
    ...(t.task.instanceId ? { instanceId: t.task.instanceId } : {}),
    ...(t.meta.model ? { model: t.meta.model } : {}),
    stepCount: t.steps.length,
    outcome: outcomeText(t.outcome),
    ...runFacts(t),
    patch: t.outcome.submission?.trim() ? t.outcome.submission : '',
  };
}

/** What the compare view shows: the runs side by side, their steps aligned by action. */
export function compareContent(runs: readonly LoadedRun[]): CompareContent {
  const alignment = alignRuns(runs.map(({ trajectory: t }) => t.steps.map((s) => normaliseAction(s.action, t.task.repoPath))));
  const rows = alignment.rows.map((row) => ({
    same: row.same,
    cells: row.steps.map((index, r) => {
      if (index === null) return null;
      const s = toStepSummary(runs[r]!.trajectory.steps[index]!);
      return { index, kind: s.kind, label: s.label, fullLabel: s.fullLabel, error: s.error };
    }),
  }));
  const instances = [...new Set(runs.map((r) => r.trajectory.task.instanceId).filter((id): id is string => id !== undefined))];
  const unnamed = runs.filter((r) => r.trajectory.task.instanceId === undefined).map((r) => r.label);
  const warning =
    instances.length > 1
      ? `These runs are of different tasks (${instances.join(', ')}): the alignment compares actions, not outcomes on one task.`
      : unnamed.length > 0 && instances.length === 1
        ? `${unnamed.join(', ')} ${unnamed.length === 1 ? 'does' : 'do'} not name a task; the others are of ${instances[0]}.`
        : undefined;
  return {
    title: instances.length === 1 ? `Compare ${runs.length} runs of ${instances[0]}` : `Compare ${runs.length} runs`,
    runs: runs.map(runView),
    rows,
    firstDivergence: alignment.firstDivergence,
    ...(warning ? { warning } : {}),
  };
}
