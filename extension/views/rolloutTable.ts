import type { Rollout } from '../core/rollouts/record';
import { criticalStepText } from './branchView';
import { failureLabel } from '../core/rollouts/failureTaxonomy';
import type { RolloutSearchQuery } from '../core/rollouts/rolloutQuery';
import type { Recipe } from '../core/reward/recipes';
import { statisticsOver, type ScoredRollout, type ScoredRun } from '../core/rollouts/recipeRun';
import { gradingConflictLines, type RolloutGroup } from '../core/rollouts/rolloutGroups';
import type { GroupDetails, RecipeInfo, RecipeSummary, RolloutQuery, RolloutRow, RolloutStatus } from '../protocol/rollouts';

/** The table's query in the core's terms: its sort column and direction as a sort spec. */
export function querySpec(query: RolloutQuery): RolloutSearchQuery {
  return { filter: query.filter, search: query.search, ...(query.sort ? { sort: `${query.sort.descending ? '-' : ''}${query.sort.column}` } : {}) };
}

/** What a rollout's icon says: passed, failed by the policy, failed by the harness, or not known. */
export function rolloutStatus(r: Rollout): RolloutStatus {
  if (r.resolved === true) return 'resolved';
  if (r.failure === 'infra-error' || r.failure === 'eval-error') return 'infra';
  if (r.resolved === false || r.failure !== 'unknown') return 'failed';
  return 'unknown';
}

export function toRolloutRow(r: Rollout, score?: ScoredRollout, gradingConflict?: string): RolloutRow {
  return {
    ...(score ? { score: scoreCells(score) } : {}),
    ...(gradingConflict !== undefined ? { gradingConflict } : {}),
    id: r.id,
    instance: r.instance,
    attempt: r.attempt,
    format: r.format,
    steps: r.steps,
    exit: r.exitStatus ?? null,
    resolved: r.resolved,
    // A rollout the recipe masks shows no number as its reward in any column (the Mask column says why).
    reward: score?.score.outcome === 'masked' ? null : (r.reward ?? null),
    failure: failureLabel(r),
    status: rolloutStatus(r),
    evidence: r.evidence.detail,
    tests: r.evidence.tests ?? [],
    ...(r.evaluation ? { evaluation: r.evaluation.file } : {}),
    tokens: r.tokens ?? null,
    cost: r.cost ?? null,
    duration: r.duration ?? null,
    critical: criticalStepText(r.critical),
    ...(r.mismatch
      ? {
          mismatch: {
            steps: r.mismatch.steps,
            errors: r.mismatch.errors,
            tokens: r.mismatch.tokens,
            maxAbsDiff: r.mismatch.maxAbsDiff,
            outside: r.mismatch.outside,
            kl: r.mismatch.kl,
            firstDrift: r.mismatch.firstDrift,
            driftUnknown: r.mismatch.driftUnknown,
          },
        }
      : {}),
  };
}

/** A recipe as the pickers list it. */
export function recipeInfo(r: Recipe): RecipeInfo {
  return { name: r.name, version: r.version, shape: r.shape, source: r.source, description: r.description, estimator: r.advantage, masked: [...r.masked] };
}

/** A row's recipe cells: reward, mask (or what is missing) and advantage. A masked reward is no number: its value is null. */
function scoreCells(s: ScoredRollout): NonNullable<RolloutRow['score']> {
  const value = s.score.outcome === 'masked' ? null : s.score.value;
  return { outcome: s.score.outcome, value, mask: s.score.mask?.reason ?? s.score.unscored, advantage: s.advantage, why: s.why };
}

/** The recipe's totals over the query's rows (`shown`, by id) and their groups. */
export function recipeSummary(run: ScoredRun, shown: ReadonlySet<string>): RecipeSummary {
  const s = statisticsOver(run, shown);
  return {
    name: run.recipe.name,
    version: run.recipe.version,
    source: run.recipe.source,
    formula: run.formula,
    rollouts: s.rollouts,
    runRollouts: run.statistics.rollouts,
    scored: s.scored,
    masked: s.masked,
    unscored: s.unscored,
    groups: s.groups,
    withSignal: s.withSignal,
    maskReasons: s.maskReasons,
  };
}

/** One group's details under the recipe: each rollout's advantage and why. */
export function groupDetails(run: ScoredRun, instance: string): GroupDetails | undefined {
  const g = run.groups.find((x) => x.instance === instance);
  if (!g) return undefined;
  const bug = g.bugReward && 'value' in g.bugReward ? g.bugReward.value : null;
  return {
    instance,
    formula: run.formula,
    included: g.included,
    masked: g.masked,
    unscored: g.unscored,
    mean: g.mean,
    std: g.std,
    passAtK: g.passAtK,
    mixed: g.mixed,
    signal: g.signal,
    bugReward: bug,
    rollouts: run.rollouts
      .filter((s) => s.instance === instance)
      .sort((a, b) => a.attempt - b.attempt)
      .map((s) => ({ id: s.id, attempt: s.attempt, ...scoreCells(s), terms: s.score.terms })),
  };
}

/**
 * The run's grading conflicts in the core's words (`gradingConflictLines`): per group, its lines,
 * and per rollout named in one, the line that names it. Taken over the whole run's groups, so a
 * filter that shows one side of a conflict still flags it.
 */
export function gradingConflictIndex(groups: readonly RolloutGroup[]): { byInstance: Map<string, string[]>; byRollout: Map<string, string> } {
  const byInstance = new Map<string, string[]>();
  const byRollout = new Map<string, string>();
  for (const g of groups) {
    const lines = gradingConflictLines(g);
    if (lines.length === 0) continue;
    byInstance.set(g.instance, lines);
    g.gradingConflicts.forEach((c, i) => {
      for (const id of [...c.resolved, ...c.unresolved]) byRollout.set(id, lines[i]!);
    });
  }
  return { byInstance, byRollout };
}

/** The conflicts of the groups the rows belong to, a line per patch, in the groups' order. */
export function gradingConflictsShown(index: ReturnType<typeof gradingConflictIndex>, rows: readonly Rollout[]): { instance: string; line: string }[] {
  const instances = new Set(rows.map((r) => r.instance));
  return [...index.byInstance].filter(([instance]) => instances.has(instance)).flatMap(([instance, lines]) => lines.map((line) => ({ instance, line })));
}
