import { UNKNOWN, formatCost, formatCount, formatSeconds } from '../format';
import type { ESTIMATOR_NAMES, MISMATCH_COLUMNS, RolloutColumn, RolloutQuery, RolloutRow } from '../../extension/protocol/rollouts';

export interface RowWindow {
  /** First row index rendered (inclusive) and the one past the last. */
  start: number;
  end: number;
}

/** The rows a viewport shows, plus `overscan` rows on each side so a fast scroll never shows a gap first. */
export function visibleWindow(scrollTop: number, viewportHeight: number, rowHeight: number, total: number, overscan: number): RowWindow {
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const shown = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  return { start: Math.max(0, first - overscan), end: Math.min(total, first + shown + overscan) };
}

/** The page-aligned ranges that cover a window, so neighbouring scroll positions share requests. */
export function pagesFor(window: RowWindow, pageSize: number): RowWindow[] {
  const pages: RowWindow[] = [];
  for (let start = Math.floor(window.start / pageSize) * pageSize; start < window.end; start += pageSize) pages.push({ start, end: start + pageSize });
  return pages;
}

/** A header click sorts ascending, then descending, then not at all. */
export function nextSort(current: RolloutQuery['sort'], column: RolloutColumn): RolloutQuery['sort'] {
  if (current?.column !== column) return { column, descending: false };
  return current.descending ? null : { column, descending: true };
}

export const COLUMN_TITLES: Record<RolloutColumn, string> = {
  instance: 'Instance',
  attempt: 'Attempt',
  format: 'Format',
  steps: 'Steps',
  exit: 'Exit status',
  resolved: 'Resolved',
  reward: 'Reward',
  failure: 'Failure class',
  tokens: 'Tokens',
  cost: 'Cost',
  duration: 'Duration',
  maxdiff: 'Max |Δ|',
  outside: 'Outside',
  kl: 'KL',
  drift: 'First drift',
  critical: 'Critical step',
};

/** What a re-score column holds, for its header's hover. */
export const MISMATCH_HELP: Record<(typeof MISMATCH_COLUMNS)[number], string> = {
  maxdiff: 'Largest |re-scored − recorded| logprob of a sampled token (filter: maxdiff)',
  outside: 'Re-scored tokens whose ratio exp(Δ) is outside the bounds (filter: outside)',
  kl: 'Mean k3 estimate of KL(rollout ‖ trainer) per re-scored token (filter: kl)',
  drift: 'The first agent step whose re-tokenized prompt differs from the recorded ids, and the position (filter: drift, the step)',
};

export const NUMERIC_COLUMNS: ReadonlySet<RolloutColumn> = new Set(['attempt', 'steps', 'reward', 'tokens', 'cost', 'duration', 'maxdiff', 'outside', 'kl']);

/** A small measure to three significant digits. */
const measure = (x: number | null) => (x === null ? UNKNOWN : String(Number(x.toPrecision(3))));

/** A re-score cell: `unknown` for a rollout not re-scored, or a measure no token gave. */
function mismatchText(m: RolloutRow['mismatch'], column: (typeof MISMATCH_COLUMNS)[number]): string {
  if (!m) return UNKNOWN;
  switch (column) {
    case 'maxdiff':
      return measure(m.maxAbsDiff);
    case 'outside':
      return m.tokens === 0 ? UNKNOWN : String(m.outside);
    case 'kl':
      return measure(m.kl);
    case 'drift':
      if (m.firstDrift) return `step ${m.firstDrift.step + 1}, token ${m.firstDrift.position + 1}`;
      return m.driftUnknown === 0 ? 'none' : m.driftUnknown >= m.steps ? UNKNOWN : `none (${m.driftUnknown} unchecked)`;
  }
}

