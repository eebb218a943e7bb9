/**
 * `swe-workbench rollouts list|export|forced|grade|replay|rescore DIR`: one subcommand per mode, each with its own
 * options, so an option of another mode is an unknown option rather than a rule checked here.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { InputError } from '../core/errors';
import { ROLLOUT_FIELDS } from '../core/rollouts/rolloutFields';
import { indexRollouts, nothingRead, type RolloutIndex } from '../core/rollouts/rolloutIndex';
import { runStatistics } from '../core/rollouts/rolloutQuery';
import { findRollouts } from '../core/rollouts/rolloutSearch';
import { TOKEN_REPORT_FILE, joinTokenReport, readTokenReport } from '../core/rollouts/tokenMismatch';
import { command as tokensCommand } from './tokens';
import { scoreRun, statisticsOver, type ScoredRun } from '../core/rollouts/recipeRun';
import { goldPatches, patchExtras } from '../core/rollouts/recipeEvidence';
import { ESTIMATORS } from '../core/reward/advantages';
import { readRunBugChecks } from '../core/reward/bugConsistency';
import { RECIPE_NAMES, type Recipe } from '../core/reward/recipes';
import { resolveRecipe } from '../core/reward/recipeFiles';
import { PRESET_HELP, exportSft, parsePresets } from '../core/rollouts/curation';
import { forcedCandidates, gradeForced, writeForcedPredictions } from '../core/rollouts/forcedSubmission';
import { FORCED_GRADE_LABEL, gradeForcedInContainers, summarizeForcedGrades, type ForcedGrade } from '../core/rollouts/forcedGrading';
import { readTaskInstances } from '../core/reward/rewardFiles';
import { parseFilter } from '../core/rollouts/rolloutFilter';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';
import { sandboxMaker } from './sandboxFlags';
import { defined } from '../core/defined';
import { loadRolloutTrajectory } from '../core/rollouts/rolloutLoad';
import { normalisersNamed } from '../core/session/divergence';
import { replayRollouts, replaySummary, type RolloutReplay } from '../core/session/replayRun';
import { onSlurm, sameRollouts, scheduleOf, SLURM_HELP, SLURM_OPTIONS, taskArgv, type Schedule } from './slurmOption';
import { shardItems, writeShardResult } from '../core/runtime/slurmArray';
import * as text from './rolloutsText';

const SELECT_HELP = `  --filter EXPR   e.g. 'failure=max-steps and steps>50', 'tag=stuck-loop or resolved=none'
                  (operators = != < <= > >= ~ !~, and/or/not, parentheses, "quoted values")
  --search TEXT   only rollouts whose thoughts, actions or observations contain TEXT
  --sort FIELD    sort by a field; --sort=-FIELD or FIELD:desc for descending
  --cache DIR     keep an index cache in DIR; an unchanged folder is then not read again,
                  and --search reads the cache's text store instead of every file
  --json          the answer as JSON`;

const RECIPE_HELP = `  --recipe R      score every rollout by a reward recipe (${RECIPE_NAMES.join(', ')}, or a .json / .yaml
                  file): reward, mask with its reason, and group advantage per rollout. The whole
                  run is scored (a GRPO group is every rollout of the instance); --filter picks the rows.
  --advantage E   with --recipe, the estimator: grpo (r - mean) / std, drgrpo r - mean, rloo r - mean
                  of the others (default: the recipe's)
  --instances F   with a swe-rl recipe: task instances (JSON, list or JSONL) whose gold patches it
                  compares each rollout's submission with
  --bug-checks F  with an ssr-injector recipe: a JSON object from instance id (the bug) to its
                  consistency checks, as 'bug validate DIR --json' prints them, or to true / false. A
                  bug that fails a check gets the recipe's lowest reward (inconsistent, default -1).
                  A bug the file leaves out is taken as consistent`;

const HELP: Record<Mode | 'all', string> = {
  all: `usage: swe-workbench rollouts list|export|forced|grade|replay|rescore DIR [options]

Indexes every trajectory under DIR (all formats, JSON and JSONL), joins preds.json /
all_preds.jsonl and SWE-bench / SWE-smith report.json by instance id, and classifies failures.

  list DIR      a table of the rollouts (--group: per instance), or --json; --recipe scores them
  export DIR    the selected rollouts as supervised fine-tuning data (--out FILE)
  forced DIR    the runs cut by the step limit without submitting, and the patch of their last state
  grade DIR     those patches graded for real, each in a fresh container of the task's image
  replay DIR    every rollout replayed in a container, each step compared: the run's divergence report
  rescore DIR   each rollout's sampled tokens re-scored against a policy server (--policy URL), kept
                beside the run for list's maxdiff, outside, kl and drift fields and the table's columns

'swe-workbench rollouts SUBCOMMAND --help' gives its options. The single-command forms of
earlier releases still work: 'rollouts DIR [...]' is list, 'DIR --export FILE' is export,
'DIR --forced-submission' is forced, 'DIR --forced-submission --grade' is grade,
'DIR --policy URL' is rescore.

fields: ${Object.entries(ROLLOUT_FIELDS)
    .map(([name, f]) => `${name} (${f.help})`)
    .join(', ')}
`,
  list: `usage: swe-workbench rollouts list DIR [--group [--k N,N]] [--filter EXPR] [--search TEXT] [--sort FIELD]
                                     [--cache DIR] [--recipe NAME|FILE [--advantage E] [--instances F] [--bug-checks F]] [--json]

  --group         per-instance statistics: solve rate, pass@k, mixed groups (with --recipe: mean, std,
                  pass@k and mixed over the rollouts the recipe keeps)
  --k N,N         the k of the pass@k columns (default: 1 up to the largest group's size)
${SELECT_HELP}
${RECIPE_HELP}
`,
  export: `usage: swe-workbench rollouts export DIR --out SFT.jsonl [--keep PRESETS] [--filter EXPR] [--search TEXT]
                                       [--recipe NAME|FILE [--advantage E] [--instances F] [--bug-checks F]] [--json]

One JSON line per selected trajectory: OpenAI chat messages, assistant turns trained (weight 1,
loss_mask 1) and observations masked (loss_mask 0); written to a temporary file and renamed when
complete. Rollouts that read git history (git log, git show, git diff HEAD~) are flagged.

  --out FILE      the JSONL file to write
  --keep PRESETS  ready-made filters, comma-separated: ${PRESET_HELP}
                  (with --recipe, mixed follows the recipe's groups, and rollouts it masks are left out)
${SELECT_HELP}
${RECIPE_HELP}
`,
  forced: `usage: swe-workbench rollouts forced DIR [--write-preds DIR] [--forced-reports REPORT,...] [--filter EXPR] [--json]

The runs that stopped at the step limit without submitting, and whether their record keeps the
patch of their last state (SWE-Master force-submits these).

  --write-preds DIR     writes those patches as SWE-bench predictions, one forced-attempt-<a>.jsonl
                        per attempt, for the harness (python -m swebench.harness.run_evaluation ...)
  --forced-reports R,.. the harness's run reports of them (forced-attempt-<a>.<run_id>.json): how
                        many would have passed
${SELECT_HELP}
`,
  grade: `usage: swe-workbench rollouts grade DIR --image IMAGE --repo REPO --instances FILE [--parallel N]
                                      [--test-command CMD] [--test-timeout S] [--workdir /testbed] [--filter EXPR] [--json]

Grades the patches of the runs cut by the step limit for real: per candidate a fresh container of
--image holding a copy of --repo (with its git history) at the instance's base_commit, the patch
applied, the instance's test_patch applied, its tests run (test_cmd, --test-command, else pytest
-rA over the files its test ids name) and graded against FAIL_TO_PASS / PASS_TO_PASS. Verdicts:
passed, failed, patch does not apply, infrastructure error (with its reason; not counted).

  --instances F     the task instances (base commit, test lists): JSON, list or JSONL
  --parallel N      containers side by side (default 1)
  --test-timeout S  per test run (default 1800)
  --workdir PATH    where the repository lives in the container (default /testbed)
${SELECT_HELP}
${SLURM_HELP}
`,
  replay: `usage: swe-workbench rollouts replay DIR --image IMAGE --repo REPO [--parallel N] [--workdir PATH]
                                       [--forgive a,b] [--filter EXPR] [--json]

The divergence report of a whole run: every rollout's recorded actions replayed in a fresh
container of --image holding a copy of --repo (at the recording's base commit, when it names one),
as 'swe-workbench replay' replays one, and each step's observation compared with the recorded one.
Per rollout: how many replayed steps matched and the first divergence (step numbers from 1), or
why it was not replayed; then how many matched all the way, diverged, were not replayed.

  --parallel N      containers side by side (default 1)
  --workdir PATH    where the repository goes (default: the recording's, else /repo)
  --forgive a,b     the normalisers, as replay's --forgive names them
  --json            {"rollouts": [{"id", "steps", "matched", "firstDivergence" (0-based), ...}], "summary"}
Exit code: 0 when every rollout matched all the way, 1 otherwise.
${SELECT_HELP}
${SLURM_HELP}
`,
  rescore: `usage: swe-workbench rollouts rescore DIR --policy URL [--model NAME] [--bounds LOW,HIGH] [--api vllm|sglang]
                                        [--in-flight N] [--no-drift] [--api-key KEY] [--json]

Re-scores every rollout's sampled tokens (recorded token ids and logprobs) against the server at
URL, N requests in flight, and keeps each rollout's figures in DIR/${TOKEN_REPORT_FILE}: what
'rollouts list --filter' (maxdiff, outside, kl, drift) and the rollouts table read. It is
'swe-workbench tokens DIR --save', whose help gives the options and the output, --scheduler slurm
--out OUT (a job array over the folder's rollouts) included.
`,
};

const MODES = ['list', 'export', 'forced', 'grade', 'replay', 'rescore'] as const;
type Mode = (typeof MODES)[number];

const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
const SELECT = { json: bool, filter: str, search: str, sort: str, cache: str, help: { type: 'boolean', short: 'h' } } as const;
const RECIPE = { recipe: str, advantage: str, instances: str, 'bug-checks': str } as const;
const OPTIONS = {
  list: { ...SELECT, ...RECIPE, group: bool, k: str },
  export: { ...SELECT, ...RECIPE, out: str, keep: str },
  forced: { ...SELECT, 'write-preds': str, 'forced-reports': str },
  grade: {
    ...SELECT,
    ...SLURM_OPTIONS,
    out: str,
    instances: str,
    image: str,
    repo: str,
    workdir: str,
    parallel: str,
    'test-command': str,
    'test-timeout': str,
  },
  replay: { ...SELECT, ...SLURM_OPTIONS, out: str, image: str, repo: str, workdir: str, parallel: str, forgive: str },
  rescore: {
    ...SLURM_OPTIONS,
    out: str,
    policy: str,
    model: str,
    bounds: str,
    api: str,
    'in-flight': str,
    'no-drift': bool,
    'api-key': str,
    json: bool,
    help: { type: 'boolean', short: 'h' },
  },
} satisfies Record<Mode, ParseArgsConfig['options']>;

const wholeNumber = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((s, ctx) => {
      const n = Number(s);
      if (Number.isInteger(n) && n >= 1) return n;
      ctx.addIssue({ code: 'custom', message: `expects a whole number of at least 1, got '${s}'` });
      return z.NEVER;
    });
const Select = z.object({
  json: z.boolean().default(false),
  filter: z.string().default(''),
  search: z.string().default(''),
  sort: z.string().optional(),
  cache: z.string().optional(),
});
const RecipeOptions = z
  .object({
    recipe: z.string().optional(),
    advantage: z.enum(ESTIMATORS, { error: (i) => `expects one of ${ESTIMATORS.join(', ')}, got '${String(i.input)}'` }).optional(),
    instances: z.string().optional(),
    'bug-checks': z.string().optional(),
  })
  .refine((o) => o.advantage === undefined || o.recipe !== undefined, { message: 'goes with --recipe', path: ['advantage'] });
const SCHEMAS = {
  list: Select.extend({
    group: z.boolean().default(false),
    k: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (s === undefined) return undefined;
        const ks = s.split(',').map((part) => Number(part.trim()));
        if (ks.every((k) => Number.isInteger(k) && k >= 1)) return ks;
        ctx.addIssue({ code: 'custom', message: `expects positive integers separated by commas, got '${s}'` });
        return z.NEVER;
      }),
  }).and(RecipeOptions),
  export: Select.extend({ out: z.string({ error: 'is required: the JSONL file to write' }), keep: z.string().optional() }).and(RecipeOptions),
  forced: Select.extend({ 'write-preds': z.string().optional(), 'forced-reports': z.string().optional() }),
  grade: Select.extend({
    instances: z.string({ error: 'is required: the task instances (base commit, test lists)' }),
    image: z.string({ error: 'is required: the task image the patches are graded in' }),
    repo: z.string({ error: 'is required: the repository, copied with its git history' }),
    workdir: z.string().default('/testbed'),
    parallel: wholeNumber(1),
    'test-command': z.string().optional(),
    'test-timeout': wholeNumber(1800),
  }),
  replay: Select.extend({
    image: z.string({ error: 'is required: the task image the rollouts replay in' }),
    repo: z.string({ error: 'is required: the repository, copied with its git history' }),
    workdir: z.string().optional(),
    parallel: wholeNumber(1),
    forgive: z.string().optional(),
  }),
  // The re-score's own options are read by the tokens command it runs.
  rescore: z.object({ policy: z.string({ error: 'is required: the policy server to re-score against' }) }).passthrough(),
};
type Options<M extends Mode> = z.infer<(typeof SCHEMAS)[M]>;

export const command: Command = {
  async run(argv, ctx) {
    if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
      if (argv.length === 0) throw new CliError(`expected a subcommand (${MODES.join(', ')}) and a folder\n\n${HELP.all}`);
      ctx.stdout.write(HELP.all);
      return 0;
    }
    const { mode, args } = modeOf(argv);
    const { values, positionals } = parseMode(mode, args);
    if (values.help) {
      ctx.stdout.write(HELP[mode]);
      return 0;
    }
    if (positionals.length !== 1) throw new CliError(`rollouts ${mode}: expected one folder, got ${positionals.length}\n\n${HELP[mode]}`);
    const parsed = SCHEMAS[mode].safeParse(values);
    if (!parsed.success) throw new CliError(parsed.error.issues.map((i) => `--${i.path.join('.')} ${i.message}`).join('; '));
    const dir = positionals[0]!;
    switch (mode) {
      case 'list':
        return list(dir, parsed.data as Options<'list'>, ctx);
      case 'export':
        return exportRollouts(dir, parsed.data as Options<'export'>, ctx);
      case 'forced':
        return forced(dir, parsed.data as Options<'forced'>, ctx);
      case 'grade':
        return grade(dir, parsed.data as Options<'grade'>, scheduleOf(values, values.out as string | undefined), args, ctx);
      case 'replay':
        return replayRun(dir, parsed.data as Options<'replay'>, scheduleOf(values, values.out as string | undefined), args, ctx);
      case 'rescore':
        // One re-score for a file and a run: the tokens command's, its figures kept beside the run.
        return tokensCommand.run(['--save', ...args], ctx);
    }
  },
};

/** The subcommand, or the mode an earlier single-command form names by its flags (docs/cli.md promised them). */
function modeOf(argv: string[]): { mode: Mode; args: string[] } {
  if ((MODES as readonly string[]).includes(argv[0]!)) return { mode: argv[0] as Mode, args: argv.slice(1) };
  const end = argv.indexOf('--');
  const head = end < 0 ? argv : argv.slice(0, end);
  const tail = end < 0 ? [] : argv.slice(end);
  const has = (flag: string) => head.includes(flag);
  const forcedFlag = has('--forced-submission');
  const gradeFlag = forcedFlag && has('--grade');
  const drop = (a: string) => a !== '--forced-submission' && !(gradeFlag && a === '--grade');
  const args = [...head.filter(drop).map((a) => (a === '--export' ? '--out' : a.startsWith('--export=') ? `--out=${a.slice(9)}` : a)), ...tail];
  const exporting = head.some((a) => a === '--export' || a.startsWith('--export='));
  const rescoring = head.some((a) => a === '--policy' || a.startsWith('--policy='));
  return { mode: gradeFlag ? 'grade' : forcedFlag ? 'forced' : exporting ? 'export' : rescoring ? 'rescore' : 'list', args };
}

