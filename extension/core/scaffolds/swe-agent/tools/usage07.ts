/**
 * The usage texts SWE-agent 0.7's shell functions print (`defaults.sh`, `search.sh`,
 * `edit_linting.sh`), which `windowed07.ts`'s tools show where 0.7 showed them.
 */

/** `Usage: open "<file>"` (0.7) or `Usage: open <file>` (0.2). */
export function openUsage(quoted: boolean): string {
  return quoted ? 'Usage: open "<file>"' : 'Usage: open <file>';
}

/**
 * What 0.7's shell functions print for arguments they refuse, in the order they check them
 * (`defaults.sh`, `search.sh`, `edit_linting.sh`); undefined when they would run. In 0.7 a
 * command line went to the shell as typed, so `goto` without a line was not a format error:
 * the function printed its usage and returned 0.
 */
export function usage07(name: string, words: readonly string[], openFile: string | null, quotedOpen = true): string | undefined {
  const [first = '', second = ''] = words;
  const number = /^[0-9]+$/;
  switch (name) {
    case 'open':
      if (first === '') return openUsage(quotedOpen);
      if (second !== '' && !number.test(second)) return `${openUsage(quotedOpen)} [<line_number>]\nError: <line_number> must be a number`;
      return undefined;
    case 'goto':
      if (words.length > 1) return 'goto allows only one line number at a time.';
      if (openFile === null) return 'No file open. Use the open command first.';
      if (first === '') return 'Usage: goto <line>';
      if (!number.test(first)) return 'Usage: goto <line>\nError: <line> must be a number';
      return undefined;
    case 'edit': {
      if (openFile === null) return 'No file open. Use the `open` command first.';
      // `echo $1: | cut -d: -f1` and `-f2`
      const [start = '', end = ''] = `${first}:`.split(':');
      if (start === '' || end === '') return 'Usage: edit <start_line>:<end_line>';
      if (!number.test(start)) return 'Usage: edit <start_line>:<end_line>\nError: start_line must be a number';
      if (!number.test(end)) return 'Usage: edit <start_line>:<end_line>\nError: end_line must be a number';
      return undefined;
    }
    case 'create':
      return first === '' ? 'Usage: create <filename>' : undefined;
    case 'search_file':
      return first === '' ? 'Usage: search_file <search_term> [<file>]' : undefined;
    case 'search_dir':
      return words.length === 1 || words.length === 2 ? undefined : 'Usage: search_dir <search_term> [<dir>]';
    case 'find_file':
      return words.length === 1 || words.length === 2 ? undefined : 'Usage: find_file <file_name> [<dir>]';
    default:
      return undefined;
  }
}
