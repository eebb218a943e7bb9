/** The message of anything thrown, for the webviews (which do not load the host's core). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