/** Strict parsing of one mode's options: an option of another mode says which mode it belongs to. */
function parseMode(mode: Mode, args: string[]): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseCommandArgs(args, OPTIONS[mode] as ParseArgsConfig['options']) as {
      values: Record<string, string | boolean | undefined>;
      positionals: string[];
    };
  } catch (err) {
    const unknown = /Unknown option '-*([^']+)'/.exec((err as Error).message)?.[1];
    if (!unknown) throw err;
    const owners = MODES.filter((m) => unknown in OPTIONS[m]);
    const legacy = { 'forced-submission': 'forced', grade: 'grade', export: 'export' }[unknown];
    const where = owners.length ? `: it is an option of rollouts ${owners.join(', ')}` : legacy ? `: see rollouts ${legacy}` : '';
    throw new CliError(`rollouts ${mode} has no option --${unknown}${where}\n\n${HELP[mode]}`);
  }
}

async function asCliError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof InputError) throw new CliError(err.message);
    throw err;
  }
}

/** The folder indexed and the rollouts the filter, search and sort select; the filter is a usage error before any file is read. */
async function select(dir: string, o: z.infer<typeof Select>, ctx: CommandContext) {
  if (o.filter) await asCliError(async () => parseFilter(o.filter));
  // A missing or unreadable folder is an input error (exit 1), as in inspect.
  const indexed = await indexRollouts(dir, { signal: ctx.signal, ...(o.cache ? { cacheDir: o.cache } : {}) });
  // A run re-scored by `tokens DIR --save` filters and sorts on maxdiff, outside, kl and drift.
  const report = await readTokenReport(indexed.root, ctx.signal);
  const index = report ? { ...indexed, rollouts: joinTokenReport(indexed.rollouts, report) } : indexed;
  const found = await asCliError(() =>
    findRollouts(index, { filter: o.filter, search: o.search, ...(o.sort ? { sort: o.sort } : {}) }, { signal: ctx.signal }),
  );
  return { index, rollouts: found.rows, hits: found.hits };
}

