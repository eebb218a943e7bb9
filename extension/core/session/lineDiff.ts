/**
 * The line diff a replay shows of a recorded and a replayed observation (core/session/divergence),
 * and the conformance tests of their own output against a reference tool's.
 */

/**
 * A unified-style line diff (`-` recorded, `+` replayed, two lines of context) from a longest
 * common subsequence. The common head and tail are cut first, so only the changed middle is
 * compared line by line.
 */
export function lineDiff(a: readonly string[], b: readonly string[], context = 2): string {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops = lcsOps(midA, midB);
  const lines: string[] = [`@@ -${head + 1},${midA.length} +${head + 1},${midB.length} @@`];
  for (const l of a.slice(Math.max(0, head - context), head)) lines.push(` ${l}`);
  lines.push(...ops);
  for (const l of a.slice(a.length - tail, a.length - tail + context)) lines.push(` ${l}`);
  return lines.join('\n');
}

function lcsOps(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push(` ${a[i++]}`);
      j++;
    } else if (j >= m || (i < n && table[i + 1]![j]! >= table[i]![j + 1]!)) ops.push(`-${a[i++]}`);
    else ops.push(`+${b[j++]}`);
  }
  return ops;
}
