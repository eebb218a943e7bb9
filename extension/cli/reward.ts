/**
 * `swe-workbench reward`: grades a test log against an instance's FAIL_TO_PASS / PASS_TO_PASS,
 * or reads a SWE-bench / SWE-smith report, and prints the grading and the reward term by term.
 */
import { readInputText } from '../core/input/readInput';
import { readBugChecks } from '../core/reward/bugConsistency';
import { gradeRollout, type GradedReward, type Grading, type GradingInputs } from '../core/reward/evaluate';
import { RECIPE_NAMES, type Recipe, type RolloutEvidence } from '../core/reward/recipes';
import { resolveRecipe } from '../core/reward/recipeFiles';
import type { TestsStatus } from '../core/reward/grading';
import { readReport, readTaskInstance } from '../core/reward/rewardFiles';
import type { Report } from '../core/reward/reports';
import type { Mask, RewardTerm } from '../core/reward/rewardTerms';
import { FINISH_REASONS, type FinishReason } from '../core/reward/shapes';
import type { TestOutputFormat } from '../core/reward/testOutput';
import { CliError, parseCommandArgs, type Command } from './command';

const USAGE = `usage: swe-workbench reward --test-output FILE --instance INSTANCE.json [--instance-id ID] [--format pytest|unittest|auto] [RECIPE OPTIONS] [--json]
       swe-workbench reward --report report.json [RECIPE OPTIONS] [--json]
       swe-workbench reward --recipe swe-rl --patch PRED.diff --instance INSTANCE.json [--json]

With --test-output: the tests in FILE (a SWE-bench / SWE-smith log with its '>>>>> Start Test
Output' markers, or plain pytest / unittest output) graded against the instance's
FAIL_TO_PASS and PASS_TO_PASS lists. With --report: a per-instance report, a run report or a
validation report. Prints the grading and the reward with each of its terms.

Recipe options (the reward of an RL recipe instead of the binary SWE-bench resolve):
  --recipe NAME|FILE[#NAME]  ${RECIPE_NAMES.join(', ')}, or a recipe file (.json / .yaml)
  --patch FILE               the predicted patch (swe-rl compares it with the instance's gold patch)
  --finish-reason REASON     how the run ended (${FINISH_REASONS.join(', ')})
  --steps N                  the run's steps (nebius)
  --truncated                the run hit the step limit and its last patch was force-submitted (swe-master)
  --bug-checks FILE          ssr-injector: the bug's consistency checks, as 'bug validate DIR --json' prints
                             them, or true / false; a bug failing one gets the recipe's lowest reward.
                             Without it the bug is taken as consistent
A masked outcome prints its reason: it gives no gradient, it is not a 0. With --json a masked
reward is "value": null beside "masked": {"reason", "code"}.`;

const FORMATS: readonly TestOutputFormat[] = ['pytest', 'unittest', 'auto'];

interface ViewReward {
  value: number | null;
  terms: RewardTerm[];
  masked?: Mask;
  outcome?: string;
  unscored?: string;
}

interface RewardView {
  kind: string;
  recipe?: { name: string; version: string; source: string; description: string };
  reward?: ViewReward;
  [key: string]: unknown;
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        'test-output': { type: 'string' },
        instance: { type: 'string' },
        'instance-id': { type: 'string' },
        format: { type: 'string' },
        report: { type: 'string' },
        recipe: { type: 'string' },
        patch: { type: 'string' },
        'finish-reason': { type: 'string' },
        steps: { type: 'string' },
        truncated: { type: 'boolean' },
        'bug-checks': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      false,
    );
    if (values.help) {
      ctx.stdout.write(USAGE + '\n');
      return 0;
    }
    if (positionals.length > 0) throw new CliError(USAGE);
    const format = (values.format ?? 'auto') as TestOutputFormat;
    if (!FORMATS.includes(format)) throw new CliError(`--format expects one of ${FORMATS.join(', ')}, got '${values.format}'`);
    const recipe = values.recipe === undefined ? undefined : await resolveRecipe(values.recipe);
    const run = await runEvidence(values);
    if (!recipe && (values.patch || Object.keys(run).length > 0))
      throw new CliError('--patch, --finish-reason, --steps, --truncated and --bug-checks go with --recipe');
    if (run.bug && recipe?.shape !== 'ssr-injector') throw new CliError('--bug-checks goes with an ssr-injector recipe');
    const inputs = await gradingInputs(values, format, recipe, run);
    const view = viewOf(gradeRollout(inputs), recipe, inputs.report);
    ctx.stdout.write(values.json ? JSON.stringify(view, null, 2) + '\n' : readable(view));
    // Test output that could not be graded is an input error: masked in the output, and exit 1 so no script takes it for a grade.
    if (view.kind === 'infra-failure') {
      ctx.stderr.write(`swe-workbench: ${values['test-output']}: ${String(view.reason)}\n`);
      return 1;
    }
    return 0;
  },
};

/** Reads what the options name, in the one combination each mode takes: a report alone, a test output with its instance, or a patch with its instance. */
async function gradingInputs(
  values: {
    report?: string | undefined;
    'test-output'?: string | undefined;
    instance?: string | undefined;
    'instance-id'?: string | undefined;
    patch?: string | undefined;
  },
  format: TestOutputFormat,
  recipe: Recipe | undefined,
  run: Partial<RolloutEvidence>,
): Promise<GradingInputs> {
  const common = { recipe, run };
  if (values.report && !values['test-output'] && !values.instance) {
    const report = await readReport(values.report);
    if (recipe && report.kind !== 'instance') throw new CliError(`--recipe scores one rollout: give an instance's report.json, not a ${report.kind} report`);
    return { ...common, report, reportFile: values.report };
  }
  if (values['test-output'] && values.instance && !values.report) {
    const instance = await readTaskInstance(values.instance, values['instance-id']);
    const file = values['test-output'];
    return { ...common, instance, output: { text: await readText(file), file, where: file, format } };
  }
  if (recipe?.shape === 'swe-rl' && values.patch && values.instance && !values.report)
    return { ...common, instance: await readTaskInstance(values.instance, values['instance-id']) };
  throw new CliError(`give --test-output with --instance, or --report alone\n\n${USAGE}`);
}

