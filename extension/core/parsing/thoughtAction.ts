/**
 * SWE-agent's `thought_action` text: a discussion, then the command in a fenced block. Kept with
 * the other text parsers because its reply parser (scaffolds/swe-agent/replyFormats.ts) and the
 * reading of a chat file's text calls (core/trajectory/textCalls.ts) both split replies this way.
 */

const FENCE = /^```(\S*)\s*\n|^```\s*$/gm;

/**
 * SWE-agent's ThoughtActionParser: the last outermost fenced block is the action, the text
 * around it the thought. A bare ``` closes a block when one is open, else opens one.
 */
export function splitThoughtAction(text: string): { thought: string; action: string } | undefined {
  const open: RegExpMatchArray[] = [];
  let last: { start: RegExpMatchArray; end: RegExpMatchArray } | undefined;
  for (const fence of text.matchAll(FENCE)) {
    const closing = open.length > 0 && !fence[1];
    if (!closing) {
      if (fence[1] !== undefined) open.push(fence);
      continue;
    }
    const start = open.pop()!;
    if (open.length === 0) last = { start, end: fence };
  }
  if (!last) return undefined;
  const action = text.slice(last.start.index! + last.start[0].length, last.end.index!).replace(/\n$/, '');
  const thought = text.slice(0, last.start.index!) + text.slice(last.end.index! + last.end[0].length);
  return { thought, action };
}