/** The text a cell shows; '—' for an empty field, `unknown` for a number the run did not record. */
export function cellText(row: RolloutRow, column: RolloutColumn): string {
  switch (column) {
    case 'resolved':
      return row.resolved === null ? '—' : row.resolved ? 'yes' : 'no';
    case 'tokens':
      return formatCount(row.tokens);
    case 'cost':
      return formatCost(row.cost);
    case 'duration':
      return formatSeconds(row.duration);
    case 'reward':
      // Under a recipe that masks the rollout its recorded reward is no number either: the mask decides.
      if (row.score?.outcome === 'masked') return 'masked';
      return row.reward === null ? '—' : String(Math.round(row.reward * 1000) / 1000);
    case 'maxdiff':
    case 'outside':
    case 'kl':
    case 'drift':
      return mismatchText(row.mismatch, column);
    case 'critical':
      return row.critical ?? '—';
    default: {
      const value = row[column];
      return value === null ? '—' : String(value);
    }
  }
}

/** The longest end of an instance name kept in view when the column is too narrow for all of it. */
const MAX_TAIL = 24;

/**
 * An instance name cut where the names of one run differ: the end after its last `-`, `.` or `:`
 * (`acme__widgets` + `-101`, `pandas-dev__pandas.95280573` + `.pr_53856`). A narrow column
 * shortens the head and keeps the tail, so 101 and 202 never read alike.
 */
export function instanceParts(name: string): { head: string; tail: string } {
  const at = Math.max(name.lastIndexOf('-'), name.lastIndexOf('.'), name.lastIndexOf(':'));
  const cut = at <= 0 ? name.length : name.length - at > MAX_TAIL ? name.length - MAX_TAIL : at;
  return { head: name.slice(0, cut), tail: name.slice(cut) };
}

/** The columns a recipe's columns take the place of (the details pane keeps their figures); the styles hide them, the toolbar says so. */
export const HIDDEN_WITH_RECIPE = ['tokens', 'cost', 'duration'] as const satisfies readonly RolloutColumn[];

/** What the table says of the columns a recipe hides, so none goes missing without a word. */
export function hiddenColumnsText(): string {
  return `${HIDDEN_WITH_RECIPE.length} columns hidden by the recipe: ${HIDDEN_WITH_RECIPE.map((c) => COLUMN_TITLES[c]).join(', ')} (a row's details keep them)`;
}

/** The columns a recipe adds: its reward, the group advantage, and the mask with its reason. */
export const RECIPE_COLUMNS = [
  {
    column: 'recipe-reward',
    title: 'Recipe reward',
    numeric: true,
    help: "The recipe's reward; 'masked' for a rollout that gives no gradient (the Mask column says why)",
  },
  { column: 'advantage', title: 'Advantage', numeric: true, help: "The rollout's advantage in its GRPO group (all rollouts of its instance)" },
  { column: 'mask', title: 'Mask', numeric: false, help: 'Why the rollout gives no gradient: masked, or not scored' },
] as const;
export type RecipeColumn = (typeof RECIPE_COLUMNS)[number]['column'];

export const ESTIMATOR_TITLES: Record<(typeof ESTIMATOR_NAMES)[number], string> = { grpo: 'GRPO', drgrpo: 'Dr. GRPO', rloo: 'RLOO' };

/** A number with its sign, to 3 places: advantages read as up or down. */
export function signed(x: number | null): string {
  if (x === null) return '—';
  const r = Math.round(x * 1000) / 1000;
  return r > 0 ? `+${r}` : String(r === 0 ? 0 : r);
}

export function recipeCellText(row: RolloutRow, column: RecipeColumn): string {
  const s = row.score;
  if (!s) return '…';
  switch (column) {
    case 'recipe-reward':
      return s.outcome === 'masked' ? 'masked' : s.value === null ? '—' : String(Math.round(s.value * 1000) / 1000);
    case 'advantage':
      return signed(s.advantage);
    case 'mask':
      return s.outcome === 'masked' ? `masked: ${s.mask}` : s.outcome === 'unscored' ? `not scored: ${s.mask}` : '';
  }
}
