import { actionKind, type ActionKind } from './actionKind';
import { repoRelative } from './stepChange';
import type { Action } from './model';

/**
 * Steps of several runs of one task, lined up by what they did. Each action is normalised
 * (its kind, the file it touched relative to the repository, its command with whitespace
 * collapsed), every run is aligned to the first with a global alignment (Needleman-Wunsch),
 * and the pairwise alignments are merged on the first run's steps. The first row where the
 * runs do not all do the same thing is where they part.
 */

export interface NormalisedAction {
  kind: ActionKind;
  /** The file the action names, relative to the repository; '' when none. */
  target: string;
  /** The whole action, normalised: equal keys mean the same action. */
  key: string;
}

const PATH_ARGS = ['path', 'filename', 'file_name', 'file', 'dir'];

function oneLine(value: unknown): string {
  return (typeof value === 'string' ? value : JSON.stringify(value ?? null)).replace(/\s+/g, ' ').trim();
}

export function normaliseAction(action: Pick<Action, 'tool' | 'args' | 'raw'>, repoPath?: string): NormalisedAction {
  const kind = actionKind(action);
  const pathArg = PATH_ARGS.map((k) => action.args[k]).find((v): v is string => typeof v === 'string');
  const target = pathArg === undefined ? '' : repoRelative(pathArg, repoPath);
  let body: string;
  if (kind === 'run') body = oneLine(action.args.command ?? action.args.code ?? action.raw).replace(/^cd \S+ && /, '');
  else if (kind === 'view' || kind === 'create' || kind === 'submit' || kind === 'search')
    body = oneLine(
      Object.entries(action.args)
        .filter(([k]) => !PATH_ARGS.includes(k) && k !== 'command')
        .map(([, v]) => v),
    );
  else if (kind === 'edit') body = oneLine(action.args.new_str ?? action.args.replace ?? action.args.replacement_text ?? action.args.text ?? action.raw);
  else body = oneLine(action.raw);
  if (kind === 'create' || kind === 'submit') body = '';
  return { kind, target, key: `${kind}|${target}|${kind === 'view' ? '' : body}` };
}

/** How alike two actions are: the same action, the same kind on the same file, or different. */
function score(a: NormalisedAction, b: NormalisedAction): number {
  if (a.key === b.key) return 3;
  if (a.kind === b.kind && a.target === b.target) return 1;
  if (a.kind === b.kind) return 0;
  return -2;
}
const GAP = -1;

/** Global alignment of two sequences: pairs of indices, -1 where one side has no step. @internal */
export function alignPair(a: readonly NormalisedAction[], b: readonly NormalisedAction[]): Array<[number, number]> {
  const n = a.length;
  const m = b.length;
  const best: Int32Array[] = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
  for (let i = 1; i <= n; i++) best[i]![0] = i * GAP;
  for (let j = 1; j <= m; j++) best[0]![j] = j * GAP;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      best[i]![j] = Math.max(best[i - 1]![j - 1]! + score(a[i - 1]!, b[j - 1]!), best[i - 1]![j]! + GAP, best[i]![j - 1]! + GAP);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0 && best[i]![j] === best[i - 1]![j - 1]! + score(a[i - 1]!, b[j - 1]!)) {
      pairs.push([--i, --j]);
    } else if (i > 0 && best[i]![j] === best[i - 1]![j]! + GAP) {
      pairs.push([--i, -1]);
    } else {
      pairs.push([-1, --j]);
    }
  }
  return pairs.reverse();
}

interface AlignedRow {
  /** Per run, the step index in this row, or null where that run has no step here. */
  steps: Array<number | null>;
  /** Every run has a step here and all do the same action. */
  same: boolean;
}

export interface Alignment {
  rows: AlignedRow[];
  /** The first row where the runs part, or null when they do the same thing throughout. */
  firstDivergence: number | null;
}

/** Aligns the runs' actions (each already normalised) on the first run's steps. */
export function alignRuns(runs: ReadonlyArray<readonly NormalisedAction[]>): Alignment {
  const reference = runs[0] ?? [];
  // For each run: the step matched to each reference step, and the steps inserted before each reference step (index n: at the end).
  const matched = runs.map(() => new Array<number | null>(reference.length).fill(null));
  const inserted = runs.map(() => Array.from({ length: reference.length + 1 }, () => [] as number[]));
  reference.forEach((_, i) => (matched[0]![i] = i));
  for (let r = 1; r < runs.length; r++) {
    let nextRef = 0;
    for (const [i, j] of alignPair(reference, runs[r]!)) {
      if (i >= 0) {
        matched[r]![i] = j >= 0 ? j : null;
        nextRef = i + 1;
      } else inserted[r]![nextRef]!.push(j);
    }
  }
  const rows: AlignedRow[] = [];
  const keyOf = (r: number, s: number | null) => (s === null ? null : runs[r]![s]!.key);
  for (let i = 0; i <= reference.length; i++) {
    const extra = Math.max(0, ...inserted.map((list) => list[i]!.length));
    for (let k = 0; k < extra; k++) rows.push({ steps: runs.map((_, r) => inserted[r]![i]![k] ?? null), same: false });
    if (i < reference.length) {
      const steps = runs.map((_, r) => matched[r]![i]!);
      const keys = steps.map((s, r) => keyOf(r, s));
      rows.push({ steps, same: keys.every((key) => key !== null && key === keys[0]) });
    }
  }
  const first = rows.findIndex((row) => !row.same);
  return { rows, firstDivergence: runs.length < 2 || first < 0 ? null : first };
}
