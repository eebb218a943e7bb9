/**
 * `swe-workbench branch`: how good each state of a recording was, measured by running it again
 * from there (core/branch). Parses the options, reads the recording, task and grading inputs,
 * calls `runBranches` and prints V(t) per step.
 */
import { defined } from '../core/defined';
import { CancelledError, errorText, InputError } from '../core/errors';
import { readTaskInstance } from '../core/reward/rewardFiles';
import { resolveRecipe } from '../core/reward/recipeFiles';
import { RECIPE_NAMES } from '../core/reward/recipes';
import { BranchStepsError, branchFolderOf, branchSteps, runBranches, type BranchProgress, type BranchRunResult } from '../core/branch/branchRun';
import { advantageLines, type BranchSummary, type BranchValue, type ValueChange } from '../core/reward/branchValues';
import { rename, writeFile } from 'node:fs/promises';
import { loadTrajectory } from '../core/trajectory/load';
import type { Trajectory } from '../core/trajectory/model';
import { changeSpan as across, valueText as fixed } from '../views/branchView';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';
import { readTaskFile, runRequest } from '../core/branch/taskFile';
import { POLICY_OPTIONS, numberOption, policyClientOptions } from './run';
import { replyFormatOption, scaffoldOption } from './scaffoldOption';

const usage = () => `usage: swe-workbench branch FILE --task TASK.json --policy URL --model NAME [--out DIR]
                            [--steps all|LIST|RANGE] [--samples K] [--concurrency C] [--max-steps N]
                            [--temperature T] [--seed N] [--recipe NAME|FILE[#NAME]] [--instance INSTANCE.json]
                            [--scaffold S] [--reply-format F] [--api-key KEY] [--top-p P] [--top-k K]
                            [--min-p P] [--max-tokens N] [--timeout-ms N] [--advantages FILE] [--json]

Measures how good each state of the recording FILE was: for each chosen step t it restores the
sandbox after step t (from the fork snapshots of one replay of the recording) and runs K
continuations from there against the policy at URL, in the recording's scaffold, grades each,
and prints V(t), the mean reward, with its 95% interval (Wilson's for 0/1 rewards, a seeded
bootstrap otherwise) and how many samples it rests on; the step where V falls most is the
critical step. A masked continuation (container error, context limit) is left out of V(t).
--out DIR: where the continuations and index.json go (default FILE.branches, beside the
recording, where VS Code's stepper and Branches view find them); a run there resumes.
--steps: the states to branch from, counted from 1 as steps are (after step t; 0 is the task's
start): all (default: the start and after every step, but the last when it submitted), a list
(1,3,5), a range (2-4), or both (0,2-4).
--samples K (default 8) continuations per state, --concurrency C (default 2) at once,
--max-steps N each continuation's step budget. --seed N makes the run reproducible: each
continuation's requests carry a seed made from N, its step and its sample.
--recipe: the reward (${RECIPE_NAMES.join(', ')}, or a recipe file); default the task's tests, graded
against --instance's FAIL_TO_PASS / PASS_TO_PASS as SWE-bench grades them when given, else by
the test command's exit status. TASK.json is \`swe-workbench run\`'s task file.
DIR keeps each continuation (its trajectory in the scaffold's own format and its patch) and
index.json, the branch tree; work already in DIR is not done again, so an interrupted run resumes.
--advantages FILE: also write the step advantages A(t) = V(t) - V(t-1) as JSON Lines, one line per
step of the recording (keyed by the recording and the step) with V, A, n and the rewards.
--json: one JSON line per step, then a summary line.
Exit code: 0 done, 1 bad input or a failure, 2 usage, 130 interrupted (nothing half-written, no container left).`;

const OPTIONS = {
  ...POLICY_OPTIONS,
  task: { type: 'string' },
  policy: { type: 'string' },
  out: { type: 'string' },
  steps: { type: 'string' },
  samples: { type: 'string' },
  concurrency: { type: 'string' },
  'max-steps': { type: 'string' },
  recipe: { type: 'string' },
  instance: { type: 'string' },
  'instance-id': { type: 'string' },
  scaffold: { type: 'string' },
  'reply-format': { type: 'string' },
  advantages: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    if (positionals.length !== 1) throw new CliError(`give one recording FILE${positionals.length > 1 ? `, not '${positionals[1]}' too` : ''}\n\n${usage()}`);
    if (!values.task || !values.policy) throw new CliError(`--task and --policy are required\n\n${usage()}`);
    const samples = positiveOption('--samples', values.samples) ?? 8;
    const concurrency = positiveOption('--concurrency', values.concurrency) ?? 2;
    const maxSteps = positiveOption('--max-steps', values['max-steps']);
    const policy = policyClientOptions({ ...values, stream: false, logprobs: undefined, 'token-ids': false }, values.policy);
    const file = positionals[0]!;
    // Where VS Code's stepper and Branches view look for the recording's run.
    const out = values.out ?? branchFolderOf(file);
    const recording = (await loadTrajectory(file, { signal: ctx.signal })).trajectory;
    const steps = stepsOption(values.steps ?? 'all', recording, file);
    const task = await readTaskFile(values.task);
    const recipe = values.recipe === undefined ? undefined : await resolveRecipe(values.recipe);
    const instance = values.instance === undefined ? undefined : await readTaskInstance(values.instance, values['instance-id']);
    const asked = scaffoldOption(values.scaffold, { replyFormats: true });
    const base = runRequest(task, values.task, {
      fork: { trajectory: recording, ref: file, at: 0 },
      ...defined({ scaffold: asked.scaffold, replyFormat: replyFormatOption(values['reply-format']) ?? asked.replyFormat }),
    });
    const progress = progressLine(ctx);
    const result = await runBranches({
      request: { ...base, recording: { trajectory: recording, ref: file } },
      steps,
      samples,
      concurrency,
      policy,
      out,
      onProgress: progress.show,
      ...defined({ maxSteps, recipe, instance, signal: ctx.signal }),
    }).catch((err: unknown) => {
      if (err instanceof CancelledError || ctx.signal.aborted) return undefined;
      throw err;
    });
    progress.clear();
    if (!result) {
      ctx.stderr.write(`swe-workbench branch: interrupted; the continuations finished are in ${out}, run again to resume\n`);
      return 130;
    }
    if (values.advantages !== undefined) await writeAdvantages(values.advantages, result, recording.meta.id ?? file);
    ctx.stdout.write(values.json ? jsonLines(result) : table(result, out));
    return 0;
  },
};

