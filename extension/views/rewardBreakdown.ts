import { InputError } from '../core/errors';
import { baseName, gradeRollout, type GradedOutput, type Grading, type GradedReward } from '../core/reward/evaluate';
import { BUILT_IN_RECIPES, type Recipe, type RolloutEvidence } from '../core/reward/recipes';
import { FINISH_REASONS } from '../core/reward/shapes';
import { TEST_LISTS, resolutionOf, type GradeOutcome, type TestsStatus } from '../core/reward/grading';
import type { TaskInstance } from '../core/reward/instance';
import type { InstanceReport, Report } from '../core/reward/reports';
import { parseTestOutput } from '../core/reward/testOutput';
import type { Trajectory } from '../core/trajectory/model';
import type { GradedTest, RewardBreakdown, RewardSources } from '../protocol/reward';

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

/**
 * Lays out the core's grading of what was read for the reward view; with a recipe
 * (`sources.recipe`, one of `recipes`), the value, mask and terms are the recipe's.
 */
export function rewardBreakdown(sources: RewardSources, inputs: RewardInputs, recipes: readonly Recipe[] = BUILT_IN_RECIPES): RewardBreakdown {
  const offered = { recipes: recipes.map((r) => ({ name: r.name, version: r.version, source: r.source, description: r.description })), recipe: null };
  const recipe = sources.recipe === undefined ? undefined : recipes.find((r) => r.name === sources.recipe);
  const grading = gradeRollout({
    output: inputs.output,
    instance: inputs.instance,
    report: inputs.report,
    reportFile: sources.report,
    trajectory: inputs.trajectory && { trajectory: inputs.trajectory, file: sources.trajectory },
    instanceId: sources.instanceId,
    ...(sources.run ? { run: runOf(sources.run) } : {}),
    recipe,
  });
  const breakdown = layout(sources, inputs, grading);
  if (sources.recipe === undefined) return { ...breakdown, ...offered };
  if (!recipe)
    return {
      ...breakdown,
      ...offered,
      missing: [...breakdown.missing, `The recipe '${sources.recipe}' is not offered (any more): the breakdown is SWE-bench's binary resolve.`],
    };
  const { reward } = grading;
  return {
    ...breakdown,
    ...offered,
    recipe: { name: recipe.name, version: recipe.version, source: recipe.source, description: recipe.description, outcome: reward.score!.outcome },
    ...rewardFields(reward),
    missing: reward.score?.unscored ? [...breakdown.missing, `${recipe.name} cannot score it: ${reward.score.unscored}.`] : breakdown.missing,
  };
}

/** The run facts the sources carry, in the core's terms: a finish reason this version does not name is left out. */
function runOf(run: NonNullable<RewardSources['run']>): Partial<RolloutEvidence> {
  const { finishReason, ...rest } = run;
  const known = FINISH_REASONS.find((f) => f === finishReason);
  return {
    ...(Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<RolloutEvidence>),
    ...(known ? { finishReason: known } : {}),
  };
}

function rewardFields(reward: GradedReward): Pick<RewardBreakdown, 'value' | 'masked' | 'terms'> {
  return { value: reward.value, masked: reward.mask?.reason ?? null, terms: reward.terms };
}

function layout(sources: RewardSources, inputs: RewardInputs, grading: Grading): Breakdown {
  switch (grading.kind) {
    case 'validation-report':
      throw new InputError(sources.report, '$', "a validation report holds no per-test grading; open one instance's report.json");
    case 'tests':
      return testsBreakdown(sources, inputs.output!, grading);
    case 'instance-report':
      return reportBreakdown(sources, grading.report, grading.reward);
    case 'rollout':
      return rolloutBreakdown(sources, inputs, grading);
    case 'run-report':
    case 'patch':
      if (inputs.report) throw new InputError(sources.report, '$', `a ${inputs.report.kind} report holds no per-test grading; open one instance's report.json`);
      throw new InputError(undefined, undefined, 'give a test output with an instance or report.json, a report.json alone, or a trajectory');
  }
}

