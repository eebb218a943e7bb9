import type { GradeOutcome, Grading } from './grading';
import { maskTerm, term, type Reward } from './rewardTerms';
import type { TestStatusMap } from './testStatus';

/** SWE-bench: 1 for FULL, 0 for PARTIAL and NO; an infra failure is masked, not a 0. */
export function resolveReward(outcome: GradeOutcome | Grading): Reward {
  if ('kind' in outcome && outcome.kind === 'infra-failure') {
    return {
      value: 0,
      terms: [maskTerm('infra failure', `SWE-bench: ${outcome.reason} voids the run`)],
      masked: { reason: `infrastructure error: ${outcome.reason}`, code: 'evaluation_error' },
    };
  }
  const g = outcome as Grading;
  const rate = (l: { success: string[]; failure: string[] }) =>
    l.success.length + l.failure.length === 0 ? 1 : l.success.length / (l.success.length + l.failure.length);
  return {
    value: g.resolved ? 1 : 0,
    terms: [
      term(
        'FAIL_TO_PASS passing',
        rate(g.tests.FAIL_TO_PASS),
        `SWE-bench: ${g.tests.FAIL_TO_PASS.success.length}/${g.tests.FAIL_TO_PASS.success.length + g.tests.FAIL_TO_PASS.failure.length} pass (PASSED or XFAIL)`,
      ),
      term(
        'PASS_TO_PASS passing',
        rate(g.tests.PASS_TO_PASS),
        `SWE-bench: ${g.tests.PASS_TO_PASS.success.length}/${g.tests.PASS_TO_PASS.success.length + g.tests.PASS_TO_PASS.failure.length} still pass (SKIPPED keeps)`,
      ),
      term(`resolution ${g.resolution}`, g.resolved ? 1 : 0, 'SWE-bench: 1 only when both lists pass entirely (FULL)'),
    ],
  };
}

/** R2E-Gym: the parsed test map must equal the expected map exactly. */
export function exactMapReward(expected: TestStatusMap, actual: TestStatusMap): Reward {
  const missing = [...expected.keys()].filter((id) => !actual.has(id));
  const extra = [...actual.keys()].filter((id) => !expected.has(id));
  const differing = [...expected].filter(([id, s]) => actual.has(id) && actual.get(id) !== s);
  const rule = 'R2E-Gym: reward 1 only when the parsed map equals the expected map';
  const equal = missing.length + extra.length + differing.length === 0;
  return {
    value: equal ? 1 : 0,
    terms: [
      term('tests missing', missing.length, rule),
      term('tests not expected', extra.length, rule),
      term('statuses differing', differing.length, rule),
      term('exact match', equal ? 1 : 0, rule),
    ],
  };
}

/** Solver (SSR): 1 when every test of the original, unweakened suite passes after the patch. */
export function solverReward(statuses: TestStatusMap): Reward {
  const failing = [...statuses].filter(([, s]) => s === 'FAILED' || s === 'ERROR');
  const solved = statuses.size > 0 && failing.length === 0;
  const rule = 'SSR solver: 1 if every test passes with the original tests, else 0';
  return {
    value: solved ? 1 : 0,
    terms: [term('tests run', statuses.size, rule), term('tests failing', failing.length, rule), term('solved', solved ? 1 : 0, rule)],
  };
}

export interface InjectorRewardOptions {
  /** Weight of the penalty for a trivial or impossible bug (SSR's alpha). */
  alpha?: number;
  /**
   * `linear`: 1 - (1 + alpha) * s inside (0, 1), rewarding the hardest solvable bugs most;
   * `peaked`: 4 s (1 - s), highest at s = 0.5.
   */
  shape?: 'linear' | 'peaked';
  /** Reward of a bug that fails a consistency check. */
  inconsistent?: number;
}

/**
 * SSR injector: an inconsistent bug gets the lowest reward; a bug every attempt solves or none
 * solves (s = 1 or s = 0) gets -alpha; a bug at the edge of the solver's ability (0 < s < 1) gets
 * the most. Both shapes stay above -alpha inside (0, 1).
 */
export function injectorReward(consistent: boolean, solved: number, attempts: number, options: InjectorRewardOptions = {}): Reward {
  const alpha = options.alpha ?? 0.8;
  const shape = options.shape ?? 'linear';
  const lowest = options.inconsistent ?? -1;
  const consistency = term('consistency', consistent ? 1 : 0, 'SSR: all seven consistency checks pass');
  if (!consistent) return { value: lowest, terms: [consistency, term('inconsistent bug', lowest, 'SSR: an inconsistent bug gets the lowest reward')] };
  if (attempts <= 0) throw new RangeError('the solve rate needs at least one attempt');
  const s = solved / attempts;
  const rate = term('solve rate', s, `SSR: ${solved} of ${attempts} attempts solved`);
  if (s === 0 || s === 1)
    return { value: -alpha, terms: [consistency, rate, term(s === 0 ? 'impossible' : 'trivial', -alpha, `SSR: s = ${s} gets -alpha (alpha = ${alpha})`)] };
  const edge = shape === 'linear' ? 1 - (1 + alpha) * s : 4 * s * (1 - s);
  const rule = shape === 'linear' ? `SSR linear: 1 - (1 + alpha) * s, alpha = ${alpha}` : 'SSR peaked: 4 * s * (1 - s)';
  return { value: edge, terms: [consistency, rate, term('difficulty', edge, rule)] };
}

