import { resolve } from 'node:path';
import { InputError } from '../core/errors';
import type { IndexError, Rollout } from '../core/rollouts/record';
import { ROLLOUT_FIELDS } from '../core/rollouts/rolloutFields';
import type { RolloutGroup } from '../core/rollouts/rolloutGroups';
import { indexRollouts, nothingRead } from '../core/rollouts/rolloutIndex';
import { joinTokenReport, readTokenReport } from '../core/rollouts/tokenMismatch';
import { findRollouts, runStatistics, type RunStatistics } from '../core/rollouts/rolloutQuery';
import { goldPatches, patchExtras, scoreRun, type ScoredRollout, type ScoredRun } from '../core/rollouts/recipeRun';
import { ESTIMATORS, type Estimator } from '../core/reward/advantages';
import { readRunBugChecks } from '../core/reward/bugConsistency';
import { RECIPE_NAMES, resolveRecipe } from '../core/reward/recipes';
import { PRESET_HELP, exportSft, parsePresets, type ExportSummary } from '../core/rollouts/curation';
import { forcedCandidates, gradeForced, writeForcedPredictions } from '../core/rollouts/forcedSubmission';
import { FORCED_GRADE_LABEL, gradeForcedInContainers, type ForcedGrade, type ForcedGrading, type ForcedVerdict } from '../core/rollouts/forcedGrading';
import { readTaskInstances } from '../core/reward/instance';
import { parseFilter } from '../core/rollouts/rolloutFilter';
import { CliError, parseCommandArgs, type Command } from './command';
import { positiveInt, sandboxMaker } from './sandboxFlags';