function testsBreakdown(sources: RewardSources, output: GradedOutput, grading: Extract<Grading, { kind: 'tests' }>): Breakdown {
  const { expected, outcome, report: instanceReport } = grading;
  const title = sources.title ?? `Reward: ${expected.instance_id ?? instanceFolderName(output.where)}`;
  const origin = [output.file ?? output.where, sources.instance, sources.report].filter(Boolean).join(' + ');
  const base = { title, origin, hasOutput: output.file !== undefined, missing: [], sources };
  if (outcome.kind === 'infra-failure') return { ...base, ...empty(grading.reward), report: null };
  return {
    ...base,
    resolution: outcome.resolution,
    ...rewardFields(grading.reward),
    lists: testLists(outcome.tests, output.file ? lineIndex(output.text, outcome.tests) : new Map()),
    testsFound: outcome.statuses.size,
    report: instanceReport && sources.report ? agreement(sources.report, instanceReport, outcome.tests, outcome.resolved) : null,
  };
}

/**
 * A rollout without a per-test grading: what a run report and the trajectory itself record,
 * and, named one by one, what would be needed to grade it test by test.
 */
function rolloutBreakdown(sources: RewardSources, { report, output }: RewardInputs, grading: Extract<Grading, { kind: 'rollout' }>): Breakdown {
  const { instanceId } = grading;
  const missing = grading.unlisted ? [grading.unlisted] : [];
  missing.push(
    report?.kind === 'run'
      ? `No report.json of ${instanceId ?? 'this instance'}: the run report records its resolution only, so FAIL_TO_PASS and PASS_TO_PASS are not graded test by test.`
      : `No evaluation report of ${instanceId ?? 'this rollout'} was found (report.json or a run report): FAIL_TO_PASS and PASS_TO_PASS are not graded.`,
  );
  if (output)
    missing.push(
      `${output.where} holds ${parseTestOutput(output.text).size} test results, but no FAIL_TO_PASS / PASS_TO_PASS lists to grade them against: set sweWorkbench.rollouts.instances to the task instances.`,
    );
  if (grading.recordsNothing) missing.push('Nothing records a reward for it: the trajectory holds no reward or resolution of its own.');
  const name = sources.trajectory ? baseName(sources.trajectory) : '';
  return {
    title: sources.title ?? `Reward: ${instanceId ?? name}`,
    origin: [sources.trajectory, sources.report].filter(Boolean).join(' + '),
    resolution: null,
    ...rewardFields(grading.reward),
    lists: [],
    testsFound: null,
    report: null,
    hasOutput: false,
    missing,
    sources,
  };
}

function reportBreakdown(sources: RewardSources, report: InstanceReport, reward: GradedReward): Breakdown {
  const file = sources.report!;
  const base = { title: sources.title ?? `Reward: ${instanceFolderName(file)}`, origin: file, hasOutput: false, report: null, sources };
  const noOutput = `No test output beside ${file} (test_output.txt): the grading is the report's own, and no test links to an output line.`;
  if (report.infra_failure) return { ...base, ...empty(reward), missing: [] };
  if (!report.tests_status) return { ...base, ...empty(reward), missing: [`${file} holds no tests_status: only its resolved flag is known.`] };
  const tests = report.tests_status;
  return {
    ...base,
    resolution: resolutionOf(tests),
    ...rewardFields(reward),
    lists: testLists(tests, new Map()),
    testsFound: null,
    missing: [noOutput],
  };
}

function empty(reward: GradedReward): Pick<RewardBreakdown, 'resolution' | 'value' | 'masked' | 'terms' | 'lists' | 'testsFound'> {
  return { resolution: null, ...rewardFields(reward), lists: [], testsFound: null };
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

/** SWE-smith keeps each instance's report.json and test_output.txt in a folder named for it. */
function instanceFolderName(file: string): string {
  return baseName(file.split(/[\\/]/).slice(0, -1).join('/'));
}
