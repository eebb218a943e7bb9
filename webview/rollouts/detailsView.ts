import { rolloutsGroup, type GroupDetails, type QueryResult, type RolloutQuery, type RolloutRow } from '../../extension/protocol/rollouts';
import { codicon, el } from '../dom';
import { errorText } from '../errorText';
import type { Host } from '../host';
import { STATUS_ICONS } from './rowView';
import { cellText, signed } from './tableModel';

/** Failing tests listed in the details pane; the reward breakdown has them all. */
const MAX_TESTS_SHOWN = 8;

export type RowAction = 'open' | 'reward' | 'patch' | 'compare';
/** What can be opened from a rollout, by button or key. */
export const ACTIONS: ReadonlyArray<{ action: RowAction; label: string; icon: string; key: string }> = [
  { action: 'open', label: 'Open in Stepper', icon: 'debug-step-into', key: 'Enter' },
  { action: 'reward', label: 'Reward Breakdown', icon: 'graph', key: 'R' },
  { action: 'patch', label: 'Patch', icon: 'diff', key: 'P' },
  { action: 'compare', label: 'Compare Group', icon: 'compare-changes', key: 'C' },
];

/**
 * The selected rollout: why it ended as it did, its failing tests, its score, its group (`group`),
 * and the buttons of what can be opened from it, with `actionStatus` saying what failed.
 */
export function detailsContent(row: RolloutRow, withRecipe: boolean, group: HTMLElement, actionStatus: HTMLElement): HTMLElement[] {
  const tests = row.tests ?? [];
  // With a recipe the table hides tokens, cost and duration: the details keep them.
  const usage = withRecipe
    ? [
        row.tokens === null ? undefined : `${cellText(row, 'tokens')} tokens`,
        row.cost === null ? undefined : cellText(row, 'cost'),
        row.duration === null ? undefined : cellText(row, 'duration'),
      ]
    : [];
  const facts = [
    `${row.format}`,
    `${row.steps} steps`,
    row.exit ? `exit ${row.exit}` : undefined,
    row.evaluation ? `evaluated by ${row.evaluation}` : row.resolved !== null || row.reward !== null ? 'graded in the trajectory file' : 'not graded',
    ...usage,
  ].filter((f) => f !== undefined);
  const buttons = ACTIONS.map((a) =>
    el('button', { className: 'row-action', attrs: { type: 'button', 'data-action': a.action, title: `${a.label} (${a.key})`, 'aria-keyshortcuts': a.key } }, [
      codicon(a.icon),
      ` ${a.label}`,
    ]),
  );
  return [
    el('div', { className: 'details-title' }, [
      codicon(STATUS_ICONS[row.status], row.status),
      el('strong', { text: ` ${row.instance} #${row.attempt}`, attrs: { id: 'details-rollout' } }),
      el('span', { className: 'details-facts', text: facts.join(' · ') }),
    ]),
    el('p', { attrs: { id: 'details-reason' } }, [el('strong', { text: row.failure }), `: ${row.evidence}`]),
    ...(tests.length > 0
      ? [
          el('ul', { attrs: { id: 'details-tests', 'aria-label': 'Failing tests' } }, [
            ...tests.slice(0, MAX_TESTS_SHOWN).map((t) => el('li', { text: t })),
            ...(tests.length > MAX_TESTS_SHOWN ? [el('li', { text: `… and ${tests.length - MAX_TESTS_SHOWN} more` })] : []),
          ]),
        ]
      : []),
    ...(row.score
      ? [
          el('p', { attrs: { id: 'details-score' } }, [
            el('strong', { text: row.score.advantage === null ? 'no gradient' : `advantage ${signed(row.score.advantage)}` }),
            `: ${row.score.why}`,
          ]),
        ]
      : []),
    group,
    el('div', { className: 'details-actions' }, [...buttons, actionStatus]),
  ];
}

/** The selected rollout's GRPO group under the recipe: each rollout's reward, mask and advantage, and why. */
export class GroupView {
  readonly element = el('section', { attrs: { id: 'details-group', 'aria-label': 'Group advantages' } });
  private key = '';

  constructor(private readonly host: Host) {}

  /** Shows `row`'s group under `recipe` (nothing without one), asking the host only when the group or the index changed. */
  async show(row: RolloutRow, recipe: RolloutQuery['recipe'], result: QueryResult | undefined): Promise<void> {
    if (!recipe) {
      this.key = '';
      this.element.replaceChildren();
      return;
    }
    const key = `${recipe.name}/${recipe.estimator}/${row.instance}/${result?.version ?? 0}`;
    if (key === this.key) {
      this.mark(row.id);
      return;
    }
    this.key = key;
    let details: GroupDetails;
    try {
      details = await this.host.request(rolloutsGroup, { recipe, instance: row.instance });
    } catch (error) {
      if (this.key === key) this.element.replaceChildren(el('p', { className: 'error', text: `Cannot compute the group: ${errorText(error)}` }));
      return;
    }
    if (this.key !== key) return;
    const fmt = (x: number | null) => (x === null ? '—' : String(Math.round(x * 1000) / 1000));
    const facts = [
      `n = ${details.included}`,
      `mean ${fmt(details.mean)}`,
      `std ${fmt(details.std)}`,
      details.masked ? `${details.masked} masked` : undefined,
      details.unscored ? `${details.unscored} not scored` : undefined,
      details.mixed ? 'mixed' : 'not mixed',
      details.signal ? 'gives a gradient' : 'no gradient',
      details.bugReward === null ? undefined : `bug reward ${fmt(details.bugReward)}`,
    ].filter((f) => f !== undefined);
    const head = el(
      'tr',
      {},
      ['Attempt', 'Reward', 'Advantage', 'Why'].map((t) => el('th', { text: t })),
    );
    const rows = details.rollouts.map((r) =>
      el('tr', { attrs: { 'data-id': r.id, 'data-outcome': r.outcome } }, [
        el('td', { text: `#${r.attempt}` }),
        el('td', {
          className: 'numeric',
          text: r.outcome === 'masked' ? 'masked' : fmt(r.value),
          ...(r.outcome === 'masked' ? { attrs: { title: `masked: ${r.mask}` } } : {}),
        }),
        el('td', { className: 'numeric', text: r.advantage === null ? '—' : signed(r.advantage) }),
        el('td', { text: r.why, attrs: { title: r.terms.map((t) => `${t.name} = ${t.value === null ? 'masked' : fmt(t.value)}: ${t.rule}`).join('\n') } }),
      ]),
    );
    this.element.replaceChildren(
      el('h3', { text: `Group ${details.instance}: ${facts.join(' · ')}` }),
      el('p', { className: 'details-facts', text: details.formula }),
      el('table', { attrs: { id: 'group-advantages' } }, [el('thead', {}, [head]), el('tbody', {}, rows)]),
    );
    this.mark(row.id);
  }

  /** Marks the selected rollout's line in its group. */
  private mark(id: string): void {
    for (const tr of this.element.querySelectorAll<HTMLElement>('tbody tr')) tr.setAttribute('aria-current', String(tr.dataset.id === id));
  }
}