const HELP = `usage: swe-workbench rollouts DIR [--json] [--filter EXPR] [--group] [--sort FIELD] [--search TEXT] [--k N,N] [--cache DIR]
                                [--recipe NAME|FILE [--advantage grpo|drgrpo|rloo] [--bug-checks FILE]]
                                [--export SFT.jsonl [--keep PRESETS]]
                                [--forced-submission [--write-preds DIR] [--forced-reports REPORT,...]]
                                [--forced-submission --grade --image IMAGE --repo REPO --instances FILE [--parallel N] [--test-command CMD] [--test-timeout S] [--workdir /testbed]]

Indexes every trajectory under DIR (all formats, JSON and JSONL), joins preds.json /
all_preds.jsonl and SWE-bench / SWE-smith report.json by instance id, and classifies failures.

  --json          per-rollout records and per-group statistics as JSON
  --filter EXPR   e.g. 'failure=max-steps and steps>50', 'tag=stuck-loop or resolved=none'
                  (operators = != < <= > >= ~ !~, and/or/not, parentheses, "quoted values")
  --group         per-instance statistics: solve rate, pass@k, mixed groups
  --sort FIELD    sort by a field; --sort=-FIELD or FIELD:desc for descending
  --search TEXT   only rollouts whose thoughts, actions or observations contain TEXT
  --k N,N         the k of the pass@k columns with --group (default 1,5,10)
  --cache DIR     keep an index cache in DIR; an unchanged folder is then not read again
  --recipe R      score every rollout by a reward recipe (${RECIPE_NAMES.join(', ')}, or a .json / .yaml
                  file): reward, mask with its reason, and group advantage per rollout; per-group
                  mean, std, pass@k and mixed over the rollouts the recipe keeps. The whole run is
                  scored (a GRPO group is every rollout of the instance); --filter picks the rows shown.
  --instances F   task instances (JSON, list or JSONL) whose gold patches swe-rl compares each
                  rollout's submission with
  --advantage E   the estimator: grpo (r - mean) / std, drgrpo r - mean, rloo r - mean of the others
                  (default: the recipe's)
  --bug-checks F  ssr-injector: a JSON object from instance id (the bug) to its consistency checks,
                  as 'bug validate DIR --json' prints them, or to true / false. A bug that fails a
                  check gets the recipe's lowest reward (inconsistent, default -1) whatever its
                  solver attempts did. Nothing in a rollout records this: a bug the file leaves
                  out is taken as consistent

  --export FILE   write the selected rollouts (--filter, --search) as supervised fine-tuning data:
                  one JSON line per trajectory, OpenAI chat messages, assistant turns trained
                  (weight 1, loss_mask 1) and observations masked (loss_mask 0); written to a
                  temporary file and renamed when complete. Rollouts that read git history
                  (git log, git show, git diff HEAD~) are flagged in the summary and each line.
  --keep PRESETS  ready-made filters for --export, comma-separated: ${PRESET_HELP}
                  (with --recipe, mixed follows the recipe's groups, and rollouts it masks are left out)
  --forced-submission
                  the runs that stopped at the step limit without submitting, and whether their
                  record keeps the patch of their last state (SWE-Master force-submits these).
  --write-preds DIR  writes those patches as SWE-bench predictions, one forced-attempt-<a>.jsonl per
                  attempt, for the harness (python -m swebench.harness.run_evaluation ...)
  --forced-reports R  the harness's run reports of them (forced-attempt-<a>.<run_id>.json): how many
                  would have passed
  --grade         grades those patches for real: per candidate a fresh container of --image holding
                  a copy of --repo (with its git history) at the instance's base_commit, the patch
                  applied, the instance's test_patch applied, its tests run (test_cmd, --test-command,
                  else pytest -rA over the files its test ids name) and graded against FAIL_TO_PASS /
                  PASS_TO_PASS (--instances: JSON, list or JSONL). Verdicts: passed, failed, patch does
                  not apply, infrastructure error (with its reason; not counted). --parallel N
                  containers side by side (default 1); --test-timeout S per test run (default 1800);
                  --workdir where the repository lives in the container (default /testbed).

fields: ${Object.entries(ROLLOUT_FIELDS)
  .map(([name, f]) => `${name} (${f.help})`)
  .join(', ')}
`;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, {
      json: { type: 'boolean' },
      filter: { type: 'string' },
      group: { type: 'boolean' },
      sort: { type: 'string' },
      search: { type: 'string' },
      k: { type: 'string' },
      cache: { type: 'string' },
      recipe: { type: 'string' },
      advantage: { type: 'string' },
      instances: { type: 'string' },
      'bug-checks': { type: 'string' },
      export: { type: 'string' },
      keep: { type: 'string' },
      'forced-submission': { type: 'boolean' },
      'write-preds': { type: 'string' },
      'forced-reports': { type: 'string' },
      grade: { type: 'boolean' },
      image: { type: 'string' },
      repo: { type: 'string' },
      workdir: { type: 'string' },
      parallel: { type: 'string' },
      'test-command': { type: 'string' },
      'test-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      ctx.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1) throw new CliError(`expected one folder, got ${positionals.length}\n\n${HELP}`);
    const ks = parseKs(values.k ?? '1,5,10');
    if (values.advantage !== undefined && !(ESTIMATORS as readonly string[]).includes(values.advantage))
      throw new CliError(`--advantage expects one of ${ESTIMATORS.join(', ')}, got '${values.advantage}'`);
    if (values.advantage !== undefined && values.recipe === undefined) throw new CliError('--advantage goes with --recipe');
    if (values.keep !== undefined && values.export === undefined) throw new CliError('--keep goes with --export');
    const presets = values.keep === undefined ? [] : await asCliError(async () => parsePresets(values.keep!));
    const recipe = values.recipe === undefined ? undefined : await asCliError(() => resolveRecipe(values.recipe!));
    // The filter is a usage error before any file is read or any cache written.
    if (values.filter !== undefined) await asCliError(async () => parseFilter(values.filter!));
    // A missing or unreadable folder is an input error (exit 1), as in inspect.
    const indexed = await indexRollouts(positionals[0]!, { signal: ctx.signal, ...(values.cache ? { cacheDir: values.cache } : {}) });
    // A run re-scored by `tokens DIR --save` filters and sorts on maxdiff, outside, kl and drift.
    const report = await readTokenReport(indexed.root, ctx.signal);
    const index = report ? { ...indexed, rollouts: joinTokenReport(indexed.rollouts, report) } : indexed;
    const { rows: rollouts, hits } = await asCliError(() =>
      findRollouts(index, { filter: values.filter ?? '', search: values.search ?? '', ...(values.sort ? { sort: values.sort } : {}) }, { signal: ctx.signal }),
    );
    const { groups, statistics } = runStatistics(rollouts);
    const grading = ['grade', 'image', 'repo', 'workdir', 'parallel', 'test-command', 'test-timeout'].filter(
      (f) => values[f as keyof typeof values] !== undefined,
    );
    if (grading.length && !(values['forced-submission'] && values.grade))
      throw new CliError(`--${grading[0]} goes with --forced-submission${grading[0] === 'grade' ? '' : ' --grade'}`);
    if (values.grade && (values['write-preds'] !== undefined || values['forced-reports'] !== undefined))
      throw new CliError('--grade grades the patches here: it does not go with --write-preds or --forced-reports (the external harness)');
    if (values.grade && values.instances === undefined) throw new CliError('--grade needs --instances FILE: the task instances (base commit, test lists)');
    if (values.instances !== undefined && recipe?.shape !== 'swe-rl' && !values.grade)
      throw new CliError('--instances goes with a swe-rl recipe (its gold patches) or with --forced-submission --grade');
    const extras =
      values.instances === undefined
        ? undefined
        : await asCliError(async () => patchExtras(index.root, index.rollouts, await goldPatches(values.instances!), ctx.signal));
    if (values['bug-checks'] !== undefined && recipe?.shape !== 'ssr-injector') throw new CliError('--bug-checks goes with an ssr-injector recipe');
    const bugs = values['bug-checks'] === undefined ? undefined : await asCliError(() => readRunBugChecks(values['bug-checks']!));
    if (bugs && !index.rollouts.some((r) => bugs.has(r.instance)))
      throw new CliError(
        `${values['bug-checks']}: names none of the run's instances (${[...bugs.keys()].slice(0, 3).join(', ')}${bugs.size > 3 ? ', ...' : ''})`,
      );
    const scored = recipe
      ? scoreRun(index.rollouts, recipe, (values.advantage as Estimator | undefined) ?? recipe.advantage, extras, bugs ? { bugs } : {})
      : undefined;
    if (values['forced-submission'] && values.grade) {
      // Graded in the task's image only: a patch is never applied and run on this machine.
      const make = await sandboxMaker(values, ctx, FORCED_GRADE_LABEL, HELP, true);
      const instances = await asCliError(() => readTaskInstances(values.instances!));
      const parallel = positiveInt(values.parallel, 'parallel', 1);
      const candidates = await forcedCandidates(index.root, rollouts, ctx.signal);
      const graded = await gradeForcedInContainers(candidates, {
        createSandbox: make,
        instances: new Map(instances.map((i) => [i.instance_id, i])),
        parallel,
        signal: ctx.signal,
        ...(values['test-command'] !== undefined ? { testCommand: values['test-command'] } : {}),
        ...(values['test-timeout'] !== undefined ? { testTimeoutMs: 1000 * positiveInt(values['test-timeout'], 'test-timeout', 1800) } : {}),
        ...(values.json ? {} : { onGrade: (g: ForcedGrade) => ctx.stderr.write(`graded ${g.id}: ${g.verdict}\n`) }),
      });
      ctx.stdout.write(values.json ? JSON.stringify(graded, null, 2) + '\n' : forcedGradingText(graded));
      return 0;
    }
    if (values['forced-submission']) {
      ctx.stdout.write(await forcedReport(index.root, rollouts, values['write-preds'], values['forced-reports'], values.json === true, ctx.signal));
      return 0;
    }
    if (values['write-preds'] !== undefined || values['forced-reports'] !== undefined)
      throw new CliError('--write-preds and --forced-reports go with --forced-submission');
    if (values.export !== undefined) {
      const exported = await asCliError(() =>
        exportSft(index.root, rollouts, resolve(values.export!), { presets, all: index.rollouts, ...(scored ? { scored } : {}), signal: ctx.signal }),
      );
      ctx.stdout.write(values.json ? JSON.stringify(exported, null, 2) + '\n' : exportSummary(exported));
      return 0;
    }
    if (values.json) {
      const scores = new Map(scored?.rollouts.map((s) => [s.id, s]));
      const shown = new Set(rollouts.map((r) => r.instance));
      const recipePart = scored
        ? {
            recipe: { ...scored.recipe, estimator: scored.estimator, formula: scored.formula, statistics: scored.statistics },
            recipeGroups: scored.groups.filter((g) => shown.has(g.instance)),
          }
        : {};
      ctx.stdout.write(
        JSON.stringify(
          {
            root: index.root,
            rollouts: rollouts.map((r) => jsonRecord(r, scores.get(r.id))),
            statistics,
            groups,
            ...recipePart,
            ...(hits ? { hits } : {}),
            errors: index.errors,
            stats: index.stats,
          },
          null,
          2,
        ) + '\n',
      );
    } else {
      if (scored) ctx.stdout.write(values.group ? recipeGroupTable(scored, new Set(rollouts.map((r) => r.instance)), ks) : recipeTable(rollouts, scored));
      else ctx.stdout.write(values.group ? groupTable(groups, ks) : rolloutTable(rollouts));
      if (hits) ctx.stdout.write(hits.map((h) => `${h.rollout}  step ${h.step + 1} ${h.field}: ${h.excerpt}`).join('\n') + (hits.length ? '\n' : ''));
      ctx.stdout.write(summary(statistics) + '\n');
      if (scored) ctx.stdout.write(recipeSummary(scored) + '\n');
      if (index.errors.length > 0)
        ctx.stderr.write(`${index.errors.length} unreadable input(s):\n${index.errors.map((e) => `  ${formatError(e)}`).join('\n')}\n`);
    }
    const unusable = nothingRead(index);
    if (unusable) ctx.stderr.write(`swe-workbench: ${unusable}\n`);
    return unusable ? 1 : 0;
  },
};

