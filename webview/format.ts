/**
 * How every view writes a number that may not be recorded: `unknown`, never `0` or `$0.00`.
 * The stepper's run header, the compare view and the rollouts table use these.
 */
export const UNKNOWN = 'unknown';

/** USD with two to four decimals (`$0.50`, `$0.2483`), as scaffolds count fractions of a cent. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return UNKNOWN;
  return `$${usd.toFixed(4).replace(/(\.\d{2}\d*?)0+$/, '$1')}`;
}

export function formatCount(n: number | null | undefined): string {
  return n === null || n === undefined ? UNKNOWN : n.toLocaleString('en-US');
}

export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined) return UNKNOWN;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** `text` as text nodes with each case-insensitive match of `query` in a `<mark>`; never HTML. */
export function highlighted(text: string, query: string): Node[] {
  if (!query) return [document.createTextNode(text)];
  const nodes: Node[] = [];
  const haystack = text.toLowerCase();
  const needle = query.toLowerCase();
  let from = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    if (at > from) nodes.push(document.createTextNode(text.slice(from, at)));
    const mark = document.createElement('mark');
    mark.textContent = text.slice(at, at + needle.length);
    nodes.push(mark);
    from = at + needle.length;
  }
  if (from < text.length) nodes.push(document.createTextNode(text.slice(from)));
  return nodes;
}

/** Tokens in and out (`157,229 in · 797 out`); `unknown` when neither was counted. */
export function formatTokens(tokensIn: number | undefined, tokensOut: number | undefined): string {
  return tokensIn === undefined && tokensOut === undefined ? UNKNOWN : `${formatCount(tokensIn)} in · ${formatCount(tokensOut)} out`;
}
