import type { Evaluation, Evidence, FailureClass, Prediction, Rollout, TrajectoryFacts } from './record';
import { LINT_LOOP_MIN_REJECTIONS, STUCK_LOOP_MIN_REPEATS } from './trajectoryFacts';
import { allFormatFacts, type ExitClass } from '../trajectory/formatFacts';

export interface Classification {
  resolved: boolean | null;
  submitted: boolean | null;
  failure: FailureClass;
  tags: FailureClass[];
  evidence: Evidence;
}

interface Inputs {
  facts: TrajectoryFacts;
  evaluation: Evaluation | undefined;
  prediction: Prediction | undefined;
}

interface Rule {
  failure: FailureClass;
  /** Evidence when the rule matches, undefined when it does not. */
  match(i: Inputs, verdict: Verdict): Evidence | undefined;
}

interface Verdict {
  resolved: boolean | null;
  /** null when nothing records a submission. */
  submitted: boolean | null;
  /** The agent's own termination reason, lower-cased (exit_status, exit_reason, finish_reason...). */
  exit: string;
  /** The same, as the file writes it, for evidence. */
  exitText: string;
}

/**
 * Exit statuses as written by each scaffold, matched on the lower-cased value (each format names
 * its own in `TrajectoryFormatDefinition.exitStatuses`; the words here are no one format's):
 * - SWE-agent `info.exit_status`: `submitted`, `exit_context`, `exit_cost`, `exit_format`,
 *   `exit_command_timeout`, `exit_total_execution_time`, `exit_environment_error`, `exit_api`,
 *   `exit_error`, `exit_forfeit`; after an error with a patch on disk, `submitted (exit_X)`.
 * - mini-swe-agent `info.exit_status`: the exception's class name: `Submitted`,
 *   `LimitsExceeded` (step or cost limit: the file does not say which), `FormatError`,
 *   `ExecutionTimeoutError`, or any uncaught exception (`RuntimeError`, `DockerException`...).
 * - SkyRL-Agent `finish_reason`: `FINISH_TOOL`, `CONTEXT_WINDOW_EXCEEDED`, `error_runtime`,
 *   `error_evaluation`, `max_iterations_reached`, `BAD_LLM_RESPONSE`, `stuck_in_a_loop`, `cmd_timeout`.
 * - R2E-Gym `exit_reason`: `agent` when it finished, otherwise the limit hit; matched by the
 *   keywords below (`max_step...`, `token_limit`, `..._time_limit`), so variants still land.
 * - rLLM `termination_reason`: `ENV_DONE`, `MAX_TURNS_EXCEEDED`, `MAX_PROMPT_LENGTH_EXCEEDED`,
 *   `MAX_RESPONSE_LENGTH_EXCEEDED`, `TIMEOUT`.
 * The importers put each of these in `outcome.exitStatus`. An exit status that names an
 * exception other than the format and timeout ones is the harness failing, not the policy.
 */
const GENERIC_EXIT: Readonly<Partial<Record<ExitClass, RegExp>>> = {
  infra: /docker|container|sandbox|runtime ?error|(?<!format|timeout)(error|exception)$/,
  context: /max_tokens/,
  maxSteps: /step_limit/,
  budget: /cost_limit/,
};

const EXIT_CLASSES: readonly ExitClass[] = ['infra', 'evaluation', 'context', 'maxSteps', 'budget', 'commandTimeout', 'format', 'stuck', 'finished'];
/** Matches nothing: a class no format names. */
const NEVER = /(?!)/;

let exitPatterns: { formats: number; exit: Record<ExitClass, RegExp> } | undefined;

/** Each class's pattern: every registered format's words for it and the generic ones, as alternatives (built again only when a format was registered since). */
function exitClasses(): Record<ExitClass, RegExp> {
  const formats = allFormatFacts();
  if (exitPatterns?.formats !== formats.length) {
    const join = (c: ExitClass) => {
      const parts = [...formats.map((f) => f.exitStatuses?.[c]), GENERIC_EXIT[c]].filter((p) => p !== undefined);
      return parts.length === 0 ? NEVER : new RegExp(parts.map((p) => p.source).join('|'));
    };
    exitPatterns = { formats: formats.length, exit: Object.fromEntries(EXIT_CLASSES.map((c) => [c, join(c)])) as Record<ExitClass, RegExp> };
  }
  return exitPatterns.exit;
}

