import {
  NotificationMessageSchema,
  ResponseMessageSchema,
  describeZodError,
  safeParse,
  type NotificationType,
  type ProtocolError,
  type RequestType,
} from '../extension/protocol/ipc';

class RequestError extends Error {
  constructor(
    readonly code: ProtocolError['code'],
    message: string,
  ) {
    super(message);
  }
}

export interface RpcClient {
  request<P, R>(type: RequestType<P, R>, params: P): Promise<R>;
  onNotification<P>(type: NotificationType<P>, handler: (params: P) => void): void;
  /** Feeds one message from the host; unknown messages are ignored. */
  receive(message: unknown): void;
}

/** Correlates requests with responses by id and checks each reply against its schema. */
export function createRpcClient(post: (message: unknown) => void): RpcClient {
  let nextId = 1;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Map<string, (params: unknown) => void>();

  return {
    request<P, R>(type: RequestType<P, R>, params: P): Promise<R> {
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        pending.set(id, {
          resolve: (result) => {
            const parsed = safeParse(type.result, result);
            if (parsed.success) resolve(parsed.data);
            else reject(new RequestError('invalid-request', `reply to ${type.method}: ${describeZodError('result', parsed.error)}`));
          },
          reject,
        });
        post({ kind: 'request', id, method: type.method, params });
      });
    },
    onNotification<P>(type: NotificationType<P>, handler: (params: P) => void): void {
      listeners.set(type.method, (raw) => {
        const parsed = safeParse(type.params, raw);
        if (parsed.success) handler(parsed.data);
      });
    },
    receive(message: unknown): void {
      const response = ResponseMessageSchema.safeParse(message);
      if (response.success) {
        const waiter = pending.get(response.data.id);
        pending.delete(response.data.id);
        if (!waiter) return;
        if (response.data.ok) waiter.resolve(response.data.result);
        else waiter.reject(new RequestError(response.data.error.code, response.data.error.message));
        return;
      }
      const notification = NotificationMessageSchema.safeParse(message);
      if (notification.success) listeners.get(notification.data.method)?.(notification.data.params);
    },
  };
}
