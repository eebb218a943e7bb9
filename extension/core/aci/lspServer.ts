import { existsSync } from 'node:fs';
import path from 'node:path';
import { CancellationTokenSource, createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { z } from 'zod';
import { CancelledError, InputError, throwIfAborted } from '../errors';
import type { Mount, Sandbox, SandboxProcess } from '../runtime/sandbox';
import { shellQuote } from '../parsing/shellWords';

/**
 * Pyright's language server running inside a sandbox, spoken to over the stdio of a spawned
 * process. The host's `node` binary and this program's Pyright are bind-mounted read-only into a
 * container (or copied in once when the engine is remote), so images need no Node of their own.
 */

export const CONTAINER_NODE_PATH = '/opt/swe-workbench/node';
export const CONTAINER_PYRIGHT_PATH = '/opt/swe-workbench/pyright';

export interface PyrightPaths {
  /** The `node` executable. */
  node: string;
  /** Pyright's package folder (holds `langserver.index.js` and `package.json`). */
  pyright: string;
}

/**
 * The folder beside a bundle that holds its own Pyright: scripts/build.mjs copies the npm package
 * there. Named node_modules so vsce treats it as the third-party code it is (it scans the
 * extension's own files for secrets, which for Pyright's 5,400 files takes many minutes).
 */
const CARRIED_PYRIGHT_FOLDER = 'node_modules/pyright';

/** Where this program's Pyright is, and whether the program carries it or runs from its sources. */
export interface PyrightLocation {
  folder: string;
  /** `carried`: beside the bundle (the installed extension, `dist/cli.js`); `npm`: the package in node_modules (run from the sources). */
  from: 'carried' | 'npm';
}

/**
 * Where Pyright is for the code in `moduleFile`. A bundle (`dist/extension.js` as installed from
 * the .vsix, `dist/cli.js`) uses the copy it carries beside it, `dist/node_modules/pyright`, and
 * nothing else: an installed extension has no other node_modules in reach, so a bundle that looked
 * further up would work only inside a checkout. Code run from its sources (tests, tsx) uses the npm package.
 */
export function locatePyright(moduleFile: string = __filename): PyrightLocation {
  if (!moduleFile.endsWith('.ts')) return { folder: path.join(path.dirname(moduleFile), CARRIED_PYRIGHT_FOLDER), from: 'carried' };
  return { folder: path.dirname(require.resolve('pyright/package.json')), from: 'npm' };
}

/** Pyright's folder, or an error that says what is missing and how an extension's user gets it back. */
export function pyrightFolder(moduleFile: string = __filename): string {
  const { folder, from } = locatePyright(moduleFile);
  const server = path.join(folder, 'langserver.index.js');
  if (!existsSync(server) || !existsSync(path.join(folder, 'package.json')))
    throw new Error(
      from === 'carried'
        ? `this installation of SWE Workbench has no Pyright: ${server} is missing`
        : `the pyright npm package is incomplete: ${server} is missing`,
    );
  return folder;
}

/** The host's node and this program's Pyright, for the container's mounts or copies. */
function hostPyrightPaths(): PyrightPaths {
  return { node: process.execPath, pyright: pyrightFolder() };
}

/** Read-only mounts for `SandboxOptions.mounts` that make Pyright available in a container. */
export function pyrightMounts(host: PyrightPaths = hostPyrightPaths()): Mount[] {
  return [
    { hostPath: host.node, containerPath: CONTAINER_NODE_PATH, readOnly: true },
    { hostPath: host.pyright, containerPath: CONTAINER_PYRIGHT_PATH, readOnly: true },
  ];
}

export interface PyrightOptions {
  host?: PyrightPaths;
  /** A request not answered in this time fails (default 120 s: a first `references` reads every file). */
  requestTimeoutMs?: number;
  signal?: AbortSignal;
}

export function fileUri(absolutePath: string): string {
  return 'file://' + absolutePath.split('/').map(encodeURIComponent).join('/');
}

export function uriPath(uri: string): string {
  return decodeURIComponent(uri.replace(/^file:\/\//, ''));
}

const ANALYSIS_SETTINGS: Record<string, unknown> = {
  python: {},
  'python.analysis': { logLevel: 'Information', diagnosticMode: 'openFilesOnly', typeCheckingMode: 'off', autoSearchPaths: true, useLibraryCodeForTypes: true },
  pyright: {},
};

/** What Pyright logs when it has listed the workspace's source files (its SourceEnumerator). */
const SOURCES_LISTED = /^(Found \d+ source files?|No source files found\.)$/m;
const logMessage = z.object({ message: z.string() }).loose();

const configurationRequest = z.object({ items: z.array(z.object({ section: z.string().optional() }).loose()) }).loose();

/**
 * Python sources whose edits Pyright must hear about: `mtime size path` lines from `find`,
 * skipping the folders Pyright itself leaves out (hidden ones, node_modules, caches).
 */
function scanScript(repoPath: string): string {
  return (
    `(find ${shellQuote(repoPath)} -mindepth 1 -type d \\( -name '.*' -o -name node_modules -o -name __pycache__ \\) -prune -o ` +
    `-type f \\( -name '*.py' -o -name '*.pyi' \\) -printf '%T@ %s %p\\n' 2>/dev/null)`
  );
}

/** LSP FileChangeType. */
const FILE_CREATED = 1;
const FILE_CHANGED = 2;
const FILE_DELETED = 3;
const RELISTING_GRACE_MS = 10_000;

/** Open documents beyond this many are closed, oldest first, so Pyright falls back to the disk. */
const MAX_OPEN_DOCUMENTS = 24;
const STDERR_TAIL_BYTES = 4096;

export class PyrightServer {
  private readonly openDocuments = new Map<string, { version: number; text: string }>();
  private fileStamps: Map<string, string> | undefined;
  private scanWorks = true;
  private stderrTail = '';
  private exitCode: number | undefined;
  private disposed = false;
  private markSourcesListed: () => void = () => undefined;
  private sourcesListed = this.expectListing(true);

  private constructor(
    readonly sandbox: Sandbox,
    /** The JSON-RPC connection, for a language client that wants to share this server. */
    readonly connection: MessageConnection,
    private readonly process: SandboxProcess,
    private readonly requestTimeoutMs: number,
  ) {
    process.stderr.on('data', (chunk: Buffer | string) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_BYTES);
    });
    void process.exited.then((code) => {
      this.exitCode = code;
    });
  }

  static async start(sandbox: Sandbox, options: PyrightOptions = {}): Promise<PyrightServer> {
    const paths = await installPyright(sandbox, options.host ?? hostPyrightPaths(), options.signal);
    const child = await sandbox.spawn([paths.node, path.posix.join(paths.pyright, 'langserver.index.js'), '--stdio'], {
      cwd: sandbox.repoPath,
    });
    const connection = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const server = new PyrightServer(sandbox, connection, child, options.requestTimeoutMs ?? 120_000);
    connection.onRequest('workspace/configuration', (params: unknown) =>
      configurationRequest.parse(params).items.map((item) => ANALYSIS_SETTINGS[item.section ?? ''] ?? null),
    );
    // Pyright also asks to register watchers and progress tokens; it only needs an answer.
    connection.onRequest(() => null);
    connection.onNotification('window/logMessage', (params: unknown) => {
      if (SOURCES_LISTED.test(logMessage.safeParse(params).data?.message ?? '')) server.markSourcesListed();
    });
    connection.onNotification(() => undefined);
    connection.listen();
    try {
      await server.request('initialize', initializeParams(sandbox.repoPath), z.object({ capabilities: z.object({}).loose() }).loose(), options.signal);
      await connection.sendNotification('initialized', {});
    } catch (error) {
      await server.dispose();
      throw error;
    }
    return server;
  }

  /** Resolves with the server process's exit code. */
  get exited(): Promise<number> {
    return this.process.exited;
  }

  get alive(): boolean {
    return !this.disposed && this.exitCode === undefined;
  }

  /**
   * Sends a request and checks the reply's shape. Fails on timeout, on abort (the request is
   * cancelled on the server too) and when the server process ends.
   */
  async request<T>(method: string, params: unknown, reply: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    if (!this.alive) throw this.deadError(`answering ${method}`);
    const source = new CancellationTokenSource();
    try {
      const answer = await this.bounded(this.connection.sendRequest(method, params, source.token), `answering ${method}`, signal);
      const parsed = reply.safeParse(answer);
      if (!parsed.success) throw new InputError('Pyright', method, `unexpected reply: ${z.prettifyError(parsed.error)}`);
      return parsed.data;
    } catch (error) {
      source.cancel();
      throw error;
    } finally {
      source.dispose();
    }
  }

  /**
   * Waits until Pyright has listed the workspace's source files: it lists them a chunk at a
   * time after starting, and `workspace/symbol` meanwhile answers from the part it has.
   */
  workspaceReady(signal?: AbortSignal): Promise<void> {
    const { done, first } = this.sourcesListed;
    // A file created outside Pyright's include brings no new listing: stop waiting after a while.
    const wait = first ? done : Promise.race([done, new Promise<void>((ok) => setTimeout(ok, RELISTING_GRACE_MS).unref())]);
    return this.bounded(wait, "listing the workspace's files", signal);
  }

  /** Pyright lists the files again (after a debounce of about 1.5 s) when one is created or deleted. */
  private expectListing(first: boolean): { done: Promise<void>; first: boolean } {
    const done = new Promise<void>((ok) => {
      this.markSourcesListed = ok;
    });
    return { done, first };
  }

  /** `work`, unless the signal aborts, the time limit passes or the server dies first. */
  private async bounded<T>(work: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
    throwIfAborted(signal);
    let stop: (error: Error) => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    const onAbort = () => stop(new CancelledError(`cancelled while Pyright was ${what}`));
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => stop(new Error(`Pyright timed out ${what} after ${this.requestTimeoutMs} ms`)), this.requestTimeoutMs);
    const died = this.process.exited.then(() => {
      throw this.deadError(what);
    });
    died.catch(() => undefined);
    try {
      return await Promise.race([work, stopped, died]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Makes Pyright see `text` as the current content of the file at `absolutePath`. */
  async syncDocument(absolutePath: string, text: string, signal?: AbortSignal): Promise<void> {
    await this.notifyChangedFiles(signal);
    const uri = fileUri(absolutePath);
    const open = this.openDocuments.get(uri);
    this.openDocuments.delete(uri);
    if (open === undefined) {
      await this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
      this.openDocuments.set(uri, { version: 1, text });
    } else if (open.text !== text) {
      const version = open.version + 1;
      await this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
      this.openDocuments.set(uri, { version, text });
    } else {
      this.openDocuments.set(uri, open);
    }
    for (const oldest of [...this.openDocuments.keys()].slice(0, Math.max(0, this.openDocuments.size - MAX_OPEN_DOCUMENTS))) {
      await this.closeDocument(oldest);
    }
  }

  /**
   * Tells Pyright which Python files were created, changed or deleted since the last call, as
   * a client's file watcher would: the agent edits files behind the server's back.
   */
  async notifyChangedFiles(signal?: AbortSignal): Promise<void> {
    if (!this.scanWorks) return;
    const scan = await this.sandbox.exec(scanScript(this.sandbox.repoPath), { maxOutputBytes: 64 * 1024 * 1024, ...(signal ? { signal } : {}) });
    if (scan.exitCode !== 0 || scan.truncatedBytes > 0) {
      this.scanWorks = false;
      return;
    }
    const stamps = new Map<string, string>();
    for (const line of scan.output.replace(/\r\n/g, '\n').split('\n')) {
      const match = /^(\S+ \d+) (\/.*)$/.exec(line);
      if (match) stamps.set(match[2] as string, match[1] as string);
    }
    const previous = this.fileStamps;
    this.fileStamps = stamps;
    if (previous === undefined) return;
    const changes: { uri: string; type: number }[] = [];
    for (const [file, stamp] of stamps) {
      const before = previous.get(file);
      if (before !== stamp) changes.push({ uri: fileUri(file), type: before === undefined ? FILE_CREATED : FILE_CHANGED });
    }
    for (const file of previous.keys()) if (!stamps.has(file)) changes.push({ uri: fileUri(file), type: FILE_DELETED });
    if (changes.length === 0) return;
    for (const change of changes) if (this.openDocuments.has(change.uri)) await this.closeDocument(change.uri);
    if (changes.some((change) => change.type !== FILE_CHANGED)) this.sourcesListed = this.expectListing(false);
    await this.connection.sendNotification('workspace/didChangeWatchedFiles', { changes });
  }

  private async closeDocument(uri: string): Promise<void> {
    this.openDocuments.delete(uri);
    await this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  private deadError(what: string): Error {
    const why = this.disposed ? 'was shut down' : `exited with code ${this.exitCode ?? '?'}`;
    const tail = this.stderrTail.trim();
    return new Error(`Pyright ${why} before ${what}${tail ? `; its last output:\n${tail}` : ''}`);
  }

  /** Asks the server to shut down, then makes sure its process is gone. Safe to call twice. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    const wasAlive = this.alive;
    this.disposed = true;
    if (wasAlive) {
      const grace = new Promise<void>((done) => setTimeout(done, 3000).unref());
      try {
        await Promise.race([this.connection.sendRequest('shutdown'), grace]);
        await this.connection.sendNotification('exit');
      } catch {
        // A server that cannot shut down cleanly is killed below.
      }
      await Promise.race([this.process.exited, grace]);
    }
    await this.process.kill();
    this.connection.dispose();
  }
}

function initializeParams(repoPath: string): Record<string, unknown> {
  return {
    processId: null,
    rootUri: fileUri(repoPath),
    workspaceFolders: [{ uri: fileUri(repoPath), name: path.posix.basename(repoPath) || 'repo' }],
    capabilities: {
      textDocument: {
        synchronization: { didSave: false },
        definition: { linkSupport: false },
        references: {},
        hover: { contentFormat: ['markdown', 'plaintext'] },
        documentSymbol: { hierarchicalDocumentSymbolSupport: true },
      },
      workspace: { workspaceFolders: true, configuration: true, didChangeWatchedFiles: { dynamicRegistration: true }, symbol: {} },
    },
  };
}

/**
 * Where node and Pyright are inside the sandbox. A container started without the mounts (a
 * remote engine) gets them copied in, once; the node binary must run against the image's libc.
 */
async function installPyright(sandbox: Sandbox, host: PyrightPaths, signal?: AbortSignal): Promise<PyrightPaths> {
  if (sandbox.kind === 'local') return host;
  const inside = { node: CONTAINER_NODE_PATH, pyright: CONTAINER_PYRIGHT_PATH };
  const run = (script: string) => sandbox.exec(`(${script})`, { timeoutMs: 30_000, ...(signal ? { signal } : {}) });
  const present = async (test: string) => (await run(`${test} && echo @present || echo @absent`)).output.includes('@present');
  if (!(await present(`[ -x ${inside.node} ]`))) await sandbox.copyIn(host.node, inside.node);
  const version = await run(`${inside.node} --version 2>&1`);
  if (version.exitCode !== 0 || !/^v\d+\./m.test(version.output)) {
    throw new Error(
      `the host's node (${host.node}) cannot run in this sandbox, so Pyright cannot start: ${version.output.trim() || `exit code ${version.exitCode}`}`,
    );
  }
  if (!(await present(`[ -f ${inside.pyright}/langserver.index.js ]`))) await sandbox.copyIn(host.pyright, inside.pyright);
  throwIfAborted(signal);
  return inside;
}

const servers = new WeakMap<Sandbox, Promise<PyrightServer>>();

/** The sandbox's Pyright server: started on first use, reused after, restarted if it died. */
export async function pyrightFor(sandbox: Sandbox, options: PyrightOptions = {}): Promise<PyrightServer> {
  const current = servers.get(sandbox);
  if (current) {
    const server = await current.catch(() => undefined);
    if (server?.alive) return server;
    if (servers.get(sandbox) !== current) return pyrightFor(sandbox, options);
  }
  const starting = PyrightServer.start(sandbox, options);
  servers.set(sandbox, starting);
  starting.catch(() => {
    if (servers.get(sandbox) === starting) servers.delete(sandbox);
  });
  return starting;
}

/** Shuts down the sandbox's Pyright server, if one was started; call before disposing the sandbox. */
export async function disposePyright(sandbox: Sandbox): Promise<void> {
  const current = servers.get(sandbox);
  servers.delete(sandbox);
  const server = await current?.catch(() => undefined);
  await server?.dispose();
}
