import { splitShellWords, shellQuote } from '../parsing/shellWords';
import { actionKind, submits, type ActionKind } from './actionKind';
import { repoRelative } from './stepChange';
import type { Action } from './model';

/**
 * Steps of several runs of one task, lined up as a person would line them up. Each action is
 * normalised to what it did, whatever scaffold wrote it: a shell call is its command line
 * (SWE-agent's `open "x" 10`, mini-swe-agent's bash block and R2E-Gym's `execute_bash cmd=...`
 * are the same command), a function call is its tool and arguments (the editors of SWE-agent,
 * OpenHands and R2E-Gym are one tool), a submission is a submission. The runs' shared beginning
 * is lined up first; the rest is a global alignment (Needleman-Wunsch) of each run against the
 * rows so far, ties broken toward the earliest match, so a run that repeats its opening actions
 * later is matched on the first time it took them. The first row where the runs do not all do
 * the same thing is where they part.
 */

export interface NormalisedAction {
  kind: ActionKind;
  /** The file the action names, relative to the repository; '' when none. */
  target: string;
  /** The whole action, normalised: equal keys mean the same action. */
  key: string;
  /** An edit's file and the text it writes, however its tool takes them: two edits writing the same text are the same action. */
  written?: string;
}

/** Whether two normalised actions do the same thing. */
function sameAction(a: NormalisedAction, b: NormalisedAction): boolean {
  return a.key === b.key || (a.written !== undefined && a.written === b.written);
}

/** The text an edit writes (SWE-agent's windowed `edit`, its `insert`, the editors' `new_str`...), with its file. */
function writtenText(action: Pick<Action, 'tool' | 'args'>, target: string): string | undefined {
  if (actionKind(action) !== 'edit') return undefined;
  const text = ['new_str', 'replace', 'replacement_text', 'text'].map((k) => action.args[k]).find((v): v is string => typeof v === 'string');
  return text === undefined ? undefined : `${target}\n${oneLine(text)}`;
}

const PATH_ARGS = ['path', 'filename', 'file_name', 'file', 'dir'];
/** Tools that run a command line in a shell, whatever the scaffold named them. */
const SHELL_TOOLS = /^(bash|execute_bash|cmd_run|run|shell|terminal)$/;
/** The editors that take a `command` argument: one tool across SWE-agent, OpenHands and R2E-Gym. */
const EDITOR_TOOLS = /^(str_replace_editor|file_editor|edit_file_tool|str_replace_based_edit_tool)$/;
/** Arguments a scaffold records about the call rather than what it does (OpenHands' flags, a call's thought). */
const BOOKKEEPING_ARGS = new Set(['is_input', 'blocking', 'hidden', 'confirmation_state', 'security_risk', 'impl_source', 'thought', 'timeout']);

function oneLine(value: unknown): string {
  return (typeof value === 'string' ? value : JSON.stringify(value ?? null)).replace(/\s+/g, ' ').trim();
}

/** The command line a shell ran for this action, or undefined when it is a function call. */
function commandLine(action: Pick<Action, 'tool' | 'args' | 'raw'>): string | undefined {
  const tool = action.tool;
  if (tool === null) return action.raw;
  if (SHELL_TOOLS.test(tool)) {
    const command = action.args.command ?? action.args.cmd;
    return typeof command === 'string' ? command : action.raw;
  }
  // SWE-agent's tools (open, edit, search_dir...) are programs its shell runs: the line as written is the command.
  if (!EDITOR_TOOLS.test(tool) && action.raw.trimStart().split(/\s/, 1)[0] === tool) return action.raw;
  return undefined;
}

/** A command line with the repository's own path, quoting and spacing taken out. */
function normaliseCommand(text: string, repoPath: string | undefined): { words: string[]; line: string } {
  const root = repoPath?.replace(/\/+$/, '');
  let line = text.trim().replace(/^cd \S+ && /, '');
  if (root) line = line.split(`${root}/`).join('');
  const split = splitShellWords(line);
  if ('error' in split || split.compound) return { words: line.split(/\s+/), line: oneLine(line) };
  const words = split.words.map((w) => (root && w === root ? '.' : w));
  return { words, line: words.map(shellQuote).join(' ') };
}

/** What a command line does, read from its program: `cat x` views x, `grep` searches. */
function commandKind(words: readonly string[], repoPath: string | undefined): { kind: ActionKind; target: string } {
  const kind = actionKind({ tool: words[0] ?? '', args: {} });
  const meaningful = kind === 'view' || kind === 'edit' || kind === 'create' || kind === 'search';
  const file = meaningful ? words.slice(1).find((w) => !w.startsWith('-') && /[/.]/.test(w)) : undefined;
  return { kind: kind === 'other' ? 'run' : kind, target: file === undefined ? '' : repoRelative(file, repoPath) };
}

