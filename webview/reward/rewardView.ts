import type { Host } from '../host';
import { codicon, el } from '../dom';
import { rewardLoad, rewardOpenOutput, rewardSetRecipe, type GradedTest, type RewardBreakdown } from '../../extension/protocol/reward';
import { formatValue, rewardChart } from './rewardChart';
import { errorText } from '../errorText';

/** The reward breakdown: verdict, terms as a table and a chart, and the graded test lists. */
export class RewardView {
  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {}

  async start(): Promise<void> {
    this.show(await this.host.request(rewardLoad, {}));
  }

  private show(b: RewardBreakdown): void {
    this.host.setState({ sources: b.sources });
    const header = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [el('h1', { text: b.title, attrs: { id: 'reward-title' } }), el('span', { className: 'facts', text: b.origin })]),
      this.recipePicker(b),
    ]);
    const body = el('div', { className: 'reward-body' }, [
      this.verdict(b),
      ...this.missing(b.missing),
      this.termsTable(b),
      ...(b.terms.length > 0 ? [el('section', {}, [el('h2', { text: 'Terms' }), rewardChart(b.terms)])] : []),
      ...b.lists.map((l) => this.list(l.name, l.tests)),
    ]);
    this.root.replaceChildren(header, body);
    this.root.setAttribute('aria-busy', 'false');
  }

  /** Which recipe the value, mask and terms come from; picking another grades the same files again. */
  private recipePicker(b: RewardBreakdown): HTMLElement {
    const option = (value: string, text: string, title: string) =>
      el('vscode-option', { text, attrs: { value, title, ...((b.recipe?.name ?? '') === value ? { selected: '' } : {}) } });
    const select = el('vscode-single-select', { attrs: { id: 'reward-recipe', 'aria-label': 'Reward recipe' } }, [
      option('', 'SWE-bench resolve (default)', 'FULL resolution of FAIL_TO_PASS and PASS_TO_PASS'),
      ...b.recipes.map((r) => option(r.name, `${r.name} v${r.version}`, `${r.description} (${r.source})`)),
    ]);
    select.addEventListener('change', () => {
      this.root.setAttribute('aria-busy', 'true');
      this.host.request(rewardSetRecipe, { recipe: select.value === '' ? null : select.value }).then(
        (next) => this.show(next),
        (error: unknown) => {
          this.root.setAttribute('aria-busy', 'false');
          select.after(el('span', { className: 'note', text: `Cannot score with ${select.value}: ${errorText(error)}` }));
        },
      );
    });
    const source = b.recipe
      ? el('span', { className: 'facts', text: `${b.recipe.description} (${b.recipe.source})`, attrs: { id: 'recipe-source' } })
      : undefined;
    return el('label', { className: 'recipe-picker', text: 'Recipe ' }, [select, ...(source ? [source] : [])]);
  }

  private verdict(b: RewardBreakdown): HTMLElement {
    const parts: Node[] = [];
    if (b.resolution) parts.push(el('span', { className: `resolution ${b.resolution}`, text: b.resolution, attrs: { id: 'resolution' } }));
    parts.push(
      el('span', {
        className: 'reward-value',
        text: b.masked ? 'reward masked' : b.value === null ? 'reward unknown' : `reward ${formatValue(b.value)}`,
        attrs: { id: 'reward-value' },
      }),
    );
    if (b.testsFound !== null) parts.push(el('span', { className: 'note', text: `${b.testsFound} tests in the output` }));
    if (b.masked) parts.push(el('span', { className: 'note masked', text: `masked: ${b.masked}, no gradient`, attrs: { id: 'reward-mask' } }));
    if (b.recipe?.outcome === 'unscored') parts.push(el('span', { className: 'note', text: 'not scored by this recipe (see below)' }));
    const section = el('section', {}, [el('div', { className: 'verdict' }, parts)]);
    if (b.report) {
      const agrees = b.report.agrees;
      section.append(
        el('p', { className: `agreement ${agrees ? 'agrees' : 'differs'}`, attrs: { id: 'report-agreement' } }, [
          codicon(agrees ? 'pass' : 'error', agrees ? 'agrees' : 'differs'),
          ` ${agrees ? 'Agrees with' : 'Differs from'} ${b.report.file} (resolved: ${b.report.resolved}): ${b.report.detail}`,
        ]),
      );
    }
    return section;
  }

  /** What could not be graded, said before the terms so a short breakdown is not mistaken for a whole one. */
  private missing(notes: readonly string[]): HTMLElement[] {
    if (notes.length === 0) return [];
    return [
      el(
        'section',
        { className: 'missing', attrs: { id: 'missing', 'aria-label': 'Not graded' } },
        notes.map((n) => el('p', {}, [codicon('info', 'note'), ` ${n}`])),
      ),
    ];
  }

  private termsTable(b: RewardBreakdown): HTMLElement {
    const head = el(
      'tr',
      {},
      ['Term', 'Value', 'Rule'].map((t) => el('th', { text: t })),
    );
    const rows = b.terms.map((t) =>
      el('tr', {}, [el('td', { text: t.name }), el('td', { className: 'value', text: formatValue(t.value) }), el('td', { text: t.rule })]),
    );
    // A masked rollout keeps its terms (what the recipe would give), said to count for nothing, so a
    // term's 0 is never read as the rollout's reward.
    const masked = b.masked
      ? [el('p', { className: 'note masked', text: 'The rollout is masked: these terms give it no reward and no gradient.', attrs: { id: 'terms-masked' } })]
      : [];
    return el('section', {}, [
      el('h2', { text: 'Reward terms' }),
      ...masked,
      el('table', { className: 'terms', attrs: { id: 'terms' } }, [el('thead', {}, [head]), el('tbody', {}, rows)]),
    ]);
  }

  private list(name: string, tests: readonly GradedTest[]): HTMLElement {
    const passed = tests.filter((t) => t.passed).length;
    const items = tests.map((t) => {
      const id = t.line === null ? el('span', { className: 'test-id', text: t.id, attrs: { title: 'not named in the test output' } }) : this.link(t.id, t.line);
      return el('li', { attrs: { 'data-test': t.id, 'data-passed': String(t.passed) } }, [
        codicon(t.passed ? 'pass' : 'error', t.passed ? 'passed' : 'failed'),
        id,
      ]);
    });
    return el('section', { attrs: { 'data-list': name } }, [
      el('h2', { text: `${name}: ${passed} of ${tests.length} pass` }),
      tests.length === 0 ? el('p', { className: 'note', text: 'No tests in this list.' }) : el('ul', { className: 'test-list' }, items),
    ]);
  }

  private link(id: string, line: number): HTMLElement {
    const button = el('button', { className: 'test-link', text: id, attrs: { title: `Open the test output at line ${line}` } });
    button.addEventListener('click', () => void this.host.request(rewardOpenOutput, { line }));
    return button;
  }
}
