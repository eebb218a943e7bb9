import type { ModelStats, Step, Trajectory } from './model';
import { ownSteps } from './copiedContext';

/**
 * What a run cost and used, with `undefined` wherever the recording does not say. Scaffolds
 * that do not count (SWE-agent replays and demos, most RL exports) write zeros: zero tokens
 * for a run that took steps is "not counted", and a zero cost beside uncounted tokens is too.
 * A zero cost beside counted tokens stays: a local model is free.
 */
export function recordedModelStats(stats: ModelStats | undefined, stepCount: number): ModelStats | undefined {
  if (!stats) return undefined;
  const ran = stepCount > 0 || (stats.apiCalls ?? 0) > 0;
  const tokensCounted = (stats.tokensSent ?? 0) + (stats.tokensReceived ?? 0) > 0 || !ran;
  const out: ModelStats = {};
  if (tokensCounted && stats.tokensSent !== undefined) out.tokensSent = stats.tokensSent;
  if (tokensCounted && stats.tokensReceived !== undefined) out.tokensReceived = stats.tokensReceived;
  if (stats.instanceCost !== undefined && (stats.instanceCost > 0 || tokensCounted)) out.instanceCost = stats.instanceCost;
  if (stats.apiCalls !== undefined && (stats.apiCalls > 0 || stepCount === 0)) out.apiCalls = stats.apiCalls;
  return Object.keys(out).length > 0 ? out : undefined;
}

export interface RunFacts {
  /** USD, as the scaffold counted it. */
  cost?: number;
  tokensIn?: number;
  tokensOut?: number;
  calls?: number;
  /** Seconds: from the first to the last timestamp, else the sum of the steps' execution times. */
  duration?: number;
}

function sumOf(steps: readonly Step[], pick: (s: Step) => number | undefined): number | undefined {
  let total: number | undefined;
  for (const s of steps) {
    const n = pick(s);
    if (n !== undefined) total = (total ?? 0) + n;
  }
  return total;
}

/** Wall time from the first to the last timestamp when steps carry them, else the sum of execution times. */
export function runDuration(steps: ReadonlyArray<Pick<Step, 'timestamp' | 'executionTime'>>): number | undefined {
  const times = steps.map((s) => (s.timestamp ? Date.parse(s.timestamp) : NaN)).filter((n) => Number.isFinite(n));
  if (times.length >= 2) return (Math.max(...times) - Math.min(...times)) / 1000;
  let total: number | undefined;
  for (const s of steps) if (s.executionTime !== undefined) total = (total ?? 0) + s.executionTime;
  return total;
}

/** The run header's numbers: the scaffold's own totals when it kept them, else the per-step usage. */
export function runFacts(t: Pick<Trajectory, 'steps' | 'outcome'>): RunFacts {
  const stats = recordedModelStats(t.outcome.modelStats, t.steps.length);
  const facts: RunFacts = {};
  const set = <K extends keyof RunFacts>(key: K, value: number | undefined) => {
    if (value !== undefined) facts[key] = value;
  };
  set('cost', stats?.instanceCost);
  // A step copied in for context was counted where it was first taken.
  const own = ownSteps(t.steps);
  set('tokensIn', stats?.tokensSent ?? sumOf(own, (s) => s.tokens?.prompt));
  set('tokensOut', stats?.tokensReceived ?? sumOf(own, (s) => s.tokens?.completion));
  set('calls', stats?.apiCalls ?? (own.some((s) => s.tokens) ? own.filter((s) => s.tokens).length : undefined));
  set('duration', runDuration(t.steps));
  return facts;
}

/** How the run ended, in words: resolved, not resolved, or the scaffold's exit status with "not graded". */
export function outcomeText(outcome: Trajectory['outcome']): string {
  const graded =
    outcome.resolved !== undefined
      ? outcome.resolved
        ? 'resolved'
        : 'not resolved'
      : outcome.reward !== undefined
        ? `reward ${outcome.reward}`
        : 'not graded';
  const reward = outcome.resolved !== undefined && outcome.reward !== undefined ? ` (reward ${outcome.reward})` : '';
  return `${graded}${reward}${outcome.exitStatus ? `, exit: ${outcome.exitStatus}` : ''}`;
}

/**
 * The file open after step `index`. SWE-agent 0.x writes each step's state as the model saw it
 * before acting (its importer marks that), so the file open after a step is the next step's;
 * after the last step it is not recorded unless the step itself opened or created one.
 */
export function openFileAfter(t: Pick<Trajectory, 'steps' | 'meta'>, index: number): string | null | undefined {
  const step = t.steps[index];
  if (!step) return undefined;
  if (t.meta.stateTiming !== 'before-action') return step.state?.openFile;
  const next = t.steps[index + 1];
  if (next) return next.state?.openFile;
  const named = step.action.args.path ?? step.action.args.filename;
  return (step.action.tool === 'open' || step.action.tool === 'create') && typeof named === 'string' ? named : undefined;
}