function exitRule(failure: FailureClass, exitClass: ExitClass): Rule {
  return {
    failure,
    match: (_i, v) => (exitClasses()[exitClass].test(v.exit) ? { detail: `exit status '${v.exitText}'` } : undefined),
  };
}

/**
 * Rules in priority order; the first match is the rollout's class, every match becomes a tag.
 * The agent's own termination reason outranks patterns detected in its steps, and a verdict
 * from an evaluation report outranks both only when it is a pass.
 */
const RULES: Rule[] = [
  {
    failure: 'resolved',
    match: (i, v) => (v.resolved === true ? { detail: i.evaluation ? `${i.evaluation.file}: resolved` : verdictDetail(i.facts, 'resolved') } : undefined),
  },
  {
    // SWE-bench report `infra_failure`, or a scaffold that died on its environment.
    failure: 'infra-error',
    match: (i, v) =>
      i.evaluation?.infra
        ? { detail: `${i.evaluation.file}: ${i.evaluation.error ?? 'infrastructure failure'}` }
        : exitClasses().infra.test(v.exit) &&
            !exitClasses().evaluation.test(v.exit) &&
            !exitClasses().format.test(v.exit) &&
            !exitClasses().commandTimeout.test(v.exit)
          ? { detail: `exit status '${v.exitText}'${i.facts.error ? `: ${i.facts.error.slice(0, 200)}` : ''}` }
          : undefined,
  },
  {
    // SWE-bench run report `error_ids`, or SkyRL finish reason `error_evaluation`.
    failure: 'eval-error',
    match: (i, v) =>
      i.evaluation?.error !== undefined && !i.evaluation.infra
        ? { detail: `${i.evaluation.file}: ${i.evaluation.error}` }
        : exitClasses().evaluation.test(v.exit)
          ? { detail: `exit status '${v.exitText}'` }
          : undefined,
  },
  exitRule('context-exceeded', 'context'),
  exitRule('max-steps', 'maxSteps'),
  exitRule('budget-exceeded', 'budget'),
  exitRule('command-timeout', 'commandTimeout'),
  exitRule('format-error', 'format'),
  exitRule('stuck-loop', 'stuck'),
  {
    // An OpenHands run stopped by its StuckDetector says so in the trajectory's error.
    failure: 'stuck-loop',
    match: (i) => (i.facts.error && exitClasses().stuck.test(i.facts.error.toLowerCase()) ? { detail: i.facts.error.slice(0, 200) } : undefined),
  },
  {
    failure: 'submitted-wrong',
    match: (i, v) =>
      v.resolved === false && v.submitted === true
        ? { detail: i.evaluation ? `${i.evaluation.file}: not resolved` : verdictDetail(i.facts, 'not resolved') }
        : undefined,
  },
  // Patterns in the steps explain a rollout that ended without a (known) patch.
  {
    failure: 'stuck-loop',
    match: (i, v) => {
      const r = i.facts.repeatedAction;
      return v.submitted !== true && r && r.count >= STUCK_LOOP_MIN_REPEATS
        ? { step: r.step, detail: `${r.count} identical actions in a row from step ${r.step + 1}: ${r.action}` }
        : undefined;
    },
  },
  {
    failure: 'lint-loop',
    match: (i, v) => {
      const r = i.facts.lintRejections;
      return v.submitted !== true && r && r.count >= LINT_LOOP_MIN_REJECTIONS
        ? { step: r.step, detail: `${r.count} lint-rejected edits in a row from step ${r.step + 1}` }
        : undefined;
    },
  },
  {
    failure: 'format-error',
    match: (i, v) =>
      v.submitted !== true && i.facts.formatErrors
        ? { step: i.facts.formatErrors.first, detail: `${i.facts.formatErrors.count} unparseable actions, first at step ${i.facts.formatErrors.first + 1}` }
        : undefined,
  },
  {
    failure: 'command-timeout',
    match: (i, v) =>
      v.submitted !== true && i.facts.timeouts
        ? { step: i.facts.timeouts.first, detail: `${i.facts.timeouts.count} timed-out commands, first at step ${i.facts.timeouts.first + 1}` }
        : undefined,
  },
  {
    // Finished (a report, an exit status or a verdict exists) and nothing was submitted.
    failure: 'no-submission',
    match: (i, v) =>
      v.submitted === false && (i.evaluation !== undefined || i.prediction !== undefined || v.exit !== '' || v.resolved === false)
        ? { detail: noSubmissionDetail(i) }
        : undefined,
  },
];

