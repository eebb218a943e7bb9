import type { QueryResult } from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';

/** How many rollouts the query shows, of how many indexed. */
export function countText(result: QueryResult): string {
  return result.total === result.indexed ? `${result.total} rollouts` : `${result.total} of ${result.indexed} rollouts`;
}

function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

/** The group statistics of a query: instances, solve rate, mixed groups, pass@k, and what the recipe made of the rows. */
export function statsContent(result: QueryResult): HTMLElement[] {
  const s = result.statistics;
  const fact = (label: string, value: string, more = '', title?: string) =>
    el('span', title ? { attrs: { title } } : {}, [`${label} `, el('strong', { text: value }), ...(more ? [` ${more}`] : [])]);
  // pass@k averages over the groups with at least k graded attempts: where that is fewer than all, it says how many.
  const groups = (n: number) => `${n} group${n === 1 ? '' : 's'}`;
  const passAtK = s.passAtK.map((p) =>
    fact(
      `pass@${p.k}`,
      percent(p.value),
      p.instances < s.instances ? `(${p.instances} of ${groups(s.instances)})` : '',
      `mean pass@${p.k} over the ${groups(p.instances)} with at least ${p.k} graded attempt${p.k === 1 ? '' : 's'}${p.instances < s.instances ? ` (of ${groups(s.instances)})` : ''}`,
    ),
  );
  const facts = [
    fact('instances', String(s.instances)),
    fact('solve rate', s.solveRate === null ? '—' : `${percent(s.solveRate)} (${s.resolved}/${s.evaluated})`),
    fact('mixed groups', String(s.mixed)),
    ...passAtK,
  ];
  const r = result.recipe;
  if (!r) return facts;
  const masks = Object.entries(r.maskReasons)
    .map(([reason, n]) => `${reason} ×${n}`)
    .join('; ');
  return [
    ...facts,
    el('span', { className: 'recipe-facts', attrs: { id: 'recipe-stats', title: `${r.source}. ${r.formula}` } }, [
      // With a filter on, the counts are the shown rollouts' and their groups': it says so.
      `${r.name} v${r.version}${r.rollouts < r.runRollouts ? `, ${r.rollouts} of ${r.runRollouts} rollouts` : ''}: `,
      el('strong', { text: `${r.scored} scored` }),
      `, ${r.masked} masked${masks ? ` (${masks})` : ''}, ${r.unscored} not scored; ${r.withSignal} of ${r.groups} groups give a gradient`,
    ]),
  ];
}

/** The groups shown whose identical patch was graded both ways: a line per patch, in the core's words, naming the rollouts. */
export function gradingConflictsContent(result: QueryResult): HTMLElement[] {
  return (result.gradingConflicts ?? []).map(({ instance, line }) => el('li', {}, [codicon('warning', 'grading conflict'), ` ${instance}: ${line}`]));
}