/** The advantages' JSON Lines, written whole through a temporary file beside `file`. */
async function writeAdvantages(file: string, result: BranchRunResult, trajectory: string): Promise<void> {
  const lines = advantageLines(result.summary, trajectory);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, lines.map((l) => l + '\n').join(''), 'utf8');
    await rename(temporary, file);
  } catch (err) {
    throw new InputError(file, undefined, `cannot write the advantages: ${errorText(err)}`);
  }
}

function stepsOption(spec: string, recording: Trajectory, file: string): number[] {
  try {
    return branchSteps(spec, recording, file);
  } catch (err) {
    if (err instanceof BranchStepsError) throw new CliError(`--steps: ${err.message}`);
    throw err;
  }
}

function positiveOption(name: string, value: string | undefined): number | undefined {
  const n = numberOption(name, value, true);
  if (n !== undefined && n < 1) throw new CliError(`${name} must be at least 1, got '${value}'`);
  return n;
}

/** Progress on a terminal only: each step's done / running / left, rewritten in place. */
function progressLine(ctx: CommandContext): { show(p: BranchProgress[]): void; clear(): void } {
  const tty = (ctx.stderr as NodeJS.WriteStream).isTTY === true;
  let shown = false;
  return {
    show(p) {
      if (!tty) return;
      const parts = p.map((s) => `${label(s.afterStep)} ${s.done} done ${s.running} running ${s.left} left`);
      ctx.stderr.write(`\r\x1b[2K${parts.join(' | ')}`);
      shown = true;
    },
    clear() {
      if (shown) ctx.stderr.write('\r\x1b[2K');
    },
  };
}

const label = (afterStep: number) => (afterStep === 0 ? 'start' : `step ${afterStep}`);

function bar(value: number | null, width = 20): string {
  if (value === null) return '?'.padEnd(width);
  const clamped = Math.max(0, Math.min(1, value));
  const full = Math.round(clamped * width);
  return '█'.repeat(full) + '·'.repeat(width - full);
}

function maskedText(v: BranchValue): string {
  return v.masked.map((m) => `${m.count} masked: ${m.reason}`).join('; ');
}

function table({ summary, index, ran }: BranchRunResult, out: string): string {
  const rows = summary.values.map((v) => {
    const interval = v.interval ? `[${fixed(v.interval.low)}, ${fixed(v.interval.high)}]` : 'unknown';
    const mark = summary.critical && v.at === summary.critical.to ? '  <- critical' : summary.rise && v.at === summary.rise.to ? '  <- largest rise' : '';
    const masked = maskedText(v);
    return `${label(v.at).padEnd(8)} ${bar(v.value)} ${fixed(v.value).padStart(7)}  ${interval.padEnd(13)} ${String(v.n).padStart(3)}${masked ? `  (${masked})` : ''}${mark}`;
  });
  return [
    `${'state'.padEnd(8)} ${'V(t)'.padEnd(20)} ${'V'.padStart(7)}  ${'95% interval'.padEnd(13)} ${'n'.padStart(3)}`,
    ...rows,
    '',
    criticalText(summary),
    `continuations: ${ran} run now, ${index.points.reduce((n, p) => n + p.continuations.length, 0) - ran} already in ${out}; recorded steps replayed: ${index.replayedSteps.recording} by replays of the recording (one per run), ${index.replayedSteps.forks} by continuations`,
    '',
  ].join('\n');
}

function criticalText(summary: BranchSummary): string {
  const { critical, rise } = summary;
  const fell = critical
    ? `critical step: ${across(critical)} (V falls ${fixed(-critical.change)}, from ${fixed(valueAt(summary, critical.from))} to ${fixed(valueAt(summary, critical.to))})`
    : 'critical step: none (V never falls between the states branched)';
  const rose = rise ? `largest rise: ${across(rise)} (V rises ${fixed(rise.change)})` : 'largest rise: none';
  return `${fell}\n${rose}`;
}

const valueAt = (summary: BranchSummary, at: number) => summary.values.find((v) => v.at === at)?.value ?? null;

function jsonLines({ summary, index, ran }: BranchRunResult): string {
  const step = (v: BranchValue) =>
    JSON.stringify({
      afterStep: v.at,
      value: v.value,
      interval: v.interval,
      n: v.n,
      masked: v.masked,
      rewards: v.rewards,
      advantage: v.advantage,
      from: v.from,
    });
  const change = (c: ValueChange | null) => c && { step: c.to, from: c.from, change: c.change };
  const total = index.points.reduce((n, p) => n + p.continuations.length, 0);
  return [
    ...summary.values.map(step),
    JSON.stringify({
      summary: true,
      critical: change(summary.critical),
      rise: change(summary.rise),
      continuations: total,
      ran,
      replayedSteps: index.replayedSteps,
    }),
    '',
  ].join('\n');
}
