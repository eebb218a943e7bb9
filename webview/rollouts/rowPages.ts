import { FIRST_ROWS_MARK, MAX_ROW_RANGE, rolloutsRows, type RolloutQuery, type RolloutRow } from '../../extension/protocol/rollouts';
import type { Host } from '../host';

/** The rows of the current query the page holds, by row index, asked of the host page by page as they scroll into view. */
export class RowPages {
  private rows = new Map<number, RolloutRow>();
  /** The first index of each page asked for and not yet answered. */
  private readonly pending = new Set<number>();
  private firstRowsShown = false;

  constructor(private readonly host: Host) {}

  get(index: number): RolloutRow | undefined {
    return this.rows.get(index);
  }

  /** Whether the page starting at `start` is neither held nor on its way. */
  lacks(start: number): boolean {
    return !this.rows.has(start) && !this.pending.has(start);
  }

  /** Forgets every row: a new query, or a new index. */
  clear(): void {
    this.rows = new Map();
    this.pending.clear();
  }

  /**
   * Asks for rows `start..end` of `query` (in ranges the host answers); `loaded` is told once they are
   * all here, unless `stale` says the query changed meanwhile.
   */
  async fetch(query: RolloutQuery, start: number, end: number, stale: () => boolean, loaded: () => void): Promise<void> {
    if (end <= start) return;
    this.pending.add(start);
    try {
      for (let from = start; from < end; from += MAX_ROW_RANGE) {
        const { rows } = await this.host.request(rolloutsRows, { query, start: from, end: Math.min(end, from + MAX_ROW_RANGE) });
        if (stale()) return;
        rows.forEach((row, k) => this.rows.set(from + k, row));
      }
    } catch {
      // The index changed under the request; the changed notification runs the query again.
      return;
    } finally {
      this.pending.delete(start);
    }
    loaded();
    if (!this.firstRowsShown) {
      this.firstRowsShown = true;
      performance.mark(FIRST_ROWS_MARK);
    }
  }
}
