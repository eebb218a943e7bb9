import type { Action } from './model';

/**
 * SWE-agent plain command lines (`open "x.py" 120`, `edit 5:7` ... `end_of_edit`). Reading
 * them into named arguments needs each tool's signature; until the ACI registry supplies its
 * parser, the tool is the first word and the arguments are the shell words, with the body of
 * a multi-line command (its lines after the first, less the `end_of_...` terminator) as the
 * last word.
 */
export function parseLineCommand(raw: string): Action {
  const text = raw.replace(/\s+$/, '');
  const newline = text.indexOf('\n');
  const head = newline === -1 ? text : text.slice(0, newline);
  const argv = shellWords(head);
  if (newline !== -1) argv.push(text.slice(newline + 1).replace(/\n?end_of_\w+$/, ''));
  const tool = argv[0];
  return tool === undefined ? { raw, tool: null, args: {} } : { raw, tool, args: { argv } };
}

/** POSIX-shell word splitting for one line: quotes and backslashes, no expansion. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end === -1 ? line.length : end;
      word = (word ?? '') + line.slice(i + 1, stop);
      i = stop;
    } else if (c === '"') {
      word ??= '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
        word += line[i];
      }
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
