/**
 * A sandbox's image lacks what a scaffold's tools need, and another image has it (R2E-Gym's tools
 * need its interpreter): the error names that image, so a front end can offer it by name.
 */
export class NeedsImageError extends Error {
  override readonly name = 'NeedsImageError';
  constructor(
    /** The image that has what is missing. */
    readonly image: string,
    /** The tools and what they need, in words for the person (`R2E-Gym's tools, which need /root/.venv/bin/python`). */
    readonly needs: string,
    message: string,
  ) {
    super(message);
  }
}

/** The NeedsImageError in `error` or its causes, if any. */
export function neededImageOf(error: unknown): NeedsImageError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    // By name too: an error from another copy of this module (a bundle's) is the same error.
    if (e instanceof NeedsImageError || (e instanceof Error && e.name === 'NeedsImageError' && typeof (e as { image?: unknown }).image === 'string'))
      return e as NeedsImageError;
  }
  return undefined;
}