async function recipeOf(o: z.infer<typeof RecipeOptions>): Promise<Recipe | undefined> {
  const recipe = o.recipe === undefined ? undefined : await asCliError(() => resolveRecipe(o.recipe!));
  if (o.instances !== undefined && recipe?.shape !== 'swe-rl') throw new CliError('--instances goes with a swe-rl recipe (its gold patches)');
  if (o['bug-checks'] !== undefined && recipe?.shape !== 'ssr-injector') throw new CliError('--bug-checks goes with an ssr-injector recipe');
  return recipe;
}

/**
 * The pass@k columns when --k is not given: every k from 1 to the largest group's graded
 * rollouts (a group of 4 gets pass@1..4), thinned to powers of two and that size past 8.
 */
function passAtKs(groups: readonly { passAtK: readonly number[] }[]): number[] {
  const n = Math.max(1, ...groups.map((g) => g.passAtK.length));
  if (n <= 8) return Array.from({ length: n }, (_, i) => i + 1);
  const ks: number[] = [];
  for (let k = 1; k < n; k *= 2) ks.push(k);
  return [...ks, n];
}

/** The whole run scored by the recipe (a group is every rollout of its instance, whatever the filter shows). */
async function scoreAll(recipe: Recipe | undefined, o: z.infer<typeof RecipeOptions>, index: RolloutIndex, signal: AbortSignal) {
  if (!recipe) return undefined;
  const extras =
    o.instances === undefined ? undefined : await asCliError(async () => patchExtras(index.root, index.rollouts, await goldPatches(o.instances!), signal));
  const bugs = o['bug-checks'] === undefined ? undefined : await asCliError(() => readRunBugChecks(o['bug-checks']!));
  if (bugs && !index.rollouts.some((r) => bugs.has(r.instance)))
    throw new CliError(`${o['bug-checks']}: names none of the run's instances (${[...bugs.keys()].slice(0, 3).join(', ')}${bugs.size > 3 ? ', ...' : ''})`);
  return scoreRun(index.rollouts, recipe, o.advantage ?? recipe.advantage, extras, bugs ? { bugs } : {});
}

