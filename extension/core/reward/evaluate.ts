/**
 * Every grading decision of one rollout, made once for `swe-workbench reward` and the reward
 * view: which evidence grades it (a test output against the instance's lists, an instance's
 * report, a run report's line, what the trajectory recorded), how a test output is read, when a
 * reward is masked rather than 0, when it is unknown, and what a recipe makes of it. The callers
 * read the files and lay the answer out; this module reads nothing, so the views may import it.
 */
import { InputError } from '../errors';
import type { Trajectory } from '../trajectory/model';
import { agentSteps } from '../trajectory/copiedContext';
import { gradeTestOutput, resolutionOf, type ExpectedTests, type GradeOutcome, type TestListName, type TestsStatus } from './grading';
import { scoreRollout, type Recipe, type RecipeScore, type RolloutEvidence } from './recipes';
import type { InstanceReport, Report, RunSummary } from './reports';
import { maskTerm, term, type Mask, type Reward, type RewardTerm } from './rewardTerms';
import { resolveReward } from './shapes';
import type { TestOutputFormat } from './testOutput';
import { isValidBug } from './validationLists';

/**
 * Grades a test output against the instance's lists: a harness log (it holds the
 * '>>>>> Start Test Output' marker) is read between its markers, where an infra marker voids the
 * run; plain pytest / unittest output is read whole.
 */
export function gradeOutput(expected: ExpectedTests, text: string, format: TestOutputFormat = 'auto'): GradeOutcome {
  return gradeTestOutput(expected, text, format);
}

/** A test output to grade: a file, or the one a trajectory recorded (R2E-Gym's test_output). */
export interface GradedOutput {
  text: string;
  /** The file it was read from; undefined when a trajectory recorded it. */
  file: string | undefined;
  /** Where it came from, as a person reads it. */
  where: string;
  format?: TestOutputFormat;
}

/** An instance's lists to grade against, with its id and gold patch when it has them. */
type Expected = ExpectedTests & { instance_id?: string; patch?: string | undefined };

/** What a grading reads, already read from disk. */
export interface GradingInputs {
  output?: GradedOutput | undefined;
  instance?: Expected | undefined;
  report?: Report | undefined;
  /** The file `report` was read from, named by its terms and errors. */
  reportFile?: string | undefined;
  /** The rollout's trajectory and its file: what it recorded of its reward, and its run facts. */
  trajectory?: { trajectory: Trajectory; file: string | undefined } | undefined;
  /** Which entry of a run report is the rollout's (else the trajectory's own instance id). */
  instanceId?: string | undefined;
  /** What is known of the run besides (CLI options: finish reason, steps, patch, bug checks). */
  run?: Partial<RolloutEvidence>;
  recipe?: Recipe | undefined;
}

/** A reward as both front ends show it: no number when masked or unscored, the mask's reason instead. */
export interface GradedReward {
  value: number | null;
  terms: RewardTerm[];
  mask: Mask | null;
  /** With a recipe: how it scored, and what it would need when it could not. */
  score: { outcome: RecipeScore['outcome']; unscored: string | null } | null;
}

export type Grading =
  /** A test output graded against the lists (the instance's, or those an instance report names). */
  | { kind: 'tests'; expected: Expected; outcome: GradeOutcome; report: InstanceReport | undefined; reward: GradedReward }
  | { kind: 'instance-report'; report: InstanceReport; reward: GradedReward }
  /** A whole run's report, without a rollout of it: its resolve rate. */
  | { kind: 'run-report'; summary: RunSummary; reward: GradedReward }
  | { kind: 'validation-report'; lists: Record<TestListName, string[]>; valid: boolean; reward: GradedReward }
  /**
   * A rollout no per-test grading covers: a run report's line and what its trajectory recorded.
   * `unlisted` says why the run report said nothing of it; `recordsNothing` that no evidence gives a reward.
   */
  | { kind: 'rollout'; instanceId: string | undefined; unlisted: string | undefined; recordsNothing: boolean; reward: GradedReward }
  /** A patch alone, for a recipe that compares it with the gold one. */
  | { kind: 'patch'; instanceId: string | undefined; reward: GradedReward };

/**
 * Grades one rollout from what was read. The evidence that decides, first found first: a
 * validation report; a test output with lists to grade it against; an instance's report; a
 * trajectory or a run report's line of the instance; a run report alone; an instance alone
 * (a patch for a recipe). A test output without lists is refused, as is nothing to grade.
 */
