import { parseUnifiedDiff, type FilePatch, type Hunk } from '../core/diff/unifiedDiff';
import { errorText } from '../core/errors';
import type { PatchSection } from '../protocol/patch';

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

/** A section whose diff the core's strict parser reads; otherwise its error is what the view says. */
export function patchSection(label: string, diff: string | undefined, where: string): PatchSection {
  if (diff === undefined) return { label, diff: '', problem: `${where} holds no ${label.toLowerCase()}.` };
  if (diff.trim() === '') return { label, diff, problem: `${where}: the ${label.toLowerCase()} is empty: it holds no change.` };
  try {
    if (parseUnifiedDiff(diff, where).length === 0)
      return { label, diff, problem: `${where}: not a unified diff: no file header ('diff --git' or '--- a/…' / '+++ b/…') was found.` };
    return { label, diff, problem: null };
  } catch (error) {
    return { label, diff, problem: errorText(error) };
  }
}
