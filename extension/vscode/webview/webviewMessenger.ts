import type * as vscode from 'vscode';
import { RequestDispatcher, type ErrorClassifier } from '../../protocol/dispatcher';
import type { NotificationType, RequestType, ResponseMessage } from '../../protocol/ipc';
import { Disposable } from '../dispose';

/** The host's end of one webview's protocol: answers its requests and sends it notifications. */
export class WebviewMessenger extends Disposable {
  private readonly dispatcher: RequestDispatcher;
  private readonly controller = new AbortController();

  constructor(
    private readonly webview: vscode.Webview,
    private readonly log: vscode.LogOutputChannel,
    classify: ErrorClassifier,
  ) {
    super();
    this.dispatcher = new RequestDispatcher(classify);
    this._register(webview.onDidReceiveMessage((message: unknown) => void this.receive(message)));
    this._register({ dispose: () => this.controller.abort('the view was closed') });
  }

  onRequest<P, R>(type: RequestType<P, R>, handler: (params: P, signal: AbortSignal) => Promise<R> | R): void {
    this.dispatcher.on(type, handler);
  }

  notify<P>(type: NotificationType<P>, params: P): void {
    void this.webview.postMessage({ kind: 'notification', method: type.method, params });
  }

  /** Answers one message as if the webview had sent it; also the path of every real message. */
  async receive(message: unknown): Promise<ResponseMessage | undefined> {
    const response = await this.dispatcher.dispatch(message, this.controller.signal);
    if (!response) {
      this.log.warn('webview sent a message that is not a request', message);
      return undefined;
    }
    if (!response.ok) this.log.warn(`request ${response.id} failed: ${response.error.code}: ${response.error.message}`);
    if (!this.isDisposed) void this.webview.postMessage(response);
    return response;
  }
}
