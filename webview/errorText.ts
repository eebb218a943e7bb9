/** The message of anything thrown, for the webviews (which do not load the host's core). */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a view that failed whole shows: the stack when there is one (it is a bug to report), else the message. */
export function fatalText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
