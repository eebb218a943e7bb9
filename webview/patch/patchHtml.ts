import { html, parse } from 'diff2html';

export type PatchLayout = 'side-by-side' | 'line-by-line';

interface PatchFileSummary {
  /** The path after the change, or before it for a deleted file. */
  name: string;
  added: number;
  deleted: number;
}

export type RenderedPatch = { kind: 'rendered'; html: string; files: PatchFileSummary[] } | { kind: 'problem'; message: string };

/**
 * Renders a unified diff with diff2html. Its templates escape every piece of patch text (paths,
 * hunk sections, lines), so the markup it returns is the only generated HTML a webview takes.
 */
export function renderPatch(diff: string, layout: PatchLayout): RenderedPatch {
  if (diff.trim() === '') return { kind: 'problem', message: 'The patch is empty: it holds no change.' };
  const files = parse(diff);
  if (files.length === 0)
    return { kind: 'problem', message: `Not a unified diff: no 'diff --git' or '--- a/… +++ b/…' header was found in its ${diff.split('\n').length} lines.` };
  return {
    kind: 'rendered',
    html: html(files, { outputFormat: layout, drawFileList: false, matching: 'lines' }),
    files: files.map((f) => ({ name: f.isDeleted ? f.oldName : f.newName, added: f.addedLines, deleted: f.deletedLines })),
  };
}