async function readText(file: string): Promise<string> {
  return (await readInputText(file)).text;
}

/** What the options say of the run that produced the graded output. */
async function runEvidence(values: {
  patch?: string | undefined;
  'finish-reason'?: string | undefined;
  steps?: string | undefined;
  truncated?: boolean | undefined;
  'bug-checks'?: string | undefined;
}): Promise<Partial<RolloutEvidence>> {
  const run: Partial<RolloutEvidence> = {};
  if (values.patch !== undefined) run.patch = await readText(values.patch);
  const reason = values['finish-reason'];
  if (reason !== undefined) {
    if (!(FINISH_REASONS as readonly string[]).includes(reason))
      throw new CliError(`--finish-reason expects one of ${FINISH_REASONS.join(', ')}, got '${reason}'`);
    run.finishReason = reason as FinishReason;
  }
  if (values.steps !== undefined) {
    const steps = Number(values.steps);
    if (!Number.isInteger(steps) || steps < 0) throw new CliError(`--steps expects a whole number, got '${values.steps}'`);
    run.steps = steps;
  }
  if (values.truncated) run.truncated = true;
  if (values['bug-checks'] !== undefined) run.bug = await readBugChecks(values['bug-checks']);
  return run;
}

/** The reward as the CLI prints it: a recipe's outcome and what it would need beside its terms, a mask with its code. */
function printedReward(reward: GradedReward): ViewReward {
  const masked = reward.mask ? { masked: reward.mask } : {};
  if (!reward.score) return { value: reward.value, terms: reward.terms, ...masked };
  const unscored = reward.score.unscored ? { unscored: reward.score.unscored } : {};
  return { value: reward.value, outcome: reward.score.outcome, terms: reward.terms, ...masked, ...unscored };
}

/** The grading as `reward` prints it (its JSON keys are part of the CLI's contract). */
function viewOf(grading: Grading, recipe: Recipe | undefined, report: Report | undefined): RewardView {
  const named = recipe ? { recipe: { name: recipe.name, version: recipe.version, source: recipe.source, description: recipe.description } } : {};
  const reward = printedReward(grading.reward);
  switch (grading.kind) {
    case 'tests': {
      const { outcome, expected } = grading;
      if (outcome.kind === 'infra-failure') return { kind: 'infra-failure', instanceId: expected.instance_id, reason: outcome.reason, ...named, reward };
      return {
        kind: 'grading',
        instanceId: expected.instance_id,
        testsFound: outcome.statuses.size,
        resolution: outcome.resolution,
        resolved: outcome.resolved,
        tests_status: outcome.tests,
        ...named,
        reward,
      };
    }
    case 'patch':
      return { kind: 'patch-similarity', instanceId: grading.instanceId, ...named, reward };
    case 'instance-report': {
      const r = grading.report;
      const shape = report?.kind === 'instance' ? report : undefined;
      return {
        kind: 'instance-report',
        shape: shape?.shape,
        instanceId: shape?.instanceId,
        resolved: r.resolved,
        patchApplied: r.patch_successfully_applied,
        tests_status: r.tests_status,
        ...named,
        reward,
      };
    }
    case 'run-report': {
      const s = grading.summary;
      return {
        kind: 'run-report',
        shape: report?.kind === 'run' ? report.shape : undefined,
        total: s.total,
        resolved: s.resolvedIds.length,
        unresolved: s.unresolvedIds.length,
        errors: s.errorIds.length,
        emptyPatches: s.emptyPatchIds.length,
        reward,
      };
    }
    case 'validation-report':
      return {
        kind: 'validation-report',
        valid: grading.valid,
        counts: Object.fromEntries(Object.entries(grading.lists).map(([k, v]) => [k, v.length])),
        lists: grading.lists,
        reward,
      };
    case 'rollout':
      throw new CliError('reward grades a test output, a report or a patch, not a trajectory');
  }
}

function readable(view: RewardView): string {
  const lines: string[] = [];
  const { reward, tests_status: tests, recipe, ...rest } = view as RewardView & { reward: ViewReward; tests_status?: TestsStatus };
  if (recipe) lines.push(`recipe: ${recipe.name} v${recipe.version} (${recipe.source})`);
  for (const [k, v] of Object.entries(rest)) if (v !== undefined && typeof v !== 'object') lines.push(`${k}: ${v}`);
  if (rest.counts) for (const [k, v] of Object.entries(rest.counts as Record<string, number>)) lines.push(`${k}: ${v} tests`);
  if (tests) {
    for (const [list, { success, failure }] of Object.entries(tests)) {
      if (success.length + failure.length === 0) continue;
      lines.push(`${list}: ${success.length} pass, ${failure.length} fail`);
      for (const id of failure) lines.push(`  FAIL ${id}`);
    }
  }
  lines.push(
    reward.masked
      ? `reward: masked: ${reward.masked.reason} (no gradient)`
      : reward.value === null
        ? `reward: not scored: ${reward.unscored}`
        : `reward: ${reward.value}`,
  );
  for (const t of reward.terms) lines.push(`  ${t.name} = ${t.value === null ? 'masked' : t.value}    ${t.rule}`);
  return lines.join('\n') + '\n';
}
