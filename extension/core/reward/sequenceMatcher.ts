/**
 * A port of Python's difflib.SequenceMatcher (CPython 3.11 Lib/difflib.py), enough for
 * `ratio()`: the same b2j index, junk and "popular" purge (autojunk: in a b of 200+ items,
 * an item seen more than 1% + 1 times is ignored as a match seed), the same longest-match
 * extension and the same recursion order, so ratios equal Python's to the last bit.
 */
export interface SequenceMatcherOptions<T> {
  isJunk?: (item: T) => boolean;
  autojunk?: boolean;
}

export interface MatchingBlock {
  a: number;
  b: number;
  size: number;
}

export class SequenceMatcher<T> {
  private readonly b2j = new Map<T, number[]>();
  private readonly bjunk = new Set<T>();

  constructor(
    private readonly a: readonly T[],
    private readonly b: readonly T[],
    options: SequenceMatcherOptions<T> = {},
  ) {
    b.forEach((item, j) => {
      const list = this.b2j.get(item);
      if (list) list.push(j);
      else this.b2j.set(item, [j]);
    });
    if (options.isJunk) {
      for (const item of this.b2j.keys()) if (options.isJunk(item)) this.bjunk.add(item);
      for (const item of this.bjunk) this.b2j.delete(item);
    }
    if ((options.autojunk ?? true) && b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [item, idxs] of [...this.b2j]) if (idxs.length > ntest) this.b2j.delete(item);
    }
  }

  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchingBlock {
    const { a, b } = this;
    const junk = (j: number) => this.bjunk.has(b[j] as T);
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    let j2len = new Map<number, number>();
    for (let i = alo; i < ahi; i++) {
      const next = new Map<number, number>();
      for (const j of this.b2j.get(a[i] as T) ?? []) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = (j2len.get(j - 1) ?? 0) + 1;
        next.set(j, k);
        if (k > bestsize) {
          besti = i - k + 1;
          bestj = j - k + 1;
          bestsize = k;
        }
      }
      j2len = next;
    }
    for (const wantJunk of [false, true]) {
      while (besti > alo && bestj > blo && junk(bestj - 1) === wantJunk && a[besti - 1] === b[bestj - 1]) {
        besti--;
        bestj--;
        bestsize++;
      }
      while (besti + bestsize < ahi && bestj + bestsize < bhi && junk(bestj + bestsize) === wantJunk && a[besti + bestsize] === b[bestj + bestsize]) {
        bestsize++;
      }
    }
    return { a: besti, b: bestj, size: bestsize };
  }

  /** Matching blocks in order, without the final (len(a), len(b), 0) sentinel. */
  matchingBlocks(): MatchingBlock[] {
    const queue: Array<[number, number, number, number]> = [[0, this.a.length, 0, this.b.length]];
    const blocks: MatchingBlock[] = [];
    while (queue.length > 0) {
      const [alo, ahi, blo, bhi] = queue.pop() as [number, number, number, number];
      const m = this.findLongestMatch(alo, ahi, blo, bhi);
      if (m.size === 0) continue;
      blocks.push(m);
      if (alo < m.a && blo < m.b) queue.push([alo, m.a, blo, m.b]);
      if (m.a + m.size < ahi && m.b + m.size < bhi) queue.push([m.a + m.size, ahi, m.b + m.size, bhi]);
    }
    return blocks.sort((x, y) => x.a - y.a || x.b - y.b);
  }

  ratio(): number {
    const matches = this.matchingBlocks().reduce((sum, m) => sum + m.size, 0);
    const length = this.a.length + this.b.length;
    return length === 0 ? 1 : (2 * matches) / length;
  }
}

/** Python's `SequenceMatcher(None, a, b, autojunk).ratio()` on two strings, item = code point. */
export function stringRatio(a: string, b: string, autojunk = true): number {
  return new SequenceMatcher(Array.from(a), Array.from(b), { autojunk }).ratio();
}