export function normaliseAction(action: Pick<Action, 'tool' | 'args' | 'raw'>, repoPath?: string): NormalisedAction {
  const pathArg = PATH_ARGS.map((k) => action.args[k]).find((v): v is string => typeof v === 'string');
  const argTarget = pathArg === undefined ? '' : repoRelative(pathArg, repoPath);
  const written = writtenText(action, argTarget);
  const command = commandLine(action);
  if (command !== undefined) {
    if (submits(action)) return { kind: 'submit', target: '', key: 'submit' };
    const { words, line } = normaliseCommand(command, repoPath);
    const { kind, target } = commandKind(words, repoPath);
    return {
      kind: kind === 'unparsed' ? 'run' : kind,
      target: argTarget || target,
      key: kind === 'submit' ? 'submit' : `$ ${line}`,
      ...(written === undefined ? {} : { written }),
    };
  }
  const kind = actionKind(action);
  // A submission's patch is the run's outcome, compared below the steps: submitting is the action.
  if (kind === 'submit') return { kind, target: '', key: 'submit' };
  const target = argTarget;
  const tool = EDITOR_TOOLS.test(action.tool ?? '') ? 'editor' : (action.tool ?? '');
  const args = Object.entries(action.args)
    .filter(([k]) => !PATH_ARGS.includes(k) && !BOOKKEEPING_ARGS.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${oneLine(v)}`);
  return { kind, target, key: [tool, target, ...args].join(' '), ...(written === undefined ? {} : { written }) };
}

/**
 * How alike two actions are: the same action, or the same kind on the same file (`open x 10`
 * and `open x 15`), both worth a row together; anything else costs as much as two rows apart,
 * so two different actions share a row only where that ties with showing them apart.
 */
function score(a: NormalisedAction, b: NormalisedAction): number {
  if (sameAction(a, b)) return 3;
  if (a.kind === b.kind && a.target === b.target && a.target !== '') return 1;
  return 2 * GAP;
}
const GAP = -1;

/**
 * Global alignment of a sequence of `n` rows with `b`: pairs of indices, -1 where one side has
 * nothing. Of the alignments with the best score, the one whose matches come earliest wins: each
 * match also costs its positions, weighed below one point of score.
 */
function alignTo(n: number, b: readonly NormalisedAction[], rowScore: (i: number, a: NormalisedAction) => number): Array<[number, number]> {
  const m = b.length;
  const unit = (Math.min(n, m) + 1) * (n + m + 1);
  const value = (i: number, j: number, s: number) => s * unit - (s > 0 ? i + j : 0);
  const best: Float64Array[] = Array.from({ length: n + 1 }, () => new Float64Array(m + 1));
  for (let i = n - 1; i >= 0; i--) best[i]![m] = (n - i) * GAP * unit;
  for (let j = m - 1; j >= 0; j--) best[n]![j] = (m - j) * GAP * unit;
  const scores: Float64Array[] = Array.from({ length: n }, (_, i) => Float64Array.from(b, (a, j) => value(i, j, rowScore(i, a))));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      best[i]![j] = Math.max(best[i + 1]![j + 1]! + scores[i]![j]!, best[i + 1]![j]! + GAP * unit, best[i]![j + 1]! + GAP * unit);
    }
  }
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && best[i]![j] === best[i + 1]![j + 1]! + scores[i]![j]!) pairs.push([i++, j++]);
    else if (j < m && (i === n || best[i]![j] === best[i]![j + 1]! + GAP * unit)) pairs.push([-1, j++]);
    else pairs.push([i++, -1]);
  }
  return pairs;
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

/** How many opening actions every run shares. */
function sharedBeginning(runs: ReadonlyArray<readonly NormalisedAction[]>): number {
  const shortest = Math.min(...runs.map((r) => r.length));
  let k = 0;
  while (k < shortest && runs.every((r) => sameAction(r[k]!, runs[0]![k]!))) k++;
  return k;
}

/** Aligns the runs' actions (each already normalised): their shared beginning, then each run in turn against the rows so far. */
export function alignRuns(runs: ReadonlyArray<readonly NormalisedAction[]>): Alignment {
  if (runs.length === 0) return { rows: [], firstDivergence: null };
  const shared = runs.length < 2 ? 0 : sharedBeginning(runs);
  const rows: Array<Array<number | null>> = [];
  runs.forEach((run, r) => {
    const rest = run.slice(shared);
    // A row scores against a step as the best of the steps already in it.
    const rowScore = (i: number, a: NormalisedAction) =>
      Math.max(...rows[i]!.slice(0, r).map((s, other) => (s === null ? -Infinity : score(runs[other]![s]!, a))));
    const merged: Array<Array<number | null>> = [];
    for (const [i, j] of alignTo(rows.length, rest, rowScore)) {
      const row = i >= 0 ? rows[i]! : runs.slice(0, r).map(() => null);
      merged.push([...row, j >= 0 ? j + shared : null]);
    }
    rows.splice(0, rows.length, ...merged);
  });
  const aligned: AlignedRow[] = [
    ...Array.from({ length: shared }, (_, k) => ({ steps: runs.map(() => k), same: true })),
    ...rows.map((steps) => {
      const first = steps[0] === null ? undefined : runs[0]![steps[0]!]!;
      return { steps, same: first !== undefined && steps.every((s, r) => s !== null && sameAction(runs[r]![s]!, first)) };
    }),
  ];
  const first = aligned.findIndex((row) => !row.same);
  return { rows: aligned, firstDivergence: runs.length < 2 || first < 0 ? null : first };
}
