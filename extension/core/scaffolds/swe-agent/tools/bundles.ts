/**
 * SWE-agent 1.0's bundle names (and 0.7's command files, which 0.7 demonstrations converted to
 * 1.x's format list under them) for the bundles 1.1 renamed: the tools are the same, and how
 * each version prints is the session's `sweAgentVersion`, not the bundle's name.
 */
export const BUNDLE_ALIASES: Record<string, string[]> = {
  defaults: ['windowed'],
  edit_linting: ['windowed_edit_linting'],
  edit_replace: ['windowed_edit_replace'],
  edit_rewrite: ['windowed_edit_rewrite'],
  // One review message (SUBMIT_REVIEW_MESSAGE) instead of a list: see `aciConfigForRecording`.
  review_on_submit: ['review_on_submit_m'],
};

/** Bundles that only keep state or install helpers: they add no tool. */
export const STATE_ONLY_BUNDLES = new Set(['registry', 'diff_state', 'multilingual_setup']);

/** `tools/windowed`, `/root/SWE-agent/tools/windowed/` and `windowed` all name `windowed`. */
export function bundleName(pathOrName: string): string {
  const parts = pathOrName.replace(/\/+$/, '').split('/');
  return parts[parts.length - 1] ?? pathOrName;
}
