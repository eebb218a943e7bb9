/**
 * `swe-workbench tokens FILE|DIR --policy URL`: re-scores the sampled tokens of a recording (or
 * of every rollout in a folder) against a vLLM or SGLang server and checks retokenization drift.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PolicyClient, PolicyError } from '../core/policy/policyClient';
import type { Rollout } from '../core/rollouts/record';
import { indexRollouts } from '../core/rollouts/rolloutIndex';
import { loadRolloutTrajectory } from '../core/rollouts/rolloutLoad';
import { TOKEN_REPORT_FILE, writeTokenReport, type TokenMismatch } from '../core/rollouts/tokenMismatch';
import { DEFAULT_BOUNDS, summarize, type Bounds, type TokenSummary } from '../core/tokens/compare';
import { shardItems, writeShardResult } from '../core/runtime/slurmArray';
import {
  rescoreRollouts,
  runReport,
  type RolloutOutcome,
  type RunOptions,
  type RolloutReport,
  type RunReport,
  type StepReport,
  type WorstToken,
} from '../core/tokens/rescore';
import { SCORING_APIS, TokenServer, type ScoringApi } from '../core/tokens/tokenServer';
import { isRecordingFolder, loadTrajectory } from '../core/trajectory/load';
import type { Trajectory } from '../core/trajectory/model';
import { oneLine } from '../core/trajectory/stepLabels';
import { CliError, parseCommandArgs, type Command, type CommandContext } from './command';
import { onSlurm, sameRollouts, scheduleOf, SLURM_HELP, SLURM_OPTIONS, taskArgv, type Schedule } from './slurmOption';
import { TRAJECTORY_INPUT_OPTIONS, trajectoryInputUsage, trajectoryInput } from './trajectoryInput';

const usage = () => `usage: swe-workbench tokens FILE|DIR --policy URL [--model NAME] [--bounds LOW,HIGH] [--json]
                            [--api vllm|sglang] [--in-flight N] [--no-drift] [--api-key KEY] [--save]
                            [--scheduler slurm --out OUT [--shards N] ...]

Re-scores each agent step's sampled tokens (the recording's token ids and logprobs) against the
server at URL, as a trainer would score them: per token the difference of logprobs (server minus
recording), the ratio exp(difference) against the bounds and the k3 KL estimate; and re-tokenizes
the conversation before each step with the server's chat template (vLLM's /tokenize) to find where
it differs from the prompt ids the engine saw. DIR: every rollout in the folder, N requests in flight.
${trajectoryInputUsage()}
  --policy URL    the server's OpenAI base URL, e.g. http://127.0.0.1:8000/v1
  --model NAME    the model to score with (default: the server's only model)
  --bounds L,H    the ratio bounds (default ${DEFAULT_BOUNDS.low},${DEFAULT_BOUNDS.high})
  --api NAME      vllm: /v1/completions with prompt_logprobs (default); sglang: /generate
  --in-flight N   requests at once (default 4)
  --no-drift      re-score only; do not re-tokenize
  --json          one line per agent step, then {"summary": ...}; a folder's lines name their rollout
  --save          (DIR) keep each rollout's re-score in DIR/${TOKEN_REPORT_FILE}, which the rollouts
                  table and \`rollouts DIR --filter\` read (maxdiff, outside, kl, drift)
(DIR) with --scheduler slurm, each array task re-scores a shard of the folder's rollouts (the
server must answer at URL on every node too); this command merges them and prints, saves and exits
exactly as the local run does. OUT holds the Slurm run (OUT/slurm), nothing else.
${SLURM_HELP}
Exit code: 0 when every step was re-scored, agrees within the bounds and shows no drift; 1 otherwise.`;

function parseBounds(text: string | undefined): Bounds {
  if (text === undefined) return DEFAULT_BOUNDS;
  const parts = text.split(',').map((p) => Number(p.trim()));
  const [low, high] = parts;
  if (parts.length !== 2 || !Number.isFinite(low) || !Number.isFinite(high) || low! <= 0 || low! >= high!)
    throw new CliError(`--bounds: expected LOW,HIGH with 0 < LOW < HIGH (e.g. 0.8,1.25), got '${text}'`);
  return { low: low!, high: high! };
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name}: expected a whole number of at least 1, got '${text}'`);
  return n;
}

/** One JSON line per agent step: `index` counts agent steps from 0. */
function stepJson(step: StepReport, rollout: string | undefined): Record<string, unknown> {
  const s = step.totals ? summarize(step.totals) : undefined;
  return {
    ...(rollout !== undefined ? { rollout } : {}),
    index: step.index,
    tokens: s ? s.tokens : null,
    maxAbsDiff: s ? s.maxAbsDiff : null,
    meanAbsDiff: s ? s.meanAbsDiff : null,
    outside: s ? s.outside : null,
    kl: s ? s.kl : null,
    firstDrift: step.drift.status === 'differs' ? step.drift.position : null,
    ...(step.error !== undefined ? { error: step.error } : {}),
    ...(step.drift.status === 'unknown' ? { driftUnknown: step.drift.reason } : {}),
    ...(step.drift.status === 'differs'
      ? {
          drift: {
            recordedText: step.drift.recordedText,
            retokenizedText: step.drift.retokenizedText,
            ...(step.drift.textUnknown !== undefined ? { textUnknown: step.drift.textUnknown } : {}),
          },
        }
      : {}),
  };
}

