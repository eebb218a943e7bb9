/**
 * SWE-agent's own tool settings, carried in the host's settings (`AciConfig`) without the host
 * knowing them: the viewer's WINDOW and OVERLAP, `review_on_submit_m`'s messages, the editor's
 * USE_FILEMAP, the lint guard's warm flake8. A recording's values come from `recordingConfig.ts`.
 */
import type { AciConfig } from '../../../aci/toolDefinition';

declare module '../../../aci/toolDefinition' {
  interface AciConfig {
    /** Lines in the viewer's window (SWE-agent's WINDOW); default 100. */
    window?: number;
    /** Lines kept when scrolling (SWE-agent's OVERLAP); default 2. */
    overlap?: number;
    /** Messages `review_on_submit_m` shows before the real submission (`{{diff}}` is replaced). */
    submitReviewMessages?: string[];
    /** str_replace_editor shows long Python files with function bodies elided (SWE-agent's USE_FILEMAP). */
    useFilemap?: boolean;
    /**
     * The lint guard checks Python edits in a warm flake8 process kept in a Docker sandbox
     * (`flake8Server.ts`); false runs the flake8 command before and after each edit. Default: true.
     */
    warmLinter?: boolean;
  }
}

/** SWE-agent's defaults (its `tools/windowed` config). */
const DEFAULT_WINDOW = 100;
const DEFAULT_OVERLAP = 2;

/** The viewer's window, in lines. */
export function windowOf(config: AciConfig): number {
  return config.window ?? DEFAULT_WINDOW;
}

/** The lines a scroll keeps. */
export function overlapOf(config: AciConfig): number {
  return config.overlap ?? DEFAULT_OVERLAP;
}
