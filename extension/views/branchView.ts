/**
 * A branch run (core/branch) as the stepper's value strip and the branch tree show it: V(t) and
 * its interval as text, unknown when no continuation of a state was graded (never 0), the critical
 * step in words, each continuation's outcome and reward ("masked: REASON" when masked).
 */
import { continuationRewardText, type BranchSummary, type BranchValue, type ValueChange } from '../core/reward/branchValues';
import type { CriticalStep } from '../core/rollouts/branchIndex';
import type { BranchStrip } from '../protocol/stepper';

/** A value as the views print it: two decimals, or unknown. */
export function valueText(x: number | null | undefined): string {
  return x === null || x === undefined ? 'unknown' : x.toFixed(2);
}

/** Which steps a change of V spans: one step, or the steps between two branch points. */
export function changeSpan(change: Pick<ValueChange, 'from' | 'to'>): string {
  return change.to - change.from === 1 ? `step ${change.to}` : `steps ${change.from + 1}..${change.to}`;
}

/** The state a value is of, counted as people count steps. */
function stateLabel(afterStep: number): string {
  return afterStep === 0 ? 'start' : `after step ${afterStep}`;
}

function intervalText(v: BranchValue): string {
  return v.interval ? `[${valueText(v.interval.low)}, ${valueText(v.interval.high)}]` : 'unknown';
}

const maskedCount = (v: BranchValue) => v.masked.reduce((n, m) => n + m.count, 0);

/** V, its interval, n and the masked ones, in one line ("V 0.25 [0.10, 0.49] n 16, 2 masked"). */
function valueLine(v: BranchValue): string {
  const masked = maskedCount(v);
  return `V ${valueText(v.value)} ${intervalText(v)} n ${v.n}${masked > 0 ? `, ${masked} masked` : ''}`;
}

/** The hover of a value: its line, the interval's method and each masked reason. */
function valueTitle(v: BranchValue): string {
  const method = v.interval ? ` (95%, ${v.interval.method === 'wilson' ? "Wilson's interval" : 'bootstrap'})` : '';
  return [`${stateLabel(v.at)}: ${valueLine(v)}${method}`, ...v.masked.map((m) => `${m.count} masked: ${m.reason}`)].join('\n');
}

/**
 * A branched rollout's critical step in one cell ("step 7 (V 0.75 -> 0.12)", "steps 3..5 (...)"),
 * "none" when V never fell; null when the rollout was not branched.
 */
export function criticalStepText(critical: CriticalStep | null | undefined): string | null {
  if (critical === undefined) return null;
  if (critical === null) return 'none';
  return `${changeSpan(critical)} (V ${valueText(critical.before)} -> ${valueText(critical.after)})`;
}

export function criticalText(summary: BranchSummary): string {
  const { critical } = summary;
  if (!critical) return 'critical step: none (V never falls between the states branched)';
  const at = (t: number) => valueText(summary.values.find((v) => v.at === t)?.value);
  return `critical step: ${changeSpan(critical)} (V falls ${valueText(-critical.change)}, from ${at(critical.from)} to ${at(critical.to)})`;
}

/** The value strip of the stepper's timeline. */
export function branchStrip(summary: BranchSummary, folder: string): BranchStrip {
  return {
    folder,
    critical: criticalText(summary),
    cells: summary.values.map((v) => ({
      afterStep: v.at,
      value: valueText(v.value),
      interval: intervalText(v),
      n: v.n,
      masked: maskedCount(v),
      critical: summary.critical?.to === v.at,
      title: valueTitle(v),
    })),
  };
}

/** A branch point's row in the tree. */
export function branchPointItem(v: BranchValue, summary: BranchSummary): { label: string; description: string; tooltip: string } {
  const critical = summary.critical?.to === v.at;
  return { label: `${stateLabel(v.at)}${critical ? ' (critical)' : ''}`, description: valueLine(v), tooltip: valueTitle(v) };
}

/** A continuation's row in the tree: its number, then outcome, reward (or "masked: REASON") and steps. */
export function continuationItem(c: { sample: number; outcome: string; steps: number; reward: number | null; mask: string | null }): {
  label: string;
  description: string;
} {
  return {
    label: `continuation ${c.sample + 1}`,
    description: `${c.outcome}, reward ${continuationRewardText(c)}, ${c.steps} step${c.steps === 1 ? '' : 's'}`,
  };
}

/** A branch run's progress in one line: each state's done, running and left. */
export function branchProgressText(progress: readonly { afterStep: number; done: number; running: number; left: number }[]): string {
  const total = (key: 'done' | 'running' | 'left') => progress.reduce((n, p) => n + p[key], 0);
  return `${total('done')} done, ${total('running')} running, ${total('left')} left (${progress
    .map((p) => `${p.afterStep === 0 ? 'start' : `step ${p.afterStep}`} ${p.done}/${p.done + p.running + p.left}`)
    .join(', ')})`;
}