async function asCliError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof InputError) throw new CliError(err.message);
    throw err;
  }
}

function parseKs(text: string): number[] {
  const ks = text.split(',').map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k < 1)) throw new CliError(`--k expects positive integers separated by commas, got '${text}'`);
  return ks;
}

function jsonRecord(r: Rollout, score?: ScoredRollout) {
  const { evaluation, prediction, ...rest } = r;
  const recipe = score
    ? {
        recipe: {
          outcome: score.score.outcome,
          // A masked rollout's reward is no number: null, with the mask and its reason beside it.
          value: score.score.outcome === 'masked' ? null : score.score.value,
          mask: score.score.mask,
          unscored: score.score.unscored,
          advantage: score.advantage,
          why: score.why,
          terms: score.score.terms,
        },
      }
    : {};
  return { ...rest, agent: evaluation?.agent ?? null, evaluationFile: evaluation?.file ?? null, predictionFile: prediction?.file ?? null, ...recipe };
}

export function formatError(e: IndexError): string {
  return [e.file + (e.line !== undefined ? `:${e.line}` : ''), e.where, e.message].filter(Boolean).join(': ');
}

type Cell = string | number | undefined | null;

/** Columns padded to their widest cell; numbers right-aligned. */
function table(header: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map((c) => (c === undefined || c === null ? '-' : String(c))));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((row) => typeof row[i] === 'number' || row[i] === undefined || row[i] === null));
  const widths = header.map((h, i) => Math.max(h.length, ...text.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...text.map(line)].join('\n') + '\n';
}