/** Patterns worth a tag even when a stronger rule decided the class. */
const TAG_ONLY: Array<[FailureClass, (f: TrajectoryFacts) => boolean]> = [
  ['stuck-loop', (f) => (f.repeatedAction?.count ?? 0) >= STUCK_LOOP_MIN_REPEATS],
  ['lint-loop', (f) => (f.lintRejections?.count ?? 0) >= LINT_LOOP_MIN_REJECTIONS],
  ['format-error', (f) => f.formatErrors !== undefined],
  ['command-timeout', (f) => f.timeouts !== undefined],
];

export function classifyRollout(facts: TrajectoryFacts, evaluation: Evaluation | undefined, prediction: Prediction | undefined): Classification {
  const inputs: Inputs = { facts, evaluation, prediction };
  const verdict = verdictOf(inputs);
  const tags: FailureClass[] = [];
  let primary: { failure: FailureClass; evidence: Evidence } | undefined;
  for (const rule of RULES) {
    const evidence = rule.match(inputs, verdict);
    if (!evidence) continue;
    if (!tags.includes(rule.failure)) tags.push(rule.failure);
    primary ??= { failure: rule.failure, evidence };
  }
  for (const [failure, present] of TAG_ONLY) if (present(facts) && !tags.includes(failure)) tags.push(failure);
  primary ??= { failure: 'unknown', evidence: { detail: unknownDetail(verdict, evaluation) } };
  if (primary.failure === 'unknown') tags.unshift('unknown');
  const tests = evaluation?.failingTests ?? [];
  const evidence = tests.length > 0 && primary.failure !== 'resolved' ? { ...primary.evidence, tests } : primary.evidence;
  // A copy at its length: a list pushed to holds 17 slots, and a row keeps its tags.
  return { resolved: verdict.resolved, submitted: verdict.submitted, failure: primary.failure, tags: tags.slice(), evidence };
}

/**
 * Pass or fail, in order of trust: the evaluation report, the trajectory's own `resolved`
 * (SWE-bench-style runners, rLLM `is_correct`), then a reward (R2E-Gym, rLLM and SkyRL write
 * 1 for a pass and 0 otherwise). An evaluation that errored gives no verdict.
 */
function verdictOf(i: Inputs): Verdict {
  const exitText = (i.facts.exitStatus ?? '').trim();
  const exit = exitText.toLowerCase();
  const resolved = i.evaluation ? (i.evaluation.resolved ?? null) : (i.facts.resolved ?? (i.facts.reward !== undefined ? i.facts.reward > 0 : null));
  const submitted = i.evaluation?.patchExists ?? (i.prediction ? i.prediction.patchChars > 0 : (i.facts.hasSubmission ?? null));
  return { resolved, submitted, exit, exitText };
}

function noSubmissionDetail(i: Inputs): string {
  if (i.evaluation?.patchExists === false) return `${i.evaluation.file}: no patch`;
  if (i.prediction) return `${i.prediction.file}: empty model_patch`;
  return 'no submission in the trajectory';
}

function verdictDetail(f: TrajectoryFacts, verdict: string): string {
  return f.resolved !== undefined ? `outcome: ${verdict}` : `reward ${f.reward}`;
}

function unknownDetail(v: Verdict, evaluation: Evaluation | undefined): string {
  if (evaluation?.source === 'harbor-trial' && evaluation.resolved === undefined) return `${evaluation.file}: no verifier result: not graded`;
  if (v.resolved === false) return 'not resolved, and the file does not record a submission';
  if (v.submitted) return 'submitted, not evaluated';
  if (exitClasses().finished.test(v.exit)) return `the agent finished (exit status '${v.exitText}'), and nothing evaluated it`;
  return v.exit ? `exit status '${v.exitText}' not recognised` : 'no exit status, submission or evaluation';
}

/**
 * The failure a reader sees for a rollout: its class, except that a rollout nothing graded (no
 * evaluation, no `resolved`, no reward) reads "not graded" rather than failure class "unknown".
 * The rollouts table and the Rollouts tree both show this.
 */
export function failureLabel(r: Rollout): string {
  return r.failure === 'unknown' && r.resolved === null && r.reward === undefined ? 'not graded' : r.failure;
}
