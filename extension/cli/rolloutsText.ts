/** What `swe-workbench rollouts` prints for a person: the tables, summaries and verdicts. */
import type { IndexError, Rollout } from '../core/rollouts/record';
import { gradingConflictLines, type RolloutGroup } from '../core/rollouts/rolloutGroups';
import type { RunStatistics } from '../core/rollouts/rolloutQuery';
import type { ScoredRollout, ScoredRun } from '../core/rollouts/recipeRun';
import type { ExportSummary } from '../core/rollouts/curation';
import type { ForcedGrading, ForcedVerdict } from '../core/rollouts/forcedGrading';
import type { RolloutReplay, replaySummary } from '../core/session/replayRun';
import type { ForcedCandidate, ForcedMeasure } from '../core/rollouts/forcedSubmission';
import { criticalStepText } from '../views/branchView';
import { recipeSummary as recipeSummaryOver } from '../views/rolloutTable';

export function jsonRecord(r: Rollout, score?: ScoredRollout) {
  const { evaluation, prediction, critical, ...rest } = r;
  // The critical step as `branch --json` names it (`step` from 1, `from` the branched state before); null when V never fell or it was not branched (`branched` says which).
  const branch = {
    branched: critical !== undefined,
    critical: critical ? { step: critical.to, from: critical.from, before: critical.before, after: critical.after } : null,
  };
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
  return {
    ...rest,
    agent: evaluation?.agent ?? null,
    evaluationFile: evaluation?.file ?? null,
    predictionFile: prediction?.file ?? null,
    ...branch,
    ...recipe,
  };
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

/** The rollouts, a row each; a CRITICAL column (the branch run's critical step) when one of them was branched. */
export function rolloutTable(rollouts: Rollout[]): string {
  const branched = rollouts.some((r) => r.critical !== undefined);
  return table(
    ['ID', 'INSTANCE', 'ATTEMPT', 'FORMAT', 'STEPS', 'EXIT', 'RESOLVED', 'REWARD', 'FAILURE', 'TOKENS', 'COST', 'SECONDS', ...(branched ? ['CRITICAL'] : [])],
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
      ...(branched ? [criticalStepText(r.critical)] : []),
    ]),
  );
}

export function groupTable(groups: RolloutGroup[], ks: number[]): string {
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

/** The groups where one patch was graded both ways, a line per patch; nothing when there is none. */
export function gradingConflicts(groups: readonly RolloutGroup[]): string {
  const lines = groups.flatMap((g) => gradingConflictLines(g).map((line) => `  ${g.instance}: ${line}`));
  return lines.length ? `the tests, not the patch, decided these (check for flaky tests or a report joined to the wrong rollout):\n${lines.join('\n')}\n` : '';
}

export function summary(s: RunStatistics): string {
  return `${s.rollouts} rollouts, ${s.instances} instances, ${s.resolved}/${s.evaluated} evaluated resolved, ${s.mixed} mixed groups`;
}

export function recipeTable(rollouts: Rollout[], run: ScoredRun): string {
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

export function recipeGroupTable(run: ScoredRun, shown: ReadonlySet<string>, ks: number[]): string {
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

/**
 * The recipe's line over the rollouts shown (`shown`, by id), counted as the VS Code table's line
 * counts them (`views/rolloutTable.recipeSummary`): with a filter on, it says how many of the run's.
 */
export function recipeSummary(run: ScoredRun, shown: ReadonlySet<string>): string {
  const s = recipeSummaryOver(run, shown);
  const masks = Object.entries(s.maskReasons).map(([reason, n]) => `${reason} x${n}`);
  const of = s.rollouts < s.runRollouts ? `${s.rollouts} of ${s.runRollouts} rollouts: ` : '';
  return `recipe ${s.name} v${s.version}, ${s.formula}: ${of}${s.scored} scored, ${s.masked} masked${masks.length ? ` (${masks.join('; ')})` : ''}, ${s.unscored} not scored; ${s.withSignal} of ${s.groups} groups give a gradient`;
}

export function exportSummary(e: ExportSummary): string {
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

export function forcedGradingText(g: ForcedGrading): string {
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

/** The forced-submission candidates, the predictions written for the harness, and what its reports say. */
export function forcedText(measure: ForcedMeasure, candidates: readonly ForcedCandidate[], files: readonly string[], withReports: boolean): string {
  const lines = [`${measure.candidates} run(s) stopped at the step limit without submitting; ${measure.withPatch} keep the patch of their last state`];
  for (const c of candidates) lines.push(`  ${c.id}  ${c.steps} steps: ${c.patch === null ? 'no patch' : `${c.patch.length} characters`} (${c.source})`);
  for (const f of files) lines.push(`predictions for the harness: ${f}`);
  if (withReports) {
    lines.push(
      measure.passRate === null
        ? 'no report grades any of these patches'
        : `forced submission would have passed ${measure.passed} of ${measure.graded} graded (${(100 * measure.passRate).toFixed(1)}%; SWE-Master found 24.3%)`,
    );
    if (measure.ungraded.length) lines.push(`not graded by any report: ${measure.ungraded.join(', ')}`);
  }
  return lines.join('\n') + '\n';
}

/** A run's divergence report: per rollout how far its replay matched (steps from 1), then the counts. */
export function replayText(replays: readonly RolloutReplay[], s: ReturnType<typeof replaySummary>): string {
  const lines = replays.map(({ name, replay: r }) => {
    if (!('steps' in r)) return `${name}: not replayed: ${r.error}`;
    const divergence = r.firstDivergence === null ? '' : `; first divergence at step ${r.firstDivergence + 1}`;
    const stopped = r.stop === 'error' ? `; stopped by an error: ${r.error ?? 'unknown'}` : '';
    return `${name}: ${r.matched} of ${r.steps} replayed steps matched${divergence}${stopped}`;
  });
  return [...lines, '', `${s.rollouts} rollout(s): ${s.matched} matched all the way, ${s.diverged} diverged, ${s.notReplayed} not replayed`].join('\n') + '\n';
}
