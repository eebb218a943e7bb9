// zod/mini: the same schemas at a fraction of the size in every webview bundle.
import * as z from 'zod/mini';
// The one zod-issue wording, from the core's dependency-free root file; the webviews get it from here.
export { describeZodError } from '../core/errors';

/**
 * The envelope every webview speaks: requests (webview -> host) answered by exactly one
 * response correlated by id, and notifications (either way) that expect none. Each message
 * kind is named `scope/verb` and carries named fields only.
 */

const PROTOCOL_ERROR_CODES = ['invalid-request', 'unknown-method', 'invalid-input', 'not-found', 'cancelled', 'internal'] as const;
export const ProtocolErrorSchema = z.object({ code: z.enum(PROTOCOL_ERROR_CODES), message: z.string() });
export type ProtocolError = z.infer<typeof ProtocolErrorSchema>;

const MessageId = z.int().check(z.nonnegative());

export const RequestMessageSchema = z.object({
  kind: z.literal('request'),
  id: MessageId,
  method: z.string(),
  params: z.unknown(),
});
type RequestMessage = z.infer<typeof RequestMessageSchema>;

export const ResponseMessageSchema = z.discriminatedUnion('ok', [
  z.object({ kind: z.literal('response'), id: MessageId, ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal('response'), id: MessageId, ok: z.literal(false), error: ProtocolErrorSchema }),
]);
export type ResponseMessage = z.infer<typeof ResponseMessageSchema>;

export const NotificationMessageSchema = z.object({
  kind: z.literal('notification'),
  method: z.string(),
  params: z.unknown(),
});
type NotificationMessage = z.infer<typeof NotificationMessageSchema>;

export interface RequestType<P, R> {
  readonly method: string;
  readonly params: z.core.$ZodType<P>;
  readonly result: z.core.$ZodType<R>;
}

export interface NotificationType<P> {
  readonly method: string;
  readonly params: z.core.$ZodType<P>;
}

export function requestType<P, R>(method: string, params: z.core.$ZodType<P>, result: z.core.$ZodType<R>): RequestType<P, R> {
  return { method, params, result };
}

export function notificationType<P>(method: string, params: z.core.$ZodType<P>): NotificationType<P> {
  return { method, params };
}

/** Parses with any zod 4 schema, classic or mini. */
export function safeParse<T>(
  schema: z.core.$ZodType<T>,
  value: unknown,
):
  | { success: true; data: T }
  | { success: false; error: { readonly issues: ReadonlyArray<{ readonly path: ReadonlyArray<PropertyKey>; readonly message: string }> } } {
  return z.safeParse(schema, value);
}

/** Raised by a request handler to answer with a specific error code. */
export class ProtocolFailure extends Error {
  constructor(
    readonly code: ProtocolError['code'],
    message: string,
  ) {
    super(message);
  }
}
