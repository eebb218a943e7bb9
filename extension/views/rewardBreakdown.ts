import { InputError } from '../core/errors';
import { evidenceFromGrading, evidenceFromReport, gradeOutput, instanceReportReward } from '../core/reward/evaluate';
import { BUILT_IN_RECIPES, scoreRollout, type Recipe, type RolloutEvidence } from '../core/reward/recipes';
import { TEST_LISTS, resolutionOf, type ExpectedTests, type GradeOutcome, type TestsStatus } from '../core/reward/grading';
import type { TaskInstance } from '../core/reward/instance';
import type { InstanceReport, Report, RunSummary } from '../core/reward/reports';
import { term, type Reward, type RewardTerm } from '../core/reward/rewardTerms';
import { resolveReward } from '../core/reward/shapes';
import { parseTestOutput } from '../core/reward/testOutput';
import type { Trajectory } from '../core/trajectory/model';
import type { GradedTest, RewardBreakdown, RewardSources } from '../protocol/reward';

/** The output graded: a test output file, or the one a trajectory recorded (R2E-Gym's test_output). */
export interface GradedOutput {
  text: string;
  file: string | undefined;
  where: string;
}

/** What the glue read for a breakdown (sources.report, .trajectory, .testOutput, .instance). */
export interface RewardInputs {
  report: Report | undefined;
  trajectory: Trajectory | undefined;
  output: GradedOutput | undefined;
  /** The task instance, read when there is an output to grade and sources.instance names a dataset. */
  instance: TaskInstance | undefined;
}

/** A breakdown before the recipe picker's parts are added. */
type Breakdown = Omit<RewardBreakdown, 'recipes' | 'recipe'>;
type Graded = [Breakdown, RolloutEvidence];

/**
 * Grades what was read with the core and lays the result out for the reward view; with a recipe
 * (`sources.recipe`, one of `recipes`), the value, mask and terms are the recipe's.
 */
export function rewardBreakdown(sources: RewardSources, inputs: RewardInputs, recipes: readonly Recipe[] = BUILT_IN_RECIPES): RewardBreakdown {
  const [breakdown, evidence] = grade(sources, inputs);
  const offered = { recipes: recipes.map((r) => ({ name: r.name, version: r.version, source: r.source, description: r.description })), recipe: null };
  if (sources.recipe === undefined) return { ...breakdown, ...offered };
  const recipe = recipes.find((r) => r.name === sources.recipe);
  if (!recipe)
    return {
      ...breakdown,
      ...offered,
      missing: [...breakdown.missing, `The recipe '${sources.recipe}' is not offered (any more): the breakdown is SWE-bench's binary resolve.`],
    };
  const score = scoreRollout(recipe, evidence);
  return {
    ...breakdown,
    ...offered,
    recipe: { name: recipe.name, version: recipe.version, source: recipe.source, description: recipe.description, outcome: score.outcome },
    value: score.outcome === 'masked' ? null : score.value,
    masked: score.mask?.reason ?? null,
    terms: score.terms,
    missing: score.unscored ? [...breakdown.missing, `${recipe.name} cannot score it: ${score.unscored}.`] : breakdown.missing,
  };
}

/** The run facts a trajectory records, as a recipe reads them. */
function runFacts(trajectory: Trajectory | undefined): Partial<RolloutEvidence> {
  if (!trajectory) return {};
  return { steps: trajectory.steps.length, ...(trajectory.outcome.submission ? { patch: trajectory.outcome.submission } : {}) };
}

function grade(sources: RewardSources, { report, trajectory, output, instance }: RewardInputs): Graded {
  if (report?.kind === 'validation')
    throw new InputError(sources.report, '$', "a validation report holds no per-test grading; open one instance's report.json");
  const instanceReport = report?.kind === 'instance' ? report.report : undefined;
  if (output && (sources.instance || instanceReport?.tests_status)) return fromOutput(sources, output, report, trajectory, instance);
  if (instanceReport) return [fromReport(sources, instanceReport), evidenceFromReport(instanceReport, runFacts(trajectory))];
  if (sources.testOutput) missingExpectation(sources);
  if (trajectory || (report?.kind === 'run' && sources.instanceId)) return fromRollout(sources, report, trajectory, output);
  if (report) throw new InputError(sources.report, '$', `a ${report.kind} report holds no per-test grading; open one instance's report.json`);
  throw new InputError(undefined, undefined, 'give a test output with an instance or report.json, a report.json alone, or a trajectory');
}