function worstJson(w: WorstToken & { rollout?: string }) {
  return {
    ...(w.rollout !== undefined ? { rollout: w.rollout } : {}),
    index: w.step,
    position: w.position,
    id: w.id,
    ...(w.text !== undefined ? { text: w.text } : {}),
    recorded: w.recorded,
    rescored: w.rescored,
    diff: w.diff,
    ratio: w.ratio,
    outside: w.outside,
  };
}

/** A single file's worst tokens need not name it. */
function withoutRollout(w: WorstToken & { rollout: string }): WorstToken {
  const { rollout: _, ...rest } = w;
  return rest;
}

const num = (n: number | null, digits = 4) => (n === null ? 'unknown' : n.toFixed(digits));

function summaryLine(s: TokenSummary, bounds: Bounds): string {
  if (s.tokens === 0) return 'no token re-scored';
  const pct = ((100 * s.outside) / s.tokens).toFixed(1);
  return `${s.tokens} token(s) · max |Δ| ${num(s.maxAbsDiff)} · mean |Δ| ${num(s.meanAbsDiff)} · ${s.outside} (${pct}%) outside [${bounds.low}, ${bounds.high}] · KL ${num(s.kl, 6)}`;
}

function stepText(step: StepReport, bounds: Bounds): string[] {
  const head = `step ${step.index + 1}: ${step.error !== undefined ? `not re-scored: ${step.error}` : summaryLine(summarize(step.totals!), bounds)}`;
  const d = step.drift;
  const drift =
    d.status === 'same'
      ? '  prompt ids: re-tokenizing gives the same'
      : d.status === 'unknown'
        ? `  ${d.reason}`
        : `  drift at prompt token ${d.position + 1} of ${d.recordedLength} (re-tokenized: ${d.retokenizedLength}): ${
            d.textUnknown !== undefined ? d.textUnknown : `recorded ${JSON.stringify(d.recordedText)}, re-tokenized ${JSON.stringify(d.retokenizedText)}`
          }`;
  return [head, drift];
}

function worstText(w: WorstToken & { rollout?: string }): string {
  const where = `${w.rollout !== undefined ? `${w.rollout} ` : ''}step ${w.step + 1} token ${w.position + 1}`;
  const token = `id ${w.id}${w.text !== undefined ? ` ${JSON.stringify(oneLine(w.text, 20))}` : ''}`;
  return `  ${where} (${token}): recorded ${w.recorded.toFixed(4)}, re-scored ${w.rescored.toFixed(4)}, Δ ${w.diff.toFixed(4)}, ratio ${w.ratio.toFixed(3)}${w.outside ? ' (outside)' : ''}`;
}

function runSummaryJson(run: RunReport, bounds: Bounds, folder: boolean) {
  return {
    summary: {
      ...(folder ? { rollouts: run.rollouts, unreadable: run.unreadable } : {}),
      steps: run.steps,
      ...run.summary,
      errors: run.errors,
      drifted: run.drifted,
      driftUnknown: run.driftUnknown,
      bounds: [bounds.low, bounds.high],
      worst: run.worst.map((w) => worstJson(folder ? w : withoutRollout(w))),
    },
  };
}

/**
 * A folder's rollouts as the rollout index finds them (so a run report, `preds.json` or an
 * instance's report.json is no rollout), each named by its id as the table and `rollouts list`
 * name it: the file, and the 1-based line of a JSONL file's record (`deepswe.jsonl:3`).
 * What the index could not read is said with its file and line.
 */
async function folderRollouts(dir: string, signal: AbortSignal): Promise<{ rollouts: Map<string, Rollout>; notRead: { name: string; error: string }[] }> {
  const index = await indexRollouts(dir, { signal });
  return {
    rollouts: new Map(index.rollouts.map((r) => [r.id, r])),
    notRead: index.errors.map((e) => ({ name: e.file + (e.line !== undefined ? `:${e.line}` : ''), error: [e.where, e.message].filter(Boolean).join(': ') })),
  };
}

