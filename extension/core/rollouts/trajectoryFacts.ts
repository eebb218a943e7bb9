import type { Outcome, Step, Trajectory, TrajectoryFormat } from '../trajectory/model';
import { recordedModelStats, runDuration } from '../trajectory/runFacts';
import { agentSteps, ownSteps } from '../trajectory/copiedContext';
import { factsOf } from '../trajectory/formatFacts';
import type { StepRun, TrajectoryFacts } from './record';
import { patchDigest } from './patchDigest';

/**
 * OpenHands' StuckDetector calls an agent stuck after four identical action/observation
 * pairs in a row; the same count is used here so both tools flag the same rollouts.
 */
export const STUCK_LOOP_MIN_REPEATS = 4;
/** SWE-agent's windowed edit lets the model retry a rejected edit; three rejections in a row is a loop. */
export const LINT_LOOP_MIN_REJECTIONS = 3;

/** Whether files of `format` always say what was submitted (`TrajectoryFormatDefinition.recordsSubmission`). */
const recordsSubmission = (format: TrajectoryFormat) => factsOf(format)?.recordsSubmission === true;

/** What the facts read of a step: a Step, or the few fields a summary read computes without building one. */
type StepFactsInput = Pick<Step, 'formatError' | 'flags' | 'timestamp' | 'executionTime' | 'tokens'> & { action: Pick<Step['action'], 'raw'> };

/** What the facts read of a trajectory; a Trajectory is one. */
export interface TrajectoryFactsInput {
  format: TrajectoryFormat;
  task: Pick<Trajectory['task'], 'instanceId'>;
  meta: Pick<Trajectory['meta'], 'id'>;
  outcome: Pick<Outcome, 'exitStatus' | 'submission' | 'resolved' | 'reward' | 'error' | 'modelStats'>;
  steps: StepFactsInput[];
}

export function trajectoryFacts(t: TrajectoryFactsInput, line?: number): TrajectoryFacts {
  // Its agent steps, as its producer counts them: a message kept in its place and a step copied in for context (ATIF's) are not counted, as a reward reads the count.
  const facts: TrajectoryFacts = { format: t.format, steps: agentSteps(t.steps).length };
  if (t.outcome.submission !== undefined || recordsSubmission(t.format)) facts.hasSubmission = (t.outcome.submission ?? '').trim().length > 0;
  assign(facts, 'patchDigest', patchDigest(t.outcome.submission));
  if (line !== undefined) facts.line = line;
  assign(facts, 'instanceId', t.task.instanceId);
  assign(facts, 'trajectoryId', t.meta.id);
  assign(facts, 'exitStatus', t.outcome.exitStatus);
  assign(facts, 'resolved', t.outcome.resolved);
  assign(facts, 'reward', t.outcome.reward);
  assign(facts, 'error', t.outcome.error);
  assign(facts, 'tokens', tokensOf(t));
  assign(facts, 'cost', recordedModelStats(t.outcome.modelStats, t.steps.length)?.instanceCost);
  assign(facts, 'duration', runDuration(t.steps));
  assign(
    facts,
    'formatErrors',
    countSteps(t.steps, (s) => s.formatError !== undefined),
  );
  assign(facts, 'timeouts', countSteps(t.steps, isTimeout));
  assign(facts, 'lintRejections', longestRun(t.steps, isLintRejected));
  // Identical means the same text from the model: a re-parse of the same text gives the same tool and arguments.
  const repeated = longestRun(
    t.steps,
    (s) => s.action.raw.trim() !== '',
    (a, b) => a.action.raw.trim() === b.action.raw.trim(),
  );
  if (repeated) facts.repeatedAction = { ...repeated, action: t.steps[repeated.step]!.action.raw.trim().slice(0, 200) };
  return facts;
}

function assign<K extends keyof TrajectoryFacts>(facts: TrajectoryFacts, key: K, value: TrajectoryFacts[K] | undefined): void {
  if (value !== undefined) facts[key] = value;
}

/** Model stats when the scaffold kept them (SWE-agent, mini-swe-agent), else the per-step usage. */
function tokensOf(t: TrajectoryFactsInput): number | undefined {
  // Zeros a scaffold wrote without counting are unknown, not 0 (core/trajectory/runFacts).
  const stats = recordedModelStats(t.outcome.modelStats, t.steps.length);
  if (stats?.tokensSent !== undefined || stats?.tokensReceived !== undefined) return (stats.tokensSent ?? 0) + (stats.tokensReceived ?? 0);
  let total: number | undefined;
  for (const s of ownSteps(t.steps)) {
    const n =
      s.tokens?.total ??
      (s.tokens?.prompt !== undefined || s.tokens?.completion !== undefined ? (s.tokens.prompt ?? 0) + (s.tokens.completion ?? 0) : undefined);
    if (n !== undefined) total = (total ?? 0) + n;
  }
  return total;
}

function isTimeout(s: StepFactsInput): boolean {
  return s.flags?.includes('timeout') === true;
}

function isLintRejected(s: StepFactsInput): boolean {
  return s.flags?.includes('lint-rejected') === true;
}

function countSteps(steps: StepFactsInput[], match: (s: StepFactsInput) => boolean): { first: number; count: number } | undefined {
  let first = -1;
  let count = 0;
  steps.forEach((s, i) => {
    if (!match(s)) return;
    if (first < 0) first = i;
    count++;
  });
  return count > 0 ? { first, count } : undefined;
}

/** The longest run (two or more) of consecutive eligible steps where each is `same` as the one before. */
function longestRun(
  steps: StepFactsInput[],
  eligible: (s: StepFactsInput) => boolean,
  same: (a: StepFactsInput, b: StepFactsInput) => boolean = () => true,
): StepRun | undefined {
  let best: StepRun | undefined;
  let start = 0;
  let length = 0;
  steps.forEach((s, i) => {
    const prev = steps[i - 1];
    if (!eligible(s)) length = 0;
    else if (length > 0 && prev !== undefined && same(prev, s)) length++;
    else {
      start = i;
      length = 1;
    }
    if (length > 1 && (!best || length > best.count)) best = { step: start, count: length };
  });
  return best;
}
