/**
 * An error about input from outside (a file, a reply, a message) that says what was wrong
 * and where: the file, a JSON path or a line, and what was expected there.
 */
export class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly file: string | undefined,
    readonly where: string | undefined,
    readonly problem: string,
  ) {
    super([file, where].filter(Boolean).join(': ') + (file || where ? ': ' : '') + problem);
  }
}

/** Formats a JSON path such as `$.trajectory[3].action` from its parts. */
export function jsonPath(parts: ReadonlyArray<string | number>): string {
  let out = '$';
  for (const p of parts) out += typeof p === 'number' ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`;
  return out;
}

/** Thrown when work is cancelled through an AbortSignal. */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  constructor(message = 'cancelled') {
    super(message);
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError(typeof signal.reason === 'string' ? signal.reason : 'cancelled');
}

/** The message of anything thrown: an Error's message, else its text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How a failure is told to a caller that asked for something: bad input, cancelled, or our fault. */
export interface ClassifiedError {
  code: 'invalid-input' | 'cancelled' | 'internal';
  message: string;
}

/** The one classification of failures: webview requests answer with it, the CLI picks its exit code by it. */
export function classifyError(error: unknown): ClassifiedError {
  if (error instanceof InputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof CancelledError) return { code: 'cancelled', message: error.message };
  return { code: 'internal', message: errorText(error) };
}

/**
 * Describes a zod failure, every issue by its path: `params.start: expected number; params.end: ...`.
 * `where` is the name the path hangs from (`params`, `$`), or a function naming a dotted path
 * ('' for the value itself) the way the caller's reader would.
 */
export function describeZodError(
  where: string | ((path: string) => string),
  error: { readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> },
): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.');
      return `${typeof where === 'string' ? [where, path].filter((p) => p !== '').join('.') : where(path)}: ${issue.message}`;
    })
    .join('; ');
}
