import { shellQuote } from '../../../parsing/shellWords';

/**
 * The lint guard of SWE-agent's edit tools: flake8 runs on `.py` files before and after an
 * edit, and only errors the edit introduced count. Errors that existed before are excused at
 * their line shifted by the lines the edit added; errors inside the replaced lines are never
 * excused; and, only when there were earlier errors, errors above the edit are ignored too.
 */

/** flake8's arguments before the file, for the command and for the warm server (flake8Server.ts). */
export const FLAKE8_ARGS = ['--isolated', '--select=F821,F822,F831,E111,E112,E113,E999,E902'];

const FLAKE8_COMMAND = `flake8 ${FLAKE8_ARGS.join(' ')}`;

export interface Flake8Error {
  file: string;
  line: number;
  column: number;
  problem: string;
}

const ERROR_LINE = /^(.*?):(\d+):(\d+): (.*)$/;

/**
 * A shell snippet printing flake8's findings for `path` (nothing for a file that is not `.py`).
 * flake8's output goes through a pipe, as SWE-agent captures it: on a terminal (a replay of a
 * recording made under a pty) flake8 colours every finding, no line would parse, and the guard
 * would let every broken edit through. Its stderr is dropped, as SWE-agent drops it.
 */
export function flake8Script(path: string): string {
  if (!path.endsWith('.py')) return 'true';
  return `if command -v flake8 >/dev/null 2>&1; then ${FLAKE8_COMMAND} ${shellQuote(path)} 2>/dev/null | cat; else echo ${FLAKE8_MISSING}; fi`;
}

/** Printed instead of findings when the image has no flake8. */
const FLAKE8_MISSING = '@flake8-missing';

/**
 * flake8 output lines; anything else is not an error of the file. An image without flake8 is an
 * error: SWE-agent's edit bundles install it, so its guard ran where ours could not.
 */
export function parseFlake8(output: string): Flake8Error[] {
  if (output.split('\n').some((line) => line.trim() === FLAKE8_MISSING)) {
    throw new Error(
      "the sandbox image has no flake8, so the edit tools' lint guard cannot run (SWE-agent's edit bundles install it with `pip install flake8`); use an image with flake8 on PATH",
    );
  }
  return output.split('\n').flatMap((raw) => {
    const m = ERROR_LINE.exec(raw.trim());
    return m ? [{ file: m[1] as string, line: Number(m[2]), column: Number(m[3]), problem: m[4] as string }] : [];
  });
}

const same = (a: Flake8Error, b: Flake8Error) => a.file === b.file && a.line === b.line && a.column === b.column && a.problem === b.problem;

/**
 * Errors after the edit that the edit introduced. `window` is the replaced lines (1-based,
 * inclusive) and `replacementLines` how many lines replaced them.
 */
export function introducedErrors(
  before: Flake8Error[],
  after: Flake8Error[],
  window: [number, number],
  replacementLines: number,
  /** SWE-agent 1.x also drops errors above the edit; 0.7 does not. */
  ignoreAbove = true,
): Flake8Error[] {
  if (before.length === 0) return after;
  const added = replacementLines - (window[1] - window[0] + 1);
  const excused = before.flatMap((e) => {
    if (e.line < window[0]) return [e];
    if (e.line <= window[1]) return [];
    return [{ ...e, line: e.line + added }];
  });
  return after.filter((e) => !excused.some((x) => same(e, x)) && (!ignoreAbove || e.line >= window[0]));
}

export function formatErrors(errors: Flake8Error[]): string {
  return errors.map((e) => `- ${e.problem}`).join('\n');
}

/**
 * The message of an edit the guard refused. `errorsBlock` is the "ERRORS:" part, laid out as
 * the tool version being reproduced lays it out (the blank lines around it differ).
 */
export function lintRejection(intro: string, errorsBlock: string, applied: string, original: string): string {
  return `${intro}

${errorsBlock}This is how your edit would have looked if applied
------------------------------------------------
${applied}
------------------------------------------------

This is the original code before your edit
------------------------------------------------
${original}
------------------------------------------------

Your changes have NOT been applied. Please fix your edit command and try again.
DO NOT re-run the same failed edit command. Running it again will lead to the same error.`;
}

/** The sentence every refused edit starts with. */
export const LINT_REJECTION_INTRO =
  'Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.';
