/**
 * `swe-workbench reward`: grades a test log against an instance's FAIL_TO_PASS / PASS_TO_PASS,
 * or reads a SWE-bench / SWE-smith report, and prints the grading and the reward term by term.
 */
import { readInputText } from '../core/input/readInput';
import { readBugChecks } from '../core/reward/bugConsistency';
import { evidenceFromGrading, evidenceFromReport, gradeOutput, instanceReportReward } from '../core/reward/evaluate';
import { RECIPE_NAMES, scoreRollout, type Recipe, type RolloutEvidence } from '../core/reward/recipes';
import { resolveRecipe } from '../core/reward/recipeFiles';
import type { TestsStatus } from '../core/reward/grading';
import { readTaskInstance } from '../core/reward/rewardFiles';
import { type Report } from '../core/reward/reports';
import { readReport } from '../core/reward/rewardFiles';
import type { Mask, Reward } from '../core/reward/rewardTerms';
import { FINISH_REASONS, resolveReward, type FinishReason } from '../core/reward/shapes';
import type { TestOutputFormat } from '../core/reward/testOutput';
import { isValidBug } from '../core/reward/validationLists';
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
  terms: Reward['terms'];
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
    let view: RewardView;
    if (values.report && !values['test-output'] && !values.instance) view = reportView(await readReport(values.report), recipe, run);
    else if (values['test-output'] && values.instance && !values.report)
      view = await testOutputView(values['test-output'], values.instance, values['instance-id'], format, recipe, run);
    else if (recipe?.shape === 'swe-rl' && values.patch && values.instance && !values.report)
      view = await patchView(values.instance, values['instance-id'], recipe, run);
    else throw new CliError(`give --test-output with --instance, or --report alone\n\n${USAGE}`);
    // A masked reward is no number: its value is null beside the mask and its reason.
    if (view.reward?.masked) view.reward = { ...view.reward, value: null };
    ctx.stdout.write(values.json ? JSON.stringify(view, null, 2) + '\n' : readable(view));
    // Test output that could not be graded is an input error: masked in the output, and exit 1 so no script takes it for a grade.
    if (view.kind === 'infra-failure') {
      ctx.stderr.write(`swe-workbench: ${values['test-output']}: ${String(view.reason)}\n`);
      return 1;
    }
    return 0;
  },
};

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

/** The recipe's score in the view's `reward` shape: value, terms, mask, and what is missing when unscored. */
function recipeReward(recipe: Recipe, evidence: RolloutEvidence): Pick<RewardView, 'recipe' | 'reward'> {
  const score = scoreRollout(recipe, evidence);
  return {
    recipe: { name: recipe.name, version: recipe.version, source: recipe.source, description: recipe.description },
    reward: {
      value: score.value,
      outcome: score.outcome,
      terms: score.terms,
      ...(score.mask ? { masked: score.mask } : {}),
      ...(score.unscored ? { unscored: score.unscored } : {}),
    },
  };
}

async function patchView(instanceFile: string, instanceId: string | undefined, recipe: Recipe, run: Partial<RolloutEvidence>): Promise<RewardView> {
  const instance = await readTaskInstance(instanceFile, instanceId);
  return {
    kind: 'patch-similarity',
    instanceId: instance.instance_id,
    ...recipeReward(recipe, { resolved: null, ...(instance.patch !== undefined ? { gold: instance.patch } : {}), ...run }),
  };
}

async function testOutputView(
  file: string,
  instanceFile: string,
  instanceId: string | undefined,
  format: TestOutputFormat,
  recipe: Recipe | undefined,
  run: Partial<RolloutEvidence>,
): Promise<RewardView> {
  const instance = await readTaskInstance(instanceFile, instanceId);
  const text = await readText(file);
  const outcome = gradeOutput(instance, text, format);
  // A recipe's score (reward and its terms), else the plain resolved reward.
  const scored = recipe ? recipeReward(recipe, evidenceFromGrading(outcome, instance, run)) : { reward: resolveReward(outcome) };
  if (outcome.kind === 'infra-failure') return { kind: 'infra-failure', instanceId: instance.instance_id, reason: outcome.reason, ...scored };
  return {
    kind: 'grading',
    instanceId: instance.instance_id,
    testsFound: outcome.statuses.size,
    resolution: outcome.resolution,
    resolved: outcome.resolved,
    tests_status: outcome.tests,
    ...scored,
  };
}

function reportView(report: Report, recipe: Recipe | undefined, run: Partial<RolloutEvidence>): RewardView {
  if (recipe && report.kind !== 'instance') throw new CliError(`--recipe scores one rollout: give an instance's report.json, not a ${report.kind} report`);
  switch (report.kind) {
    case 'instance': {
      const r = report.report;
      const scored = recipe ? recipeReward(recipe, evidenceFromReport(r, run)) : { reward: instanceReportReward(r) };
      return {
        kind: 'instance-report',
        shape: report.shape,
        instanceId: report.instanceId,
        resolved: r.resolved,
        patchApplied: r.patch_successfully_applied,
        tests_status: r.tests_status,
        ...scored,
      };
    }
    case 'run': {
      const s = report.summary;
      const rate = s.total === 0 ? 0 : s.resolvedIds.length / s.total;
      return {
        kind: 'run-report',
        shape: report.shape,
        total: s.total,
        resolved: s.resolvedIds.length,
        unresolved: s.unresolvedIds.length,
        errors: s.errorIds.length,
        emptyPatches: s.emptyPatchIds.length,
        reward: { value: rate, terms: [{ name: 'resolve rate', value: rate, rule: `${s.resolvedIds.length} of ${s.total} instances resolved` }] },
      };
    }
    case 'validation': {
      const valid = isValidBug(report.lists);
      const counts = Object.fromEntries(Object.entries(report.lists).map(([k, v]) => [k, v.length]));
      return {
        kind: 'validation-report',
        valid,
        counts,
        lists: report.lists,
        reward: {
          value: valid ? 1 : 0,
          terms: [{ name: 'valid bug', value: valid ? 1 : 0, rule: 'SWE-smith: at least one FAIL_TO_PASS and one PASS_TO_PASS test' }],
        },
      };
    }
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
