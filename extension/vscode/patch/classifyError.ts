import { CancelledError, InputError } from '../../core/errors';
import type { ProtocolError } from '../../protocol/ipc';

/** What a webview is told when a request of a patch, reward or bug view fails. */
export function classifyError(error: unknown): ProtocolError {
  if (error instanceof InputError) return { code: 'invalid-input', message: error.message };
  if (error instanceof CancelledError) return { code: 'cancelled', message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