async function list(dir: string, o: Options<'list'>, ctx: CommandContext): Promise<number> {
  const recipe = await recipeOf(o);
  const { index, rollouts, hits } = await select(dir, o, ctx);
  const scored = await scoreAll(recipe, o, index, ctx.signal);
  const { groups, statistics } = runStatistics(rollouts);
  const shown = new Set(rollouts.map((r) => r.instance));
  if (o.json) {
    const scores = new Map(scored?.rollouts.map((s) => [s.id, s]));
    const recipePart = scored ? recipeJson(scored, shown, new Set(rollouts.map((r) => r.id))) : {};
    const records = rollouts.map((r) => text.jsonRecord(r, scores.get(r.id)));
    const answer = {
      root: index.root,
      rollouts: records,
      statistics,
      groups,
      ...recipePart,
      ...(hits ? { hits } : {}),
      errors: index.errors,
      stats: index.stats,
    };
    ctx.stdout.write(JSON.stringify(answer, null, 2) + '\n');
  } else {
    const ks = o.k ?? passAtKs(scored ? scored.groups : groups);
    if (scored) ctx.stdout.write(o.group ? text.recipeGroupTable(scored, shown, ks) : text.recipeTable(rollouts, scored));
    else ctx.stdout.write(o.group ? text.groupTable(groups, ks) : text.rolloutTable(rollouts));
    if (hits) ctx.stdout.write(hits.map((h) => `${h.rollout}  step ${h.step + 1} ${h.field}: ${h.excerpt}`).join('\n') + (hits.length ? '\n' : ''));
    ctx.stdout.write(text.summary(statistics) + '\n');
    ctx.stdout.write(text.gradingConflicts(groups));
    if (scored) ctx.stdout.write(text.recipeSummary(scored, new Set(rollouts.map((r) => r.id))) + '\n');
    if (index.errors.length > 0)
      ctx.stderr.write(`${index.errors.length} unreadable input(s):\n${index.errors.map((e) => `  ${text.formatError(e)}`).join('\n')}\n`);
  }
  const unusable = nothingRead(index);
  if (unusable) ctx.stderr.write(`swe-workbench: ${unusable}\n`);
  return unusable ? 1 : 0;
}

