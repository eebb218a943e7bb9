import { replayCompareLoad, replayCompareShow, type ReplayCompare, type ReplayCompareState } from '../../extension/protocol/replayCompare';
import { codicon, el } from '../dom';
import type { Host } from '../host';

const SIGN = { hunk: '', context: ' ', recorded: '−', replayed: '+' } as const;

/** A replayed step beside its recording: both observations, their line diff, the normalisers applied. */
export class ReplayCompareView {
  constructor(
    private readonly root: HTMLElement,
    private readonly host: Host,
  ) {}

  async start(): Promise<void> {
    this.host.onNotification(replayCompareShow, (state) => this.render(state));
    this.render(await this.host.request(replayCompareLoad, {}));
  }

  render(state: ReplayCompareState): void {
    this.root.setAttribute('aria-busy', 'false');
    if (state.kind === 'empty') {
      this.root.replaceChildren(
        el('header', { className: 'toolbar' }, [el('div', { className: 'title' }, [el('h1', { text: 'Recorded ↔ Replayed', attrs: { id: 'replay-title' } })])]),
        el('p', { className: 'replay-empty', text: state.message, attrs: { id: 'replay-empty', role: 'status' } }),
      );
      return;
    }
    const step = state.step;
    this.root.setAttribute('data-step', String(step.index));
    const header = el('header', { className: 'toolbar' }, [
      el('div', { className: 'title' }, [
        el('h1', { text: step.title, attrs: { id: 'replay-title' } }),
        el('span', { className: 'facts', text: step.session, attrs: { id: 'replay-session' } }),
      ]),
      el('div', { className: 'controls' }, [
        el('span', { className: `verdict ${step.matched ? 'matched' : 'diverged'}`, attrs: { id: 'replay-verdict', role: 'status' } }, [
          codicon(step.matched ? 'pass' : 'diff'),
          step.matched ? 'matched' : 'diverged',
        ]),
      ]),
    ]);
    const body = el('div', { className: 'replay-body', attrs: { id: 'replay-body' } }, [
      ...(step.note ? [el('p', { className: 'replay-note', text: step.note, attrs: { role: 'note', id: 'replay-note' } })] : []),
      this.section('Action', 'action', el('pre', { className: 'replay-action', text: step.action })),
      el('section', { className: 'sides', attrs: { 'aria-label': 'Observations' } }, [
        this.side('Recorded', 'recorded', step.recorded),
        this.side('Replayed', 'replayed', step.replayed),
      ]),
      this.section('Difference after normalising', 'diff', this.diff(step)),
      this.section('Normalisers applied', 'normalisers', this.normalisers(step)),
    ]);
    this.root.replaceChildren(header, body);
  }

  private section(title: string, id: string, content: HTMLElement): HTMLElement {
    return el('section', { attrs: { id: `replay-${id}`, 'aria-label': title } }, [el('h2', { text: title }), content]);
  }

  private side(title: string, id: 'recorded' | 'replayed', side: ReplayCompare['recorded']): HTMLElement {
    return el('div', { className: 'side', attrs: { id: `replay-${id}`, 'aria-label': title } }, [
      el('h2', {}, [
        title,
        el('span', { className: 'side-facts', text: `${side.exit} · ${side.duration === 'unknown' ? 'duration unknown' : side.duration}` }),
      ]),
      side.observation === ''
        ? el('pre', { className: 'empty-text', text: '(no output)' })
        : el('pre', { className: 'observation', text: side.observation, attrs: { tabindex: '0' } }),
    ]);
  }

  private diff(step: ReplayCompare): HTMLElement {
    if (step.diff.length === 0) return el('p', { text: 'None: the observations are the same once normalised.', attrs: { id: 'replay-no-diff' } });
    return el('div', {}, [
      el('p', { className: 'diff-legend', text: '− lines are the recording’s, + lines the replay’s.' }),
      el(
        'div',
        { className: 'diff', attrs: { role: 'group', 'aria-label': 'line diff' } },
        step.diff.map((line) =>
          el('div', { className: `diff-line ${line.kind}`, attrs: { 'data-kind': line.kind } }, [
            el('span', { className: 'sign', text: SIGN[line.kind], attrs: { 'aria-hidden': 'true' } }),
            el('pre', { text: line.text }),
          ]),
        ),
      ),
    ]);
  }

  private normalisers(step: ReplayCompare): HTMLElement {
    if (step.normalisers.length === 0) return el('p', { text: 'None: the texts were compared exactly.' });
    return el(
      'ul',
      { className: 'normalisers' },
      step.normalisers.map((n) =>
        el('li', { className: n.changed ? 'changed' : 'idle', attrs: { 'data-normaliser': n.name } }, [
          codicon(n.changed ? 'check' : 'circle-small', n.changed ? 'changed this step' : 'nothing to forgive here'),
          el('span', { className: 'name', text: n.name }),
          el('span', { text: `${n.changed ? 'forgave' : 'ready to forgive'} ${n.forgives.replace(/`/g, '')}` }),
        ]),
      ),
    );
  }
}