export function gradeRollout(inputs: GradingInputs): Grading {
  const { output, instance, report, recipe } = inputs;
  const run = { ...runFacts(inputs.trajectory?.trajectory), ...inputs.run };
  const instanceReport = report?.kind === 'instance' ? report.report : undefined;
  if (report?.kind === 'validation') {
    const valid = isValidBug(report.lists);
    const reward = { value: valid ? 1 : 0, terms: [term('valid bug', valid ? 1 : 0, 'SWE-smith: at least one FAIL_TO_PASS and one PASS_TO_PASS test')] };
    return { kind: 'validation-report', lists: report.lists, valid, reward: plain(reward) };
  }
  if (output && (instance || instanceReport?.tests_status)) {
    const expected = instance ?? expectedFromReport(instanceReport!.tests_status!);
    const outcome = gradeOutput(expected, output.text, output.format);
    const reward = scored(resolveReward(outcome), recipe, () => evidenceFromGrading(outcome, expected, run));
    return { kind: 'tests', expected, outcome, report: instanceReport, reward };
  }
  if (instanceReport) {
    const reward = scored(instanceReportReward(instanceReport), recipe, () => evidenceFromReport(instanceReport, run));
    return { kind: 'instance-report', report: instanceReport, reward };
  }
  if (output?.file !== undefined)
    throw new InputError(output.file, undefined, 'no FAIL_TO_PASS / PASS_TO_PASS lists to grade against: give the task instance or the report.json');
  const instanceId = inputs.instanceId ?? inputs.trajectory?.trajectory.task.instanceId;
  if (inputs.trajectory || (report?.kind === 'run' && inputs.instanceId)) return rolloutGrading(inputs, instanceId, run);
  if (report?.kind === 'run') return { kind: 'run-report', summary: report.summary, reward: plain(resolveRate(report.summary)) };
  if (instance && recipe) {
    const evidence = { resolved: null, ...(instance.patch !== undefined ? { gold: instance.patch } : {}), ...run };
    return { kind: 'patch', instanceId: instance.instance_id, reward: scored(undefined, recipe, () => evidence) };
  }
  throw new InputError(undefined, undefined, 'give a test output with an instance or report.json, a report.json alone, or a trajectory');
}

/** The reward without a recipe: a masked one has no number. */
function plain(reward: Reward): GradedReward {
  return { value: reward.masked ? null : reward.value, terms: reward.terms, mask: reward.masked ?? null, score: null };
}

/** The recipe's score when there is a recipe (its value, terms and mask replace the plain reward's), else the plain reward. */
function scored(reward: Reward | undefined, recipe: Recipe | undefined, evidence: () => RolloutEvidence): GradedReward {
  if (!recipe) return plain(reward!);
  const score = scoreRollout(recipe, evidence());
  return {
    value: score.outcome === 'masked' ? null : score.value,
    terms: score.terms,
    mask: score.mask,
    score: { outcome: score.outcome, unscored: score.unscored },
  };
}

/**
 * The SWE-bench reward a per-instance report.json states: masked on an infra failure, graded
 * from its tests_status when it has one, else its resolved flag alone.
 */
function instanceReportReward(report: InstanceReport): Reward {
  if (report.infra_failure) {
    const reason = report.infra_failure_reason ?? 'infrastructure failure';
    return { value: 0, terms: [maskTerm('infra failure', `report: ${reason}`)], masked: { reason, code: 'infra_error' } };
  }
  if (report.tests_status) return resolveReward({ tests: report.tests_status, resolution: resolutionOf(report.tests_status), resolved: report.resolved });
  const value = report.resolved ? 1 : 0;
  return { value, terms: [term('resolved', value, 'report: resolved flag')] };
}

function resolveRate(s: RunSummary): Reward {
  const rate = s.total === 0 ? 0 : s.resolvedIds.length / s.total;
  return { value: rate, terms: [{ name: 'resolve rate', value: rate, rule: `${s.resolvedIds.length} of ${s.total} instances resolved` }] };
}

/** What a grading tells a recipe: the verdict, the statuses, the lists, and the gold patch when the instance has one. */
function evidenceFromGrading(outcome: GradeOutcome, instance: Expected, run: Partial<RolloutEvidence>): RolloutEvidence {
  return {
    resolved: outcome.kind === 'graded' ? outcome.resolved : null,
    grading: outcome,
    expected: instance,
    ...(instance.patch !== undefined ? { gold: instance.patch } : {}),
    ...run,
  };
}