/**
 * The recipe's part of `list --json`: its statistics over the rollouts shown (`ids`), as the text's
 * recipe line and the VS Code table count them, with the run's count beside them (`runRollouts`).
 */
function recipeJson(scored: ScoredRun, shown: ReadonlySet<string>, ids: ReadonlySet<string>) {
  return {
    recipe: {
      ...scored.recipe,
      estimator: scored.estimator,
      formula: scored.formula,
      statistics: statisticsOver(scored, ids),
      runRollouts: scored.statistics.rollouts,
    },
    recipeGroups: scored.groups.filter((g) => shown.has(g.instance)),
  };
}

async function exportRollouts(dir: string, o: Options<'export'>, ctx: CommandContext): Promise<number> {
  const presets = o.keep === undefined ? [] : await asCliError(async () => parsePresets(o.keep!));
  const recipe = await recipeOf(o);
  const { index, rollouts } = await select(dir, o, ctx);
  const scored = await scoreAll(recipe, o, index, ctx.signal);
  const exported = await asCliError(() =>
    exportSft(index.root, rollouts, resolve(o.out), { presets, all: index.rollouts, ...(scored ? { scored } : {}), signal: ctx.signal }),
  );
  ctx.stdout.write(o.json ? JSON.stringify(exported, null, 2) + '\n' : text.exportSummary(exported));
  return 0;
}