function fromOutput(
  sources: RewardSources,
  output: GradedOutput,
  report: Report | undefined,
  trajectory: Trajectory | undefined,
  instance: TaskInstance | undefined,
): Graded {
  const instanceReport = report?.kind === 'instance' ? report.report : undefined;
  const expected: ExpectedTests & { instance_id?: string; patch?: string | undefined } = instance ?? expectedFromReport(instanceReport!.tests_status!);
  const outcome = gradeOutput(expected, output.text);
  return [breakdownOf(sources, output, instanceReport, expected, outcome), evidenceFromGrading(outcome, expected, runFacts(trajectory))];
}

function breakdownOf(
  sources: RewardSources,
  output: GradedOutput,
  instanceReport: InstanceReport | undefined,
  expected: { instance_id?: string },
  outcome: GradeOutcome,
): Breakdown {
  const reward = resolveReward(outcome);
  const title = sources.title ?? `Reward: ${expected.instance_id ?? instanceFolderName(output.where)}`;
  const origin = [output.file ?? output.where, sources.instance, sources.report].filter(Boolean).join(' + ');
  const base = { title, origin, hasOutput: output.file !== undefined, missing: [], sources };
  if (outcome.kind === 'infra-failure') return { ...base, ...empty(reward), report: null };
  return {
    ...base,
    resolution: outcome.resolution,
    value: reward.masked ? null : reward.value,
    masked: reward.masked?.reason ?? null,
    terms: reward.terms,
    lists: testLists(outcome.tests, output.file ? lineIndex(output.text, outcome.tests) : new Map()),
    testsFound: outcome.statuses.size,
    report: instanceReport && sources.report ? agreement(sources.report, instanceReport, outcome.tests, outcome.resolved) : null,
  };
}

/**
 * A rollout without a per-test grading: what a run report and the trajectory itself record,
 * and, named one by one, what would be needed to grade it test by test.
 */
