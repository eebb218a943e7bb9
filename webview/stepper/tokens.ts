/**
 * The stepper's token view: a step's completion tokens coloured by their recorded probability, or
 * by the entropy of the recorded alternatives where there are some; the prompt's length; and,
 * for the token clicked, its id, text (decoded by the host where the file keeps ids only),
 * logprob and alternatives. Everything is set as text.
 */
import type { TokenView } from '../../extension/protocol/stepper';
import { el } from '../dom';
import { errorText } from '../errorText';
import { defaultColouring, legend, promptLine, tokenLevel, type ColourBy, type Token } from './tokenMeasures';

const LEVEL_CLASS = ['token', 'token low', 'token very-low'] as const;

/** What a token shows in the run of tokens: its text, or its id where the file keeps no text. */
function shown(token: Token): string {
  // A line break is shown as ↵ before it, so that a marked one can be seen and clicked.
  if (token.text !== undefined) return token.text.replace(/\n/g, '↵\n');
  return token.id !== undefined ? `‹${token.id}›` : '‹?›';
}

function probabilityText(logprob: number | undefined): string {
  return logprob === undefined ? 'logprob not recorded' : `p ${Math.exp(logprob).toFixed(3)} (logprob ${logprob.toFixed(3)})`;
}

/**
 * The Tokens section's content. `decode` asks the host for the text of token `position` (the
 * server's /detokenize); its answer is kept, so a token is decoded once.
 */
export function tokenViewContent(view: TokenView, decode: (position: number) => Promise<string>): HTMLElement[] {
  const header = el('p', { className: 'tokens', text: promptLine(view), attrs: { id: 'token-counts' } });
  if (view.none !== undefined || view.completion.length === 0)
    return [header, el('p', { className: 'hint', text: view.none ?? 'No completion tokens recorded.', attrs: { id: 'token-none' } })];
  const tokens = view.completion;
  let by = defaultColouring(tokens);
  const hasEntropy = by === 'entropy';
  const decoded = new Map<number, string>();
  const legendLine = el('p', { className: 'hint', attrs: { id: 'token-legend' } });
  const detail = el('p', {
    className: 'token-detail',
    text: 'Click a token for its id, text and alternatives.',
    attrs: { id: 'token-detail', 'aria-live': 'polite' },
  });
  const spans = tokens.map((token, k) => {
    const span = el('span', { text: shown(token), attrs: { 'data-position': String(k), title: `token ${k + 1}: ${probabilityText(token.logprob)}` } });
    if (token.text === undefined) span.dataset.idOnly = '';
    return span;
  });
  const paint = () => {
    spans.forEach((span, k) => {
      const token = tokens[k]!;
      const level = tokenLevel(token, by);
      span.className = `${LEVEL_CLASS[level ?? 0]}${level === undefined ? ' unmeasured' : ''}${token.text === undefined ? ' id-only' : ''}`;
    });
    legendLine.textContent = legend(by, tokens);
  };
  const run = el(
    'div',
    { className: 'mono logprobs', attrs: { id: 'token-run', role: 'group', tabindex: '0', 'aria-label': 'Completion tokens (Left and Right pick a token)' } },
    spans,
  );
  let selected: HTMLElement | undefined;
  let at = -1;
  const show = (k: number) => {
    const token = tokens[k]!;
    at = k;
    selected?.removeAttribute('aria-current');
    selected = spans[k];
    selected?.setAttribute('aria-current', 'true');
    const facts = [
      `Token ${k + 1} of ${tokens.length}`,
      token.id !== undefined ? `id ${token.id}` : 'id not recorded',
      probabilityText(token.logprob),
      ...(token.entropy !== undefined ? [`entropy ≥ ${token.entropy.toFixed(3)} nats`] : []),
    ];
    const text = el('span', { className: 'token-text' });
    const alternatives = (token.top ?? []).map((t) => `${JSON.stringify(t.token)} ${Math.exp(t.logprob).toFixed(3)}`);
    detail.replaceChildren(
      el('span', { text: `${facts.join(' · ')} · text ` }),
      text,
      ...(alternatives.length > 0 ? [el('span', { text: ` · alternatives: ${alternatives.join(', ')}` })] : []),
    );
    const known = token.text ?? decoded.get(k);
    if (known !== undefined) {
      text.textContent = JSON.stringify(known);
      return;
    }
    text.textContent = 'decoding…';
    decode(k).then(
      (value) => {
        decoded.set(k, value);
        text.textContent = JSON.stringify(value);
        spans[k]!.title = `token ${k + 1} ${JSON.stringify(value)}: ${probabilityText(token.logprob)}`;
      },
      (error: unknown) => {
        text.textContent = `cannot be decoded: ${errorText(error)}`;
      },
    );
  };
  run.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    show(Math.min(tokens.length - 1, Math.max(0, at + (event.key === 'ArrowRight' ? 1 : -1))));
  });
  run.addEventListener('click', (event) => {
    const position = (event.target as HTMLElement | null)?.closest('[data-position]')?.getAttribute('data-position');
    if (position !== null && position !== undefined) show(Number(position));
  });
  const parts: HTMLElement[] = [header];
  if (hasEntropy) {
    const select = el('vscode-single-select', { attrs: { id: 'token-colour', 'aria-label': 'Colour tokens by' } }, [
      el('vscode-option', { text: 'Colour by entropy', attrs: { value: 'entropy', selected: '' } }),
      el('vscode-option', { text: 'Colour by probability', attrs: { value: 'probability' } }),
    ]);
    select.addEventListener('change', () => {
      by = select.value === 'probability' ? 'probability' : 'entropy';
      paint();
    });
    parts.push(select);
  }
  paint();
  parts.push(legendLine, run, detail);
  return parts;
}