/** Forced submission, measured: candidates, recoverable patches, predictions for the harness, and its verdicts. */
async function forced(dir: string, o: Options<'forced'>, ctx: CommandContext): Promise<number> {
  const { index, rollouts } = await select(dir, o, ctx);
  const candidates = await forcedCandidates(index.root, rollouts, ctx.signal);
  const predsDir = o['write-preds'];
  const reports = o['forced-reports']?.split(',').map((f) => resolve(f.trim()));
  const files = predsDir === undefined ? [] : await asCliError(() => writeForcedPredictions(resolve(predsDir), candidates));
  const measure = await asCliError(() => gradeForced(candidates, reports ?? []));
  if (o.json) {
    const listed = candidates.map(({ patch, ...c }) => ({ ...c, patchChars: patch?.length ?? null }));
    ctx.stdout.write(JSON.stringify({ ...measure, candidates: listed, predictions: files }, null, 2) + '\n');
  } else ctx.stdout.write(text.forcedText(measure, candidates, files, reports !== undefined));
  return 0;
}

async function grade(dir: string, o: Options<'grade'>, schedule: Schedule, args: string[], ctx: CommandContext): Promise<number> {
  // Graded in the task's image only: a patch is never applied and run on this machine.
  const make = await sandboxMaker(o, ctx, FORCED_GRADE_LABEL, HELP.grade, true);
  const instances = await asCliError(() => readTaskInstances(o.instances));
  const { index, rollouts } = await select(dir, o, ctx);
  const candidates = await forcedCandidates(index.root, rollouts, ctx.signal);
  const gradeAll = (some: typeof candidates) =>
    gradeForcedInContainers(some, {
      createSandbox: make,
      instances: new Map(instances.map((i) => [i.instance_id, i])),
      parallel: o.parallel,
      signal: ctx.signal,
      testTimeoutMs: 1000 * o['test-timeout'],
      ...(o['test-command'] !== undefined ? { testCommand: o['test-command'] } : {}),
      ...(o.json ? {} : { onGrade: (g: ForcedGrade) => ctx.stderr.write(`graded ${g.id}: ${g.verdict}\n`) }),
    });
  let graded;
  if (schedule.mode === 'shard') {
    // A Slurm task: the local path on its shard, the grades kept for the submitter to merge.
    const mine = shardItems(candidates, schedule.k, schedule.n);
    const some = await gradeAll(mine.map((m) => m.item));
    await writeShardResult(
      schedule.dir,
      some.grades.map((g, i) => ({ index: mine[i]!.index, value: g })),
    );
    return 0;
  } else if (schedule.mode === 'slurm') {
    const values = await onSlurm(schedule, { argv: taskArgv(['rollouts', 'grade'], args), items: candidates.length, images: [o.image] }, ctx);
    graded = summarizeForcedGrades(values as ForcedGrade[]);
  } else graded = await gradeAll(candidates);
  ctx.stdout.write(o.json ? JSON.stringify(graded, null, 2) + '\n' : text.forcedGradingText(graded));
  return 0;
}

