/**
 * The first line of the document a person types the next action in: which step, the
 * scaffold, and the syntax (each tool's command line as the agent writes it). The line is a
 * comment the session drops before reading the action, so saving the document as shown runs
 * only what was typed.
 */
import type { ToolSet } from '../aci/toolRegistry';

const HINT_MARK = '# SWE Workbench: ';

/** One comment line: `# SWE Workbench: step 6 (swe-agent@1.0), one action in its syntax: open "<path>" [<line_number>] | ... ; save to run it`. */
export function nextActionHint(index: number, scaffold: string, tools: Pick<ToolSet, 'tools'>): string {
  const syntax = [...tools.tools.values()].map((t) => t.signature.split('\n')[0]!.trim()).filter(Boolean);
  const shown = syntax.length > 8 ? [...syntax.slice(0, 8), '…'] : syntax;
  return `${HINT_MARK}step ${index + 1} (${scaffold}), one action in its syntax: ${shown.join(' | ')}; save to run it`;
}

/**
 * The line that replaces the hint once the session has ended: the step it named will not run,
 * so the document no longer asks for it (`# SWE Workbench: fork of run.traj after step 2
 * finished (submitted); nothing saved here runs: start a fork by hand to continue`).
 */
export function endedHint(session: string, how: string): string {
  return `${HINT_MARK}${session} ${how}; nothing saved here runs: start a fork by hand to continue`;
}

/** The typed action without the hint line(s) this module wrote. */
export function withoutHint(text: string): string {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[0]!.startsWith(HINT_MARK)) lines.shift();
  return lines.join('\n');
}

/** Whether `text` holds nothing but the hint (nothing typed yet). */
export function isOnlyHint(text: string): boolean {
  return withoutHint(text).trim() === '';
}
