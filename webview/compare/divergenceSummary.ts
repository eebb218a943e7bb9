import type { CompareContent } from '../../extension/protocol/compare';

/**
 * The line under the compare view's title: where the runs part, or that they take the same
 * actions, and then any steps a replay's output differed from the recording's, which the same
 * actions do not show ("; but attempt 2's steps 2 and 4 diverged from the recording when replayed").
 */
export function divergenceSummary(content: CompareContent): string {
  const point = content.branchPoint;
  const from = !point
    ? ''
    : point.afterStep === 0
      ? 'from the branch point at the task start, '
      : `from the branch point after step ${point.afterStep} (steps 1–${point.afterStep} shared), `;
  if (content.firstDivergence === null) return `${from}the runs take the same actions ${point ? 'after it' : 'throughout'}${replayDivergence(content)}`;
  const row = content.rows[content.firstDivergence]!;
  const at = row.cells.map((c, r) => `${content.runs[r]!.label} ${c ? `step ${c.index + 1}` : '(no step)'}`).join(', ');
  return `${from}the runs part at row ${content.firstDivergence + 1}: ${at}`;
}

function replayDivergence(content: CompareContent): string {
  const parts = content.runs.flatMap((r) =>
    r.diverged.length === 0 ? [] : [`${r.label}'s step${r.diverged.length > 1 ? 's' : ''} ${listed(r.diverged.map((i) => String(i + 1)))}`],
  );
  return parts.length === 0 ? '' : `; but ${listed(parts)} diverged from the recording when replayed (their output differs)`;
}

/** "1, 2 and 4" */
function listed(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