function fixed(n: number | undefined, digits: number): Cell {
  return n === undefined ? undefined : Number(n.toFixed(digits));
}

function rolloutTable(rollouts: Rollout[]): string {
  return table(
    ['ID', 'INSTANCE', 'ATTEMPT', 'FORMAT', 'STEPS', 'EXIT', 'RESOLVED', 'REWARD', 'FAILURE', 'TOKENS', 'COST', 'SECONDS'],
    rollouts.map((r) => [
      r.id,
      r.instance,
      r.attempt,
      r.format,
      r.steps,
      r.exitStatus,
      r.resolved === null ? undefined : String(r.resolved),
      fixed(r.reward, 3),
      r.failure,
      r.tokens,
      fixed(r.cost, 4),
      fixed(r.duration, 1),
    ]),
  );
}

function groupTable(groups: RolloutGroup[], ks: number[]): string {
  return table(
    ['INSTANCE', 'ROLLOUTS', 'EVALUATED', 'RESOLVED', 'SOLVE', ...ks.map((k) => `PASS@${k}`), 'MIXED', 'FAILURES'],
    groups.map((g) => [
      g.instance,
      g.rollouts,
      g.evaluated,
      g.resolved,
      g.solveRate === null ? undefined : fixed(g.solveRate, 3),
      ...ks.map((k) => fixed(g.passAtK[k - 1], 3)),
      g.mixed ? 'yes' : 'no',
      Object.entries(g.failures)
        .map(([f, n]) => `${f}:${n}`)
        .join(' '),
    ]),
  );
}

