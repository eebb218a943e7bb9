import type { RewardBreakdown } from '../../extension/protocol/reward';
import { chartScale } from './chartScale';

const SVG = 'http://www.w3.org/2000/svg';
const ROW = 22;
const LABEL_WIDTH = 180;
const BAR_WIDTH = 260;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * One horizontal bar per term from the zero line, built with DOM calls (no markup strings);
 * the bar colours are classes whose fills are the theme's chart colours.
 */
export function rewardChart(terms: RewardBreakdown['terms']): SVGSVGElement {
  // A masking term has no number: it is named, with "masked" where a bar would be.
  const { min, max } = chartScale(terms.flatMap((t) => (t.value === null ? [] : [t.value])));
  const x = (v: number) => LABEL_WIDTH + ((v - min) / (max - min)) * BAR_WIDTH;
  const height = terms.length * ROW + 8;
  const chart = svg('svg', { class: 'reward-chart', width: LABEL_WIDTH + BAR_WIDTH + 60, height, role: 'img', 'aria-label': 'Reward terms' });
  chart.append(svg('line', { class: 'axis', x1: x(0), x2: x(0), y1: 0, y2: height }));
  terms.forEach((t, i) => {
    const y = i * ROW + 4;
    const label = svg('text', { class: 'label', x: LABEL_WIDTH - 8, y: y + ROW / 2 + 2, 'text-anchor': 'end' }, t.name);
    if (t.value === null) {
      chart.append(label, svg('text', { class: 'value masked', x: x(0) + 6, y: y + ROW / 2 + 2 }, formatValue(null)));
      return;
    }
    const left = Math.min(x(0), x(t.value));
    const bar = svg('rect', {
      class: `bar ${t.value > 0 ? 'positive' : t.value < 0 ? 'negative' : 'zero'}`,
      x: left,
      y: y + 3,
      width: Math.max(1, Math.abs(x(t.value) - x(0))),
      height: ROW - 8,
    });
    bar.append(svg('title', {}, `${t.name} = ${t.value}: ${t.rule}`));
    chart.append(label, bar, svg('text', { class: 'value', x: Math.max(x(0), x(t.value)) + 6, y: y + ROW / 2 + 2 }, formatValue(t.value)));
  });
  return chart;
}

export function formatValue(value: number | null): string {
  if (value === null) return 'masked';
  return Number.isInteger(value) ? String(value) : value.toFixed(3);
}
