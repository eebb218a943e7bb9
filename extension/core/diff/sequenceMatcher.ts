/**
 * A port of Python's difflib.SequenceMatcher (CPython 3.11 Lib/difflib.py) without a junk
 * function (`isjunk=None`, as every caller here uses it), enough for `ratio()` and
 * `unified_diff`: the same b2j index and "popular" purge (autojunk: in a b of 200+ items, an item
 * seen more than 1% + 1 times is ignored as a match seed), the same longest-match extension and
 * the same recursion order, so ratios equal Python's to the last bit.
 */
interface SequenceMatcherOptions {
  autojunk?: boolean;
}

interface MatchingBlock {
  a: number;
  b: number;
  size: number;
}

class SequenceMatcher<T> {
  private readonly b2j = new Map<T, number[]>();

  constructor(
    private readonly a: readonly T[],
    private readonly b: readonly T[],
    options: SequenceMatcherOptions = {},
  ) {
    b.forEach((item, j) => {
      const list = this.b2j.get(item);
      if (list) list.push(j);
      else this.b2j.set(item, [j]);
    });
    if ((options.autojunk ?? true) && b.length >= 200) {
      const ntest = Math.floor(b.length / 100) + 1;
      for (const [item, idxs] of [...this.b2j]) if (idxs.length > ntest) this.b2j.delete(item);
    }
  }

  findLongestMatch(alo: number, ahi: number, blo: number, bhi: number): MatchingBlock {
    const { a, b } = this;
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
    // With no junk function, Python's two extension passes are one: over equal items the popular purge left out of b2j.
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
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

type Opcode = ['equal' | 'replace' | 'delete' | 'insert', number, number, number, number];

/** Python's `get_opcodes()`: how to turn a into b, adjacent matching blocks joined first as Python does. */
function opcodes<T>(matcher: SequenceMatcher<T>, aLength: number, bLength: number): Opcode[] {
  const joined: MatchingBlock[] = [];
  for (const m of matcher.matchingBlocks()) {
    const last = joined.at(-1);
    if (last && last.a + last.size === m.a && last.b + last.size === m.b) last.size += m.size;
    else joined.push({ ...m });
  }
  joined.push({ a: aLength, b: bLength, size: 0 });
  const codes: Opcode[] = [];
  let i = 0;
  let j = 0;
  for (const { a, b, size } of joined) {
    const tag = i < a && j < b ? 'replace' : i < a ? 'delete' : j < b ? 'insert' : undefined;
    if (tag) codes.push([tag, i, a, j, b]);
    i = a + size;
    j = b + size;
    if (size > 0) codes.push(['equal', a, i, b, j]);
  }
  return codes;
}

/** Python's `get_grouped_opcodes(n)`: the changes with up to n lines of context, split where more is equal. */
function groupedOpcodes(codes: Opcode[], n: number): Opcode[][] {
  const list: Opcode[] = codes.length > 0 ? codes.map((c) => [...c] as Opcode) : [['equal', 0, 1, 0, 1]];
  const first = list[0]!;
  if (first[0] === 'equal') list[0] = ['equal', Math.max(first[1], first[2] - n), first[2], Math.max(first[3], first[4] - n), first[4]];
  const last = list[list.length - 1]!;
  if (last[0] === 'equal') list[list.length - 1] = ['equal', last[1], Math.min(last[2], last[1] + n), last[3], Math.min(last[4], last[3] + n)];
  const groups: Opcode[][] = [];
  let group: Opcode[] = [];
  for (const code of list) {
    let [tag, i1, i2, j1, j2] = code;
    if (tag === 'equal' && i2 - i1 > 2 * n) {
      group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length > 0 && !(group.length === 1 && group[0]![0] === 'equal')) groups.push(group);
  return groups;
}

function unifiedRange(start: number, stop: number): string {
  const length = stop - start;
  if (length === 1) return String(start + 1);
  return `${length === 0 ? start : start + 1},${length}`;
}

/** Python's `difflib.unified_diff(a, b, fromfile, tofile, n=context, lineterm='')`, one entry per line. */
export function unifiedDiff(a: readonly string[], b: readonly string[], fromFile: string, toFile: string, context = 3): string[] {
  const lines: string[] = [];
  for (const group of groupedOpcodes(opcodes(new SequenceMatcher(a, b), a.length, b.length), context)) {
    if (lines.length === 0) lines.push(`--- ${fromFile}`, `+++ ${toFile}`);
    lines.push(`@@ -${unifiedRange(group[0]![1], group.at(-1)![2])} +${unifiedRange(group[0]![3], group.at(-1)![4])} @@`);
    for (const [tag, i1, i2, j1, j2] of group) {
      if (tag === 'equal') lines.push(...a.slice(i1, i2).map((l) => ` ${l}`));
      if (tag === 'replace' || tag === 'delete') lines.push(...a.slice(i1, i2).map((l) => `-${l}`));
      if (tag === 'replace' || tag === 'insert') lines.push(...b.slice(j1, j2).map((l) => `+${l}`));
    }
  }
  return lines;
}
