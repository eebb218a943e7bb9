// zod/mini: the patch view's bundle carries these schemas.
import * as z from 'zod/mini';
import { requestType } from './ipc';

/**
 * The patch view's messages. The host reads the patch source (a step's diff, a submission and
 * its gold patch, a bug's two diffs) and hands the webview the diff text; the webview renders
 * it with diff2html, which escapes every piece of patch text.
 */

const PatchSectionSchema = z.object({
  /** What this diff is, e.g. `bug_inject.diff` or `Submission`. */
  label: z.string(),
  /** The unified diff text as read; '' when the source holds no change. */
  diff: z.string(),
  /** Why the diff cannot be shown (unparseable, missing), said to the person. */
  problem: z.nullable(z.string()),
});
export type PatchSection = z.infer<typeof PatchSectionSchema>;

const PatchContentSchema = z.object({
  title: z.string(),
  /** Where the patch came from (file, step), shown under the title. */
  origin: z.string(),
  sections: z.array(PatchSectionSchema),
});
export type PatchContent = z.infer<typeof PatchContentSchema>;

export const patchLoad = requestType('patch/load', z.object({}), PatchContentSchema);

/** Opens one file of one section in VS Code's own diff editor. */
export const patchOpenDiff = requestType(
  'patch/openDiff',
  z.object({ section: z.int().check(z.nonnegative()), file: z.string() }),
  z.object({ opened: z.boolean() }),
);
