import { createRpcClient, type RpcClient } from './rpcClient';

/** What a view needs from its host: the protocol and a place to keep UI state. */
export interface Host extends RpcClient {
  getState(): unknown;
  setState(state: unknown): void;
}

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** The only call of acquireVsCodeApi(); views receive the Host and never touch the API. */
export function connectToVsCode(): Host {
  const api = acquireVsCodeApi();
  const client = createRpcClient((message) => api.postMessage(message));
  window.addEventListener('message', (event: MessageEvent<unknown>) => client.receive(event.data));
  return { ...client, getState: () => api.getState(), setState: (state) => api.setState(state) };
}