function summary(s: RunStatistics): string {
  return `${s.rollouts} rollouts, ${s.instances} instances, ${s.resolved}/${s.evaluated} evaluated resolved, ${s.mixed} mixed groups`;
}

function recipeTable(rollouts: Rollout[], run: ScoredRun): string {
  const byId = new Map(run.rollouts.map((s) => [s.id, s]));
  return table(
    ['ID', 'INSTANCE', 'ATTEMPT', 'STEPS', 'FAILURE', 'REWARD', 'ADVANTAGE', 'OUTCOME'],
    rollouts.map((r) => {
      const s = byId.get(r.id)!;
      const outcome =
        s.score.outcome === 'masked' ? `masked: ${s.score.mask!.reason}` : s.score.outcome === 'unscored' ? `not scored: ${s.score.unscored}` : 'scored';
      return [
        r.id,
        r.instance,
        r.attempt,
        r.steps,
        r.failure,
        s.score.outcome === 'masked' ? 'masked' : s.score.value === null ? undefined : fixed(s.score.value, 3),
        s.advantage === null ? undefined : fixed(s.advantage, 3),
        outcome,
      ];
    }),
  );
}

function recipeGroupTable(run: ScoredRun, shown: ReadonlySet<string>, ks: number[]): string {
  return table(
    ['INSTANCE', 'ROLLOUTS', 'INCLUDED', 'MASKED', 'MEAN', 'STD', ...ks.map((k) => `PASS@${k}`), 'MIXED', 'SIGNAL', 'MASKS'],
    run.groups
      .filter((g) => shown.has(g.instance))
      .map((g) => [
        g.instance,
        g.rollouts,
        g.included,
        g.masked,
        g.mean === null ? undefined : fixed(g.mean, 3),
        g.std === null ? undefined : fixed(g.std, 3),
        ...ks.map((k) => fixed(g.passAtK[k - 1], 3)),
        g.mixed ? 'yes' : 'no',
        g.signal ? 'yes' : 'no',
        Object.entries(g.maskReasons)
          .map(([reason, n]) => `${reason} x${n}`)
          .join('; '),
      ]),
  );
}