export const command: Command = {
  async run(argv, ctx) {
    const { values, positionals } = parseCommandArgs(argv, OPTIONS);
    if (values.help) {
      ctx.stdout.write(usage() + '\n');
      return 0;
    }
    const [target, extra] = positionals;
    if (!target) throw new CliError(`a FILE or DIR is required\n\n${usage()}`);
    if (extra !== undefined) throw new CliError(`unexpected argument '${extra}'\n\n${usage()}`);
    if (!values.policy) throw new CliError(`--policy URL is required\n\n${usage()}`);
    const bounds = parseBounds(values.bounds);
    const inFlight = positiveInteger('--in-flight', values['in-flight'], 4);
    const api = (values.api ?? 'vllm') as ScoringApi;
    if (!SCORING_APIS.includes(api)) throw new CliError(`--api: expected one of ${SCORING_APIS.join(', ')}, got '${values.api}'`);
    const input = trajectoryInput(values);
    // A folder that is one recording (an OpenHands V1 conversation) is re-scored as a file is.
    const folder = ((await stat(target).catch(() => undefined))?.isDirectory() ?? false) && !(await isRecordingFolder(target));
    if (folder && Object.keys(input).length > 0) throw new CliError('--format, --line, --record, --subagent and --alone read one file, not a folder');
    if (values.save && !folder) throw new CliError("--save keeps a folder's re-score beside its rollouts: give a DIR");

    const schedule = scheduleOf(values, values.out);
    if (schedule.mode === 'local' && values.out !== undefined)
      throw new CliError('--out goes with --scheduler slurm (where its job script, shards and logs go)');
    if (schedule.mode !== 'local' && !folder) throw new CliError('--scheduler slurm re-scores a folder of rollouts: give a DIR');

    const client = await connect(values.policy, values, ctx);
    if (!client) return 1;
    const server = new TokenServer(client, api);
    const { names, unlisted, load } = await rolloutSources(target, folder, input, ctx);
    const options = { bounds, inFlight, drift: !values['no-drift'], signal: ctx.signal };
    const outcomes = await scheduledOutcomes(schedule, { target, names, load, server, options, argv }, ctx);
    // A Slurm task's re-score is kept for the submitter, which prints and saves the run.
    if (outcomes === undefined) return 0;
    const rescored = await runReport(outcomes, server, options);
    const reports = new Map<string, RolloutReport | { error: string }>(outcomes.map((o) => [o.name, o.report]));
    // What the index could not read is said in the folder's order, and counted as not read.
    for (const { name, error } of unlisted) reports.set(name, { error });
    const run = { ...rescored, unreadable: rescored.unreadable + unlisted.length };
    printReports(
      [...names, ...unlisted.map((u) => u.name)].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })),
      reports,
      { folder, json: values.json, bounds },
      ctx,
    );
    if (values.save) await saveReports(target, names, reports, bounds, ctx);
    ctx.stdout.write(values.json ? JSON.stringify(runSummaryJson(run, bounds, folder)) + '\n' : runText(run, bounds, folder));
    const clean = run.errors === 0 && run.unreadable === 0 && run.summary.outside === 0 && run.drifted === 0 && run.driftUnknown === 0 && run.steps > 0;
    return clean ? 0 : 1;
  },
};

/**
 * Each rollout's re-score, in the folder's order: here, or through a Slurm job array (merged from
 * its shards); undefined in a Slurm task, which re-scores its shard and keeps it for the submitter.
 */
async function scheduledOutcomes(
  schedule: Schedule,
  work: { target: string; names: string[]; load: (name: string) => Promise<Trajectory>; server: TokenServer; options: RunOptions; argv: string[] },
  ctx: CommandContext,
): Promise<RolloutOutcome[] | undefined> {
  const { target, names, load, server, options } = work;
  if (schedule.mode === 'local') return rescoreRollouts(names, load, server, options);
  if (schedule.mode === 'shard') {
    const mine = shardItems(names, schedule.k, schedule.n);
    const done = await rescoreRollouts(
      mine.map((m) => m.item),
      load,
      server,
      options,
    );
    await writeShardResult(
      schedule.dir,
      done.map((value, i) => ({ index: mine[i]!.index, value })),
    );
    return undefined;
  }
  const merged = await onSlurm(schedule, { argv: taskArgv(['tokens'], work.argv), items: names.length, images: [] }, ctx);
  return sameRollouts<RolloutOutcome>(merged, names, target);
}

