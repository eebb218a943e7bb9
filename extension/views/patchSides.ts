import type { FilePatch, Hunk } from '../core/diff/unifiedDiff';

export interface PatchSides {
  before: string;
  after: string;
}

const body = (h: Hunk, keep: ' ' | '-' | '+') => h.lines.filter((l) => l[0] === ' ' || l[0] === keep).map((l) => l.slice(1));

/**
 * The two sides of one file as far as its hunks tell. Lines the patch does not show are left
 * blank, so each kept line sits at its real line number in the diff editor.
 */
export function sidesFromHunks(patch: FilePatch): PatchSides {
  const side = (keep: '-' | '+', start: (h: Hunk) => number) => {
    const out: string[] = [];
    for (const h of patch.hunks) {
      while (out.length < start(h) - 1) out.push('');
      out.push(...body(h, keep));
    }
    return out.join('\n');
  };
  return { before: side('-', (h) => h.oldStart), after: side('+', (h) => h.newStart) };
}

/**
 * Applies the file's hunks to its full text; undefined when a hunk's old lines are not where
 * its header says (the file is not the one the patch was made against). No fuzz, as `git apply`.
 */
export function applyHunks(text: string, patch: FilePatch): string | undefined {
  const lines = text.split('\n');
  let offset = 0;
  for (const h of patch.hunks) {
    const old = body(h, '-');
    // `-5,0` inserts after line 5; `-0,0` (a new file) at the top.
    const at = (h.oldLines === 0 ? h.oldStart : h.oldStart - 1) + offset;
    if (old.some((line, i) => lines[at + i] !== line)) return undefined;
    const added = body(h, '+');
    lines.splice(at, old.length, ...added);
    offset += added.length - old.length;
  }
  return lines.join('\n');
}