function recipeSummary(run: ScoredRun): string {
  const s = run.statistics;
  const masks = Object.entries(s.maskReasons).map(([reason, n]) => `${reason} x${n}`);
  return `recipe ${run.recipe.name} v${run.recipe.version}, ${run.formula}: ${s.scored} scored, ${s.masked} masked${masks.length ? ` (${masks.join('; ')})` : ''}, ${s.unscored} not scored; ${s.withSignal} of ${s.groups} groups give a gradient`;
}

function exportSummary(e: ExportSummary): string {
  const lines = [`wrote ${e.written} of ${e.selected} selected rollouts to ${e.file} (${e.bytes} bytes)`];
  const skipped = Object.entries(e.skipped);
  if (skipped.length) lines.push(`left out: ${skipped.map(([reason, n]) => `${reason} x${n}`).join('; ')}`);
  if (e.gitHistory.length) {
    lines.push(`${e.gitHistory.length} rollout(s) read git history:`);
    for (const g of e.gitHistory) lines.push(`  ${g.id}  step ${g.step + 1}: ${g.command}`);
  }
  return lines.join('\n') + '\n';
}

const VERDICT_WORDS: Record<ForcedVerdict, string> = {
  passed: 'passed',
  failed: 'failed',
  'patch-does-not-apply': 'patch does not apply',
  'infrastructure-error': 'infrastructure error',
  'not-graded': 'not graded',
};

function forcedGradingText(g: ForcedGrading): string {
  const lines = [`${g.candidates} run(s) stopped at the step limit without submitting`];
  for (const grade of g.grades) lines.push(`  ${grade.id}  ${VERDICT_WORDS[grade.verdict]}: ${grade.reason}`);
  const rate = g.passRate === null ? 'nothing graded' : `${(100 * g.passRate).toFixed(1)}%; SWE-Master found 24.3%`;
  lines.push(`${g.passed} of ${g.measured} forced submissions would have passed (${rate})`);
  const apart = [
    g.doesNotApply ? `${g.doesNotApply} counted as not passing because the patch does not apply` : '',
    g.infraErrors ? `${g.infraErrors} left out for an infrastructure error` : '',
    g.notGraded ? `${g.notGraded} not graded` : '',
  ].filter(Boolean);
  if (apart.length) lines.push(`(${apart.join('; ')})`);
  return lines.join('\n') + '\n';
}

/** Forced submission, measured: candidates, recoverable patches, predictions for the harness, and its verdicts. */
async function forcedReport(
  root: string,
  rollouts: readonly Rollout[],
  predsDir: string | undefined,
  reports: string | undefined,
  json: boolean,
  signal: AbortSignal,
): Promise<string> {
  const candidates = await forcedCandidates(root, rollouts, signal);
  const files = predsDir === undefined ? [] : await asCliError(() => writeForcedPredictions(resolve(predsDir), candidates));
  const measure = await asCliError(() => gradeForced(candidates, reports === undefined ? [] : reports.split(',').map((f) => resolve(f.trim()))));
  if (json)
    return (
      JSON.stringify(
        { ...measure, candidates: candidates.map(({ patch, ...c }) => ({ ...c, patchChars: patch?.length ?? null })), predictions: files },
        null,
        2,
      ) + '\n'
    );
  const lines = [`${measure.candidates} run(s) stopped at the step limit without submitting; ${measure.withPatch} keep the patch of their last state`];
  for (const c of candidates) lines.push(`  ${c.id}  ${c.steps} steps: ${c.patch === null ? 'no patch' : `${c.patch.length} characters`} (${c.source})`);
  for (const f of files) lines.push(`predictions for the harness: ${f}`);
  if (reports !== undefined) {
    lines.push(
      measure.passRate === null
        ? 'no report grades any of these patches'
        : `forced submission would have passed ${measure.passed} of ${measure.graded} graded (${(100 * measure.passRate).toFixed(1)}%; SWE-Master found 24.3%)`,
    );
    if (measure.ungraded.length) lines.push(`not graded by any report: ${measure.ungraded.join(', ')}`);
  }
  return lines.join('\n') + '\n';
}