const OPTIONS = {
  ...TRAJECTORY_INPUT_OPTIONS,
  ...SLURM_OPTIONS,
  out: { type: 'string' },
  policy: { type: 'string' },
  model: { type: 'string' },
  bounds: { type: 'string' },
  api: { type: 'string' },
  'in-flight': { type: 'string' },
  'no-drift': { type: 'boolean', default: false },
  save: { type: 'boolean', default: false },
  'api-key': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A rollout's re-score as the rollouts table keeps it. */
function mismatchLine(name: string, report: RolloutReport, bounds: Bounds): TokenMismatch {
  const drifted = report.steps.find((s) => s.drift.status === 'differs');
  return {
    rollout: name,
    steps: report.steps.length,
    errors: report.errors,
    tokens: report.summary.tokens,
    maxAbsDiff: report.summary.maxAbsDiff,
    outside: report.summary.outside,
    kl: report.summary.kl,
    firstDrift: drifted?.drift.status === 'differs' ? { step: drifted.index, position: drifted.drift.position } : null,
    driftUnknown: report.driftUnknown,
    bounds: [bounds.low, bounds.high],
  };
}

/** Keeps each re-scored rollout's summary beside the run (`--save`), for the rollouts table. */
async function saveReports(
  dir: string,
  names: readonly string[],
  reports: ReadonlyMap<string, RolloutReport | { error: string }>,
  bounds: Bounds,
  ctx: CommandContext,
) {
  const kept = names.flatMap((name) => {
    const report = reports.get(name)!;
    return 'error' in report ? [] : [mismatchLine(name, report, bounds)];
  });
  const file = await writeTokenReport(dir, kept);
  ctx.stderr.write(`swe-workbench tokens: kept the re-score of ${kept.length} rollout(s) in ${file}\n`);
}

/** The policy server's client; undefined (the error printed) when it does not answer. */
async function connect(
  baseUrl: string,
  values: { model?: string | undefined; 'api-key'?: string | undefined },
  ctx: CommandContext,
): Promise<PolicyClient | undefined> {
  try {
    return await PolicyClient.connect(
      { baseUrl, ...(values.model ? { model: values.model } : {}), ...(values['api-key'] ? { apiKey: values['api-key'] } : {}) },
      ctx.signal,
    );
  } catch (err) {
    if (err instanceof PolicyError) {
      ctx.stderr.write(`swe-workbench tokens: ${err.message}\n`);
      return undefined;
    }
    throw err;
  }
}

/** The rollouts to re-score: a folder's (listed in its order), or the one file, read before any request. */
async function rolloutSources(target: string, folder: boolean, input: ReturnType<typeof trajectoryInput>, ctx: CommandContext) {
  let names: string[];
  let unlisted: { name: string; error: string }[] = [];
  let load: (name: string) => Promise<Trajectory>;
  if (folder) {
    const { rollouts, notRead } = await folderRollouts(target, ctx.signal);
    names = [...rollouts.keys()];
    unlisted = notRead;
    load = async (name) => loadRolloutTrajectory(target, rollouts.get(name)!, ctx.signal);
  } else {
    // A single file is read before any request, so bad input fails as input, not as a step.
    const { trajectory } = await loadTrajectory(target, { signal: ctx.signal, ...input });
    names = [target];
    load = async () => trajectory;
  }
  return { names, unlisted, load };
}

/** Printed in the folder's order once all are done, so the output does not depend on which finished first. */
function printReports(
  names: readonly string[],
  reports: ReadonlyMap<string, RolloutReport | { error: string }>,
  { folder, json, bounds }: { folder: boolean; json: boolean; bounds: Bounds },
  ctx: CommandContext,
): void {
  for (const name of names) {
    const report = reports.get(name)!;
    const label = folder ? name : undefined;
    if ('error' in report) {
      if (json) ctx.stdout.write(JSON.stringify({ rollout: name, error: report.error }) + '\n');
      else ctx.stdout.write(`${name}: not read: ${report.error}\n`);
      continue;
    }
    if (json) {
      for (const step of report.steps) ctx.stdout.write(JSON.stringify(stepJson(step, label)) + '\n');
      continue;
    }
    if (folder) ctx.stdout.write(`${name}: ${summaryLine(report.summary, bounds)}\n`);
    for (const step of report.steps) for (const line of stepText(step, bounds)) ctx.stdout.write(`${folder ? '  ' : ''}${line}\n`);
  }
}

/** The run's totals, its drift and its worst tokens, after the steps. */
function runText(run: RunReport, bounds: Bounds, folder: boolean): string {
  const rescored = run.steps - run.errors;
  return (
    [
      '',
      `${folder ? `${run.rollouts} rollout(s)${run.unreadable ? `, ${run.unreadable} not read` : ''}, ` : ''}${run.steps} agent step(s), ${rescored} re-scored${run.errors ? ` (${run.errors} not)` : ''}: ${summaryLine(run.summary, bounds)}`,
      `drift: ${run.drifted} step(s) differ, ${run.driftUnknown} cannot be checked, ${run.steps - run.drifted - run.driftUnknown} the same`,
      ...(run.worst.length > 0 ? ['worst tokens:', ...run.worst.map((w) => worstText(folder ? w : withoutRollout(w)))] : []),
    ].join('\n') + '\n'
  );
}