function fromRollout(sources: RewardSources, report: Report | undefined, trajectory: Trajectory | undefined, output: GradedOutput | undefined): Graded {
  const instanceId = sources.instanceId ?? trajectory?.task.instanceId;
  const terms: RewardTerm[] = [];
  const missing: string[] = [];
  let masked: string | null = null;
  if (report?.kind === 'run' && sources.report) {
    const listed = runReportTerm(report.summary, instanceId, sources.report);
    if (typeof listed === 'string') missing.push(listed);
    else if ('masked' in listed) masked = listed.masked;
    else terms.push(listed);
  }
  const name = sources.trajectory ? baseName(sources.trajectory) : '';
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
  missing.push(
    report?.kind === 'run'
      ? `No report.json of ${instanceId ?? 'this instance'}: the run report records its resolution only, so FAIL_TO_PASS and PASS_TO_PASS are not graded test by test.`
      : `No evaluation report of ${instanceId ?? 'this rollout'} was found (report.json or a run report): FAIL_TO_PASS and PASS_TO_PASS are not graded.`,
  );
  if (output)
    missing.push(
      `${output.where} holds ${parseTestOutput(output.text).size} test results, but no FAIL_TO_PASS / PASS_TO_PASS lists to grade them against: set sweWorkbench.rollouts.instances to the task instances.`,
    );
  if (terms.length === 0 && masked === null) missing.push('Nothing records a reward for it: the trajectory holds no reward or resolution of its own.');
  const listedResolved = terms.find((t) => t.name === 'resolved' || t.name === 'recorded resolution');
  const resolved = listedResolved ? listedResolved.value === 1 : trajectory?.outcome.reward !== undefined ? trajectory.outcome.reward > 0 : null;
  const evidence: RolloutEvidence =
    masked !== null ? { resolved: null, evaluationError: masked, ...runFacts(trajectory) } : { resolved, ...runFacts(trajectory) };
  const breakdown: Breakdown = {
    title: sources.title ?? `Reward: ${instanceId ?? name}`,
    origin: [sources.trajectory, sources.report].filter(Boolean).join(' + '),
    resolution: null,
    value: masked !== null ? null : (terms[0]?.value ?? null),
    masked,
    terms,
    lists: [],
    testsFound: null,
    report: null,
    hasOutput: false,
    missing,
    sources,
  };
  return [breakdown, evidence];
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

function missingExpectation(sources: RewardSources): never {
  throw new InputError(sources.testOutput, undefined, 'no FAIL_TO_PASS / PASS_TO_PASS lists to grade against: give the task instance or the report.json');
}

function expectedFromReport(tests: TestsStatus): ExpectedTests {
  const all = (name: keyof TestsStatus) => [...tests[name].success, ...tests[name].failure];
  return { FAIL_TO_PASS: all('FAIL_TO_PASS'), PASS_TO_PASS: all('PASS_TO_PASS'), FAIL_TO_FAIL: all('FAIL_TO_FAIL'), PASS_TO_FAIL: all('PASS_TO_FAIL') };
}

function fromReport(sources: RewardSources, report: InstanceReport): Breakdown {
  const file = sources.report!;
  const base = { title: sources.title ?? `Reward: ${instanceFolderName(file)}`, origin: file, hasOutput: false, report: null, sources };
  const noOutput = `No test output beside ${file} (test_output.txt): the grading is the report's own, and no test links to an output line.`;
  const reward = instanceReportReward(report);
  if (report.infra_failure) return { ...base, ...empty(reward), missing: [] };
  if (!report.tests_status) return { ...base, ...empty(reward), missing: [`${file} holds no tests_status: only its resolved flag is known.`] };
  const tests = report.tests_status;
  const resolution = resolutionOf(tests);
  return {
    ...base,
    resolution,
    value: reward.value,
    masked: null,
    terms: reward.terms,
    lists: testLists(tests, new Map()),
    testsFound: null,
    missing: [noOutput],
  };
}

function empty(reward: Reward): Pick<RewardBreakdown, 'resolution' | 'value' | 'masked' | 'terms' | 'lists' | 'testsFound'> {
  return {
    resolution: null,
    value: reward.masked ? null : reward.value,
    masked: reward.masked?.reason ?? null,
    terms: reward.terms,
    lists: [],
    testsFound: null,
  };
}

/** FAIL_TO_PASS and PASS_TO_PASS always; the other two lists only when the task has them. */
function testLists(tests: TestsStatus, lines: ReadonlyMap<string, number>): RewardBreakdown['lists'] {
  return TEST_LISTS.filter((name) => name === 'FAIL_TO_PASS' || name === 'PASS_TO_PASS' || tests[name].success.length + tests[name].failure.length > 0).map(
    (name) => {
      const row = (id: string, passed: boolean): GradedTest => ({ id, passed, line: lines.get(id) ?? null });
      return { name, tests: [...tests[name].failure.map((id) => row(id, false)), ...tests[name].success.map((id) => row(id, true))] };
    },
  );
}

/**
 * Where each graded test first appears in the output, as a whitespace-separated token: one
 * pass over the output whatever the number of tests (a harness log can hold thousands).
 */
function lineIndex(output: string, tests: TestsStatus): Map<string, number> {
  const wanted = new Set(TEST_LISTS.flatMap((name) => [...tests[name].success, ...tests[name].failure]));
  const found = new Map<string, number>();
  const lines = output.split('\n');
  for (let i = 0; i < lines.length && found.size < wanted.size; i++) {
    for (const token of lines[i]!.split(/\s+/)) {
      if (wanted.has(token) && !found.has(token)) found.set(token, i + 1);
    }
  }
  return found;
}

function agreement(file: string, report: InstanceReport, tests: TestsStatus, resolved: boolean): NonNullable<RewardBreakdown['report']> {
  const differences: string[] = [];
  if (report.resolved !== resolved) differences.push(`resolved: report ${report.resolved}, graded ${resolved}`);
  for (const name of TEST_LISTS) {
    const theirs = new Set(report.tests_status?.[name].success ?? []);
    const changed = tests[name].success.filter((id) => !theirs.has(id)).length + tests[name].failure.filter((id) => theirs.has(id)).length;
    if (changed > 0) differences.push(`${name}: ${changed} test(s) graded otherwise`);
  }
  return {
    file,
    resolved: report.resolved,
    agrees: differences.length === 0,
    detail: differences.length === 0 ? 'every test and the resolution agree with the report' : differences.join('; '),
  };
}

/** A path's last part (presenters take no Node: a path here is a name to show). */
function baseName(file: string): string {
  return (
    file
      .split(/[\\/]/)
      .filter((p) => p !== '')
      .at(-1) ?? file
  );
}

/** SWE-smith keeps each instance's report.json and test_output.txt in a folder named for it. */
function instanceFolderName(file: string): string {
  return baseName(file.split(/[\\/]/).slice(0, -1).join('/'));
}
