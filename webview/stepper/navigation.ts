import type { StepSummary } from '../../extension/protocol/stepper';

export interface StepFilter {
  readonly tool: string | null;
  readonly errorsOnly: boolean;
  /** Indices that match the search, or null when there is no search. */
  readonly matches: ReadonlySet<number> | null;
}

export function visibleSteps(summaries: readonly StepSummary[], filter: StepFilter): number[] {
  return summaries
    .filter(
      (s) => (filter.tool === null || s.tool === filter.tool) && (!filter.errorsOnly || s.error) && (filter.matches === null || filter.matches.has(s.index)),
    )
    .map((s) => s.index);
}

export type Move = 'next' | 'previous' | 'first' | 'last';

/** The step a move lands on among the visible ones (ascending); the current one if none. */
export function moveSelection(visible: readonly number[], current: number, move: Move): number {
  if (visible.length === 0) return current;
  switch (move) {
    case 'first':
      return visible[0] ?? current;
    case 'last':
      return visible[visible.length - 1] ?? current;
    case 'next':
      return visible.find((i) => i > current) ?? (visible.includes(current) ? current : (visible[visible.length - 1] ?? current));
    case 'previous':
      return [...visible].reverse().find((i) => i < current) ?? (visible.includes(current) ? current : (visible[0] ?? current));
  }
}

const KEY_MOVES: Readonly<Record<string, Move>> = { j: 'next', ArrowDown: 'next', k: 'previous', ArrowUp: 'previous', Home: 'first', End: 'last' };

export function keyMove(key: string): Move | undefined {
  return KEY_MOVES[key];
}
