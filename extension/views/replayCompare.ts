import type { Normaliser } from '../core/scaffolds/scaffold';
import { compareObservations, normalisersThatChanged } from '../core/session/divergence';
import type { Step } from '../core/trajectory/model';
import type { DiffLine, ObservationSide, ReplayCompare } from '../protocol/replayCompare';

/**
 * The replay compare view's content for one step: the recording's observation beside the one the
 * replay got, the line diff of the two as the replay's comparison made it (same normalisers, same
 * `compareObservations`), and each normaliser named with whether it changed anything here.
 */

/** A step's duration as the Session view and the compare view write it: `42 ms`, `1.3 s`, `2 min 5 s`. */
export function stepDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return 'unknown';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

function side(step: Step): ObservationSide {
  return {
    observation: step.observation,
    exit: step.formatError !== undefined ? 'format error' : `exit ${step.exitCode ?? 'unknown'}`,
    duration: stepDuration(step.executionTime),
  };
}

/** The `-`/`+` lines of `lineDiff` as the view colours them: `-` is the recording's, `+` the replay's. */
function diffLines(diff: string): DiffLine[] {
  if (diff === '') return [];
  return diff.split('\n').map((line) => {
    if (line.startsWith('@@')) return { kind: 'hunk', text: line };
    if (line.startsWith('-')) return { kind: 'recorded', text: line.slice(1) };
    if (line.startsWith('+')) return { kind: 'replayed', text: line.slice(1) };
    return { kind: 'context', text: line.slice(1) };
  });
}

export interface ReplayedStep {
  /** The session's title. */
  session: string;
  recorded: Step;
  replayed: Step;
  /** The normalisers the replay's comparison applied. */
  normalisers: readonly Normaliser[];
}

export function replayCompareContent({ session, recorded, replayed, normalisers }: ReplayedStep): ReplayCompare {
  const { matched, diff } = compareObservations(recorded.observation, replayed.observation, normalisers);
  const changed = new Set(normalisersThatChanged(recorded.observation, replayed.observation, normalisers));
  const edited = (replayed.flags ?? []).includes('edited');
  return {
    session,
    index: replayed.index,
    title: `Step ${replayed.index + 1} · ${replayed.action.tool ?? '(unparsed)'}`,
    action: replayed.action.raw,
    matched,
    recorded: side(recorded),
    replayed: side(replayed),
    diff: diffLines(diff),
    normalisers: normalisers.map((n) => ({ name: n.name, forgives: n.forgives, changed: changed.has(n) })),
    ...(edited ? { note: `The action was edited before it ran; the recording ran: ${recorded.action.raw}` } : {}),
  };
}
