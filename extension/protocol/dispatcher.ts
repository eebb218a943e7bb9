import { describeZodError, ProtocolFailure, RequestMessageSchema, safeParse, type ProtocolError, type RequestType, type ResponseMessage } from './ipc';

type AnyHandler = (params: unknown, signal: AbortSignal) => Promise<unknown>;

/** Turns an error a handler threw into what the webview is told. */
export type ErrorClassifier = (error: unknown) => ProtocolError;

/**
 * Validates inbound requests and routes them to typed handlers. Every well-formed request is
 * answered exactly once, with a result or an error; a message that is not a request at all
 * (no id to answer to) yields no response.
 */
export class RequestDispatcher {
  private readonly handlers = new Map<string, AnyHandler>();

  constructor(private readonly classify: ErrorClassifier) {}

  on<P, R>(type: RequestType<P, R>, handler: (params: P, signal: AbortSignal) => Promise<R> | R): void {
    if (this.handlers.has(type.method)) throw new Error(`a handler for '${type.method}' is already registered`);
    this.handlers.set(type.method, async (raw, signal) => {
      const parsed = safeParse(type.params, raw);
      if (!parsed.success) throw new ProtocolFailure('invalid-request', describeZodError('params', parsed.error));
      return handler(parsed.data, signal);
    });
  }

  async dispatch(message: unknown, signal: AbortSignal): Promise<ResponseMessage | undefined> {
    const request = RequestMessageSchema.safeParse(message);
    if (!request.success) return undefined;
    const { id, method, params } = request.data;
    const handler = this.handlers.get(method);
    if (!handler) return { kind: 'response', id, ok: false, error: { code: 'unknown-method', message: `unknown request '${method}'` } };
    try {
      return { kind: 'response', id, ok: true, result: await handler(params, signal) };
    } catch (error) {
      return { kind: 'response', id, ok: false, error: error instanceof ProtocolFailure ? { code: error.code, message: error.message } : this.classify(error) };
    }
  }
}