/** What a per-instance report tells a recipe: its resolved flag, or the infra failure that voids it. */
function evidenceFromReport(report: InstanceReport, run: Partial<RolloutEvidence>): RolloutEvidence {
  if (report.infra_failure) return { resolved: null, evaluationError: report.infra_failure_reason ?? 'infrastructure failure', ...run };
  return { resolved: report.resolved, ...run };
}

/** The run facts a trajectory records, as a recipe reads them. */
function runFacts(trajectory: Trajectory | undefined): Partial<RolloutEvidence> {
  if (!trajectory) return {};
  // A message kept in its place, or context copied from an earlier trajectory (ATIF's is_copied_context), is not a step this run took.
  return { steps: agentSteps(trajectory.steps).length, ...(trajectory.outcome.submission ? { patch: trajectory.outcome.submission } : {}) };
}

/** An instance report's tests_status as the lists to grade a test output against. */
function expectedFromReport(tests: TestsStatus): ExpectedTests {
  const all = (name: keyof TestsStatus) => [...tests[name].success, ...tests[name].failure];
  return { FAIL_TO_PASS: all('FAIL_TO_PASS'), PASS_TO_PASS: all('PASS_TO_PASS'), FAIL_TO_FAIL: all('FAIL_TO_FAIL'), PASS_TO_FAIL: all('PASS_TO_FAIL') };
}

/**
 * A rollout without a per-test grading: its run report's line (a term, or an error listing
 * that masks it), then the reward and resolution its trajectory recorded. The first term is the
 * reward; with none it is unknown, never 0.
 */
function rolloutGrading(inputs: GradingInputs, instanceId: string | undefined, run: Partial<RolloutEvidence>): Grading {
  const { report, reportFile, recipe } = inputs;
  const trajectory = inputs.trajectory?.trajectory;
  const terms: RewardTerm[] = [];
  let unlisted: string | undefined;
  let masked: string | null = null;
  if (report?.kind === 'run' && reportFile) {
    const listed = runReportTerm(report.summary, instanceId, reportFile);
    if (typeof listed === 'string') unlisted = listed;
    else if ('masked' in listed) masked = listed.masked;
    else terms.push(listed);
  }
  const name = inputs.trajectory?.file ? baseName(inputs.trajectory.file) : '';
  if (trajectory?.outcome.reward !== undefined)
    terms.push(term('recorded reward', trajectory.outcome.reward, `${name}: the reward the ${trajectory.format} run recorded`));
  if (trajectory?.outcome.resolved !== undefined)
    terms.push(
      term(
        'recorded resolution',
        trajectory.outcome.resolved ? 1 : 0,
        `${name}: the run recorded the task as ${trajectory.outcome.resolved ? 'solved' : 'not solved'}`,
      ),
    );
  const listedResolved = terms.find((t) => t.name === 'resolved' || t.name === 'recorded resolution');
  const resolved = listedResolved ? listedResolved.value === 1 : trajectory?.outcome.reward !== undefined ? trajectory.outcome.reward > 0 : null;
  const evidence: RolloutEvidence = masked !== null ? { resolved: null, evaluationError: masked, ...run } : { resolved, ...run };
  const plainReward: GradedReward = {
    value: masked !== null ? null : (terms[0]?.value ?? null),
    terms,
    mask: masked === null ? null : { reason: masked },
    score: null,
  };
  return {
    kind: 'rollout',
    instanceId,
    unlisted,
    recordsNothing: terms.length === 0 && masked === null,
    reward: recipe ? scored(undefined, recipe, () => evidence) : plainReward,
  };
}

/** The instance's line in a run report: a term, a masking reason, or why it says nothing. */
function runReportTerm(run: RunSummary, instanceId: string | undefined, file: string): RewardTerm | { masked: string } | string {
  if (instanceId === undefined) return `${file} is a run report, and no instance id says which of its entries to read.`;
  if (run.resolvedIds.includes(instanceId)) return term('resolved', 1, `run report ${file}: listed as resolved`);
  if (run.errorIds.includes(instanceId)) return { masked: `run report ${file}: listed in error_ids` };
  if (run.emptyPatchIds.includes(instanceId)) return term('resolved', 0, `run report ${file}: listed with an empty patch`);
  if (run.unresolvedIds.includes(instanceId)) return term('resolved', 0, `run report ${file}: listed as unresolved`);
  return `${file} does not list ${instanceId}.`;
}

/** A path's last part (this module takes no Node: a path here is a name to show). */
export function baseName(file: string): string {
  return (
    file
      .split(/[\\/]/)
      .filter((p) => p !== '')
      .at(-1) ?? file
  );
}
