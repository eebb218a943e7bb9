/** The Python string behaviours SWE-agent's tools show the model: `str.expandtabs()` and `repr()`. */

/** Python's `str.expandtabs()` (tab stops every 8 columns, counted from each line start). */
export function expandTabs(text: string, size = 8): string {
  let column = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '\t') {
      const spaces = size - (column % size);
      out += ' '.repeat(spaces);
      column += spaces;
    } else {
      out += ch;
      column = ch === '\n' || ch === '\r' ? 0 : column + 1;
    }
  }
  return out;
}

/** Python's `repr()` of a string, as the messages quote the search text. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}
