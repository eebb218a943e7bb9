import type { Rollout } from '../core/rollouts/record';
import { alignRuns, normaliseAction } from '../core/trajectory/alignSteps';
import type { Trajectory } from '../core/trajectory/model';
import { outcomeText, runFacts } from '../core/trajectory/runFacts';
import type { CompareContent, CompareRun } from '../protocol/compare';
import { toStepSummary } from './stepView';

export interface LoadedRun {
  path: string;
  /** The 0-based record of a JSONL file. */
  record?: number;
  /** Its 1-based line in the file: how the run is named (`deepswe.jsonl:3`, as the rollouts table and the CLI name it). */
  line?: number;
  trajectory: Trajectory;
  /** The run's row in the indexed rollouts folder, when it is one: its attempt and the evidence that graded it. */
  rollout?: Pick<Rollout, 'attempt' | 'instance' | 'resolved' | 'reward' | 'evaluation'>;
}

/** A file's name, with `:LINE` for a record of a JSONL file (its line, else its 1-based record). */
function fileName(parts: readonly string[], run: LoadedRun): string {
  const line = run.line ?? (run.record === undefined ? undefined : run.record + 1);
  return `${parts.at(-1) ?? ''}${line === undefined ? '' : `:${line}`}`;
}

/**
 * Names the runs' files so that no two read alike: the file's name alone when that is enough,
 * else the first folder where their paths differ before it (`attempt_1/…/x.traj`).
 */
function distinctNames(runs: readonly LoadedRun[]): string[] {
  const paths = runs.map((r) => r.path.split(/[\\/]+/).filter((p) => p !== ''));
  const names = runs.map((r, i) => fileName(paths[i]!, r));
  if (new Set(names).size === names.length) return names;
  let shared = 0;
  while (paths.every((p) => p.length > shared + 1 && p[shared] === paths[0]![shared])) shared++;
  return runs.map((r, i) => {
    const rest = paths[i]!.slice(shared);
    if (rest.length < 2) return names[i]!;
    return `${rest[0]}/${rest.length > 2 ? '…/' : ''}${names[i]}`;
  });
}

/** How the run ended: the verdict the rollouts table shows when the run is one of its rows, else what the trajectory records. */
function outcomeOf(run: LoadedRun): { outcome: string; gradedBy?: string } {
  const { outcome } = run.trajectory;
  const r = run.rollout;
  if (!r || r.resolved === null)
    return { outcome: outcomeText(outcome), ...(outcome.resolved !== undefined || outcome.reward !== undefined ? { gradedBy: 'the trajectory' } : {}) };
  const reward = r.reward !== undefined && r.evaluation === undefined ? ` (reward ${r.reward})` : '';
  return {
    outcome: `${r.resolved ? 'resolved' : 'not resolved'}${reward}${outcome.exitStatus ? `, exit: ${outcome.exitStatus}` : ''}`,
    gradedBy: r.evaluation?.file ?? 'the trajectory',
  };
}

function runView(run: LoadedRun, name: string, byAttempt: boolean): CompareRun {
  const t = run.trajectory;
  return {
    label: byAttempt ? `attempt ${run.rollout!.attempt}` : name,
    detail: `${t.format}${byAttempt ? ` · ${name}` : ''}`,
    path: run.path,
    format: t.format,
    ...(t.task.instanceId ? { instanceId: t.task.instanceId } : {}),
    ...(t.meta.model ? { model: t.meta.model } : {}),
    stepCount: t.steps.length,
    ...outcomeOf(run),
    ...runFacts(t),
    patch: t.outcome.submission?.trim() ? t.outcome.submission : '',
    diverged: t.steps.flatMap((step, i) => (toStepSummary(step).diverged ? [i] : [])),
  };
}

/**
 * The view's title names its runs (`Compare attempts 1, 2 of X`, `Compare a.traj, b.traj of X`), as
 * their columns do: two comparisons of different runs of one task are two tabs a person tells apart.
 */
function titleOf(runs: readonly LoadedRun[], names: readonly string[], byAttempt: boolean, instances: readonly string[]): string {
  const which = byAttempt ? `attempts ${runs.map((r) => r.rollout!.attempt).join(', ')}` : names.join(', ');
  return instances.length === 1 ? `Compare ${which} of ${instances[0]}` : `Compare ${which}`;
}

export interface CompareFrom {
  /** The branch point: the runs share their first `afterStep` steps (a continuation and the recording it forked from after that step). */
  afterStep: number;
}

/**
 * What the compare view shows: the runs side by side, their steps aligned by action. From a
 * branch point, the shared prefix and the steps after it are aligned apart, so the rows after
 * it start together at the first step after the branch point whatever the prefix held.
 */
export function compareContent(runs: readonly LoadedRun[], from?: CompareFrom): CompareContent {
  const split = from?.afterStep ?? 0;
  if (from) {
    const short = runs.find((r) => r.trajectory.steps.length < split);
    if (short) throw new Error(`cannot compare from the branch point after step ${split}: ${short.path} has only ${short.trajectory.steps.length} steps`);
  }
  const actions = runs.map(({ trajectory: t }) => t.steps.map((s) => normaliseAction(s.action, t.task.repoPath)));
  const prefix = from ? alignRuns(actions.map((a) => a.slice(0, split))) : { rows: [], firstDivergence: null };
  const rest = alignRuns(actions.map((a) => a.slice(split)));
  const aligned = [
    ...prefix.rows.map((row) => ({ ...row, shared: true })),
    ...rest.rows.map((row) => ({ same: row.same, steps: row.steps.map((s) => (s === null ? null : s + split)) })),
  ];
  const rows = aligned.map((row) => ({
    same: row.same,
    ...('shared' in row ? { shared: true } : {}),
    cells: row.steps.map((index, r) => {
      if (index === null) return null;
      const s = toStepSummary(runs[r]!.trajectory.steps[index]!);
      return { index, kind: s.kind, label: s.label, fullLabel: s.fullLabel, error: s.error, diverged: s.diverged };
    }),
  }));
  const firstDivergence = rest.firstDivergence === null ? null : rest.firstDivergence + prefix.rows.length;
  const taskOf = (r: LoadedRun) => r.trajectory.task.instanceId ?? r.rollout?.instance;
  const instances = [...new Set(runs.map(taskOf).filter((id): id is string => id !== undefined))];
  // A run that names no task beside runs of one task does not change the reading: only runs of different tasks are warned of.
  const warning =
    instances.length > 1 ? `These runs are of different tasks (${instances.join(', ')}): the alignment compares actions, not outcomes on one task.` : undefined;
  const attempts = runs.map((r) => r.rollout?.attempt);
  const byAttempt = attempts.every((a) => a !== undefined) && new Set(attempts).size === runs.length && instances.length === 1;
  const names = distinctNames(runs);
  return {
    title: titleOf(runs, names, byAttempt, instances),
    runs: runs.map((r, i) => runView(r, names[i]!, byAttempt)),
    rows,
    firstDivergence,
    ...(from ? { branchPoint: { afterStep: split, sharedRows: prefix.rows.length } } : {}),
    ...(warning ? { warning } : {}),
  };
}