/** SWE-Master: a run cut by the turn limit that holds a correct patch is force-submitted at alpha of a success. */
export function forcedSubmissionReward(run: { resolved: boolean; truncated: boolean; infraError?: string }, alpha = 0.5): Reward {
  if (run.infraError)
    return {
      value: 0,
      terms: [maskTerm('infra error', 'SWE-Master: container errors are masked out of the loss')],
      masked: { reason: `${FINISH_REASON_TEXT.infra_error}: ${run.infraError}`, code: 'infra_error' },
    };
  const base = run.resolved ? 1 : 0;
  const discount = run.truncated ? alpha : 1;
  return {
    value: base * discount,
    terms: [
      term('resolved', base, 'SWE-Master: the (forced) submission passes the tests'),
      term('forced-submission discount', discount, `SWE-Master: alpha = ${alpha} when the turn limit forced the submission`),
    ],
  };
}

/** Nebius (SWE-rebench RL): success plus a penalty growing linearly from `threshold` steps to `maxSteps`. */
export function overlongStepsReward(run: { resolved: boolean; steps: number }, options: { threshold: number; maxSteps: number; maxPenalty?: number }): Reward {
  const { threshold, maxSteps } = options;
  if (!(maxSteps > threshold)) throw new RangeError(`maxSteps (${maxSteps}) must exceed threshold (${threshold})`);
  const maxPenalty = options.maxPenalty ?? 1;
  const fraction = Math.min(1, Math.max(0, (run.steps - threshold) / (maxSteps - threshold)));
  const penalty = -maxPenalty * fraction;
  return {
    value: (run.resolved ? 1 : 0) + penalty,
    terms: [
      term('success', run.resolved ? 1 : 0, 'Nebius: sparse success reward'),
      term('overlong steps', penalty, `Nebius: ${run.steps} steps; penalty from ${threshold} to ${maxSteps} steps, up to ${maxPenalty}`),
    ],
  };
}

export const FINISH_REASONS = [
  'submitted',
  'max_steps',
  'max_length',
  'context_exceeded',
  'timeout',
  'command_timeout',
  'runtime_error',
  'evaluation_error',
  'bad_llm_response',
  'stuck_in_loop',
  'infra_error',
  'format_error',
  'no_submission',
  'budget_exceeded',
] as const;
export type FinishReason = (typeof FINISH_REASONS)[number];

/** What each finish reason means to a person, as a mask reason reads: "masked: container error". */
const FINISH_REASON_TEXT: Record<FinishReason, string> = {
  submitted: 'submitted',
  max_steps: 'step limit reached',
  max_length: 'response length limit reached',
  context_exceeded: 'context window exceeded',
  timeout: 'run timed out',
  command_timeout: 'command timed out',
  runtime_error: 'runtime error',
  evaluation_error: 'evaluation error',
  bad_llm_response: 'unparseable model response',
  stuck_in_loop: 'stuck in a loop',
  infra_error: 'container error',
  format_error: 'format error',
  no_submission: 'no submission',
  budget_exceeded: 'cost budget exceeded',
};

/** The mask a finish reason gets when it is in `masked`, with the rule that lists it; undefined when it is not. */
export function maskFor(
  finishReason: FinishReason | undefined,
  masked: readonly FinishReason[],
  detail?: string,
): { reason: string; code: FinishReason } | undefined {
  if (finishReason === undefined || !masked.includes(finishReason)) return undefined;
  return { reason: FINISH_REASON_TEXT[finishReason] + (detail ? `: ${detail}` : ''), code: finishReason };
}

/** SkyRL-Agent's masked finish reasons ("max iterations" is our max_steps). */
export const SKYRL_MASKED: readonly FinishReason[] = [
  'context_exceeded',
  'runtime_error',
  'evaluation_error',
  'max_steps',
  'bad_llm_response',
  'stuck_in_loop',
  'command_timeout',
];
/** DeepSWE's compact filtering: max length, timeout and max steps. */
export const DEEPSWE_COMPACT_FILTERED: readonly FinishReason[] = ['max_length', 'context_exceeded', 'timeout', 'command_timeout', 'max_steps'];

/** Binary success whose loss is masked for the listed finish reasons (SkyRL-Agent by default). */
export function maskedFinishReward(run: { resolved: boolean; finishReason: FinishReason }, masked: readonly FinishReason[] = SKYRL_MASKED): Reward {
  const value = run.resolved ? 1 : 0;
  const success = term('success', value, 'binary resolve');
  const mask = maskFor(run.finishReason, masked);
  if (!mask) return { value, terms: [success] };
  return {
    value,
    terms: [success, maskTerm(`masked: ${run.finishReason}`, `finish reason in the masked list (${masked.join(', ')})`)],
    masked: mask,
  };
}
