import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import * as vscode from 'vscode';
import {
  LanguageClient,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeParams,
  type LanguageClientOptions,
  type MessageTransports,
} from 'vscode-languageclient/node';
import { CONTAINER_NODE_PATH, CONTAINER_PYRIGHT_PATH, fileUri, pyrightFor, uriPath } from '../../core/aci/lspServer';
import type { Sandbox, SandboxProcess } from '../../core/runtime/sandbox';
import { CONTAINER_SCHEME, containerUri } from './containerFileSystem';
import { errorText } from '../../core/errors';

/**
 * A client whose server runs in the container. The node client names the extension host's pid
 * as the server's parent, and Pyright exits within seconds when that pid names no process, as in
 * the container's own pid namespace: it crashed five times in a row and was not restarted. The
 * server's life is the client's and the container's, so it is told of no parent.
 */
class ContainerLanguageClient extends LanguageClient {
  protected override fillInitializeParams(params: InitializeParams): void {
    super.fillInitializeParams(params);
    params.processId = null;
  }
}

/**
 * Go to definition, hover and references for the person in `swe-container:` Python files, from
 * a Pyright running inside the container. The agent's Pyright (`pyrightFor`) has already sent
 * `initialize`, and a language client must own its server's lifecycle, so the client gets a
 * second server process from the same installed files; URIs are mapped between the
 * container's `file:` paths and `swe-container:` on the way through.
 */
export async function startContainerLanguageClient(sandbox: Sandbox, log: vscode.LogOutputChannel): Promise<{ stop(): Promise<void> }> {
  // Installs node and Pyright in the container once; the agent's tools share that server.
  await pyrightFor(sandbox);
  let server: SandboxProcess | undefined;
  const transports = async (): Promise<MessageTransports> => {
    server = await sandbox.spawn([CONTAINER_NODE_PATH, path.posix.join(CONTAINER_PYRIGHT_PATH, 'langserver.index.js'), '--stdio'], { cwd: sandbox.repoPath });
    server.stderr.on('data', (chunk: Buffer) => log.debug(`pyright: ${chunk.toString().trimEnd()}`));
    return { reader: new StreamMessageReader(server.stdout as Readable), writer: new StreamMessageWriter(server.stdin as Writable) };
  };
  const root = containerUri(sandbox, sandbox.repoPath);
  const options: LanguageClientOptions = {
    documentSelector: [{ scheme: CONTAINER_SCHEME, language: 'python' }],
    workspaceFolder: { uri: root, name: path.posix.basename(sandbox.repoPath) || 'repo', index: 0 },
    outputChannel: log,
    uriConverters: {
      code2Protocol: (uri) => (uri.scheme === CONTAINER_SCHEME && uri.authority === root.authority ? fileUri(uri.path) : uri.toString()),
      protocol2Code: (value) => (value.startsWith('file://') ? containerUri(sandbox, uriPath(value)) : vscode.Uri.parse(value)),
    },
    synchronize: {},
  };
  const client = new ContainerLanguageClient('sweWorkbench.containerPyright', 'Pyright in the container', transports, options);
  await client.start();
  log.info(`Pyright language client started in container ${sandbox.id.slice(0, 12)}`);
  return {
    stop: async () => {
      await client.stop(3000).catch((error: unknown) => log.warn(`Pyright language client did not stop cleanly: ${errorText(error)}`));
      await server?.kill();
    },
  };
}