/** Every selected rollout replayed (here, or its shard in a Slurm task, or as a Slurm array), its divergence said. */
async function replayRun(dir: string, o: Options<'replay'>, schedule: Schedule, args: string[], ctx: CommandContext): Promise<number> {
  if (!(await stat(o.repo).catch(() => undefined))?.isDirectory()) throw new CliError(`--repo: no such directory '${o.repo}'`);
  const normalisers =
    o.forgive === undefined
      ? undefined
      : await asCliError(async () =>
          normalisersNamed(
            o
              .forgive!.split(',')
              .map((n) => n.trim())
              .filter(Boolean),
          ),
        );
  const { index, rollouts } = await select(dir, o, ctx);
  const byId = new Map(rollouts.map((r) => [r.id, r]));
  const ids = rollouts.map((r) => r.id);
  const replayAll = (some: string[]) =>
    replayRollouts(some, (id) => loadRolloutTrajectory(index.root, byId.get(id)!, ctx.signal), {
      image: o.image,
      repoDir: o.repo,
      parallel: o.parallel,
      signal: ctx.signal,
      ...defined({ workdir: o.workdir, normalisers }),
      ...(o.json ? {} : { onReplay: (r: RolloutReplay) => ctx.stderr.write(`replayed ${r.name}\n`) }),
    });
  let replays: RolloutReplay[];
  if (schedule.mode === 'shard') {
    const mine = shardItems(ids, schedule.k, schedule.n);
    const some = await replayAll(mine.map((m) => m.item));
    await writeShardResult(
      schedule.dir,
      some.map((value, i) => ({ index: mine[i]!.index, value })),
    );
    return 0;
  } else if (schedule.mode === 'slurm') {
    const merged = await onSlurm(schedule, { argv: taskArgv(['rollouts', 'replay'], args), items: ids.length, images: [o.image] }, ctx);
    replays = sameRollouts<RolloutReplay>(merged, ids, dir);
  } else replays = await replayAll(ids);
  const summary = replaySummary(replays);
  ctx.stdout.write(
    o.json ? JSON.stringify({ rollouts: replays.map((r) => ({ id: r.name, ...r.replay })), summary }, null, 2) + '\n' : text.replayText(replays, summary),
  );
  return summary.matched === summary.rollouts && summary.rollouts > 0 ? 0 : 1;
}
