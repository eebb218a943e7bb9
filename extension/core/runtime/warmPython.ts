import { createInterface } from 'node:readline';
import type { Sandbox, SandboxProcess } from './sandbox';

/**
 * A long-lived Python process in a sandbox that answers JSON-line requests over its stdio, so a
 * request costs one round trip instead of a Python start-up (the lint guard's warm flake8,
 * R2E-Gym's warm tools). The server's first line is {"ready": ...} (the whole line is kept as
 * `hello`), or {"unusable": "<why>"} before it exits. Each request carries an `id`; its answer
 * is the JSON object with that `id`.
 */

/** The request was not answered within its time; the process has been stopped. */
export class WarmPythonTimeout extends Error {}

/** The process ended (or was stopped) before answering. */
class WarmPythonEnded extends Error {}

interface Pending {
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

export class WarmPython {
  private nextId = 0;
  /** Requests answered so far. */
  answered = 0;
  private readonly pending = new Map<number, Pending>();
  private ended = false;

  private constructor(
    private readonly process: SandboxProcess,
    /** The server's first line. */
    readonly hello: Record<string, unknown>,
    lines: AsyncIterableIterator<string>,
  ) {
    void (async () => {
      try {
        for await (const line of lines) this.settle(line);
      } catch {
        // the stream broke: the process is gone
      }
      this.end(new WarmPythonEnded(`${describe(this.hello)} ended`));
    })();
    void process.exited.then(() => this.end(new WarmPythonEnded(`${describe(this.hello)} ended`)));
  }

  /**
   * Spawns `argv` (a Python running a server) and waits for its first line; the reason it cannot
   * serve when it says it is unusable, prints something else or dies first.
   */
  static async start(sandbox: Sandbox, argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<WarmPython | string> {
    const child = await sandbox.spawn(argv, options);
    child.stderr.resume();
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]();
    const first = await Promise.race([lines.next(), child.exited.then(() => undefined)]);
    const hello = first && !first.done ? parseJsonObject(first.value) : undefined;
    if (hello && hello.ready !== undefined) return new WarmPython(child, hello, lines);
    await child.kill().catch(() => undefined);
    if (hello && typeof hello.unusable === 'string') return hello.unusable;
    return `${argv[0]} did not start the server`;
  }

  get alive(): boolean {
    return !this.ended;
  }

  /**
   * Sends `message` (an `id` is added) and resolves with the answer. Not answered within
   * `timeoutMs`: rejects with WarmPythonTimeout and stops the process (callers start another).
   */
  request(message: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new WarmPythonEnded(`${describe(this.hello)} ended`));
    const id = ++this.nextId;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new WarmPythonTimeout(`${describe(this.hello)} did not answer within ${timeoutMs} ms`));
        void this.dispose().catch(() => undefined);
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.process.stdin.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }

  async dispose(): Promise<void> {
    this.end(new WarmPythonEnded(`${describe(this.hello)} was stopped`));
    await this.process.kill();
  }

  private settle(line: string): void {
    const message = parseJsonObject(line);
    const id = typeof message?.id === 'number' ? message.id : undefined;
    const waiting = id === undefined ? undefined : this.pending.get(id);
    if (!message || !waiting || id === undefined) return;
    this.pending.delete(id);
    this.answered++;
    waiting.resolve(message);
  }

  private end(error: Error): void {
    this.ended = true;
    for (const waiting of [...this.pending.values()]) waiting.reject(error);
    this.pending.clear();
  }
}

function describe(hello: Record<string, unknown>): string {
  return typeof hello.name === 'string' ? `the warm ${hello.name} process` : 'the warm Python process';
}

/** A JSON object from one line, or undefined. */
function parseJsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

interface Server {
  readonly alive: boolean;
  dispose(): Promise<void>;
}

const registries = new Set<WarmPerSandbox<Server, unknown[]>>();

/**
 * One server per sandbox, started on first use and again after it ended; when it cannot start,
 * `unusable` is told the reason once and `get` answers undefined for that sandbox from then on.
 */
export class WarmPerSandbox<T extends Server, A extends unknown[] = []> {
  private readonly servers = new WeakMap<Sandbox, Promise<T | string>>();

  constructor(
    private readonly start: (sandbox: Sandbox, ...args: A) => Promise<T | string>,
    private readonly unusable: (sandbox: Sandbox, reason: string) => void,
  ) {
    registries.add(this as unknown as WarmPerSandbox<Server, unknown[]>);
  }

  /** `args` go to `start` when a server has to be started. */
  async get(sandbox: Sandbox, ...args: A): Promise<T | undefined> {
    const current = await this.servers.get(sandbox);
    if (typeof current === 'string') return undefined;
    if (current?.alive) return current;
    const starting = this.start(sandbox, ...args).catch((e: unknown) => `the server did not start: ${e instanceof Error ? e.message : String(e)}`);
    this.servers.set(sandbox, starting);
    const server = await starting;
    if (typeof server === 'string') {
      this.unusable(sandbox, server);
      return undefined;
    }
    return server;
  }

  /** Stops the sandbox's server, if one was started. */
  async dispose(sandbox: Sandbox): Promise<void> {
    const current = this.servers.get(sandbox);
    this.servers.delete(sandbox);
    const server = await current?.catch(() => undefined);
    if (server && typeof server !== 'string') await server.dispose();
  }
}

/** Stops every warm server started for `sandbox`; call before disposing the sandbox. */
export async function disposeWarmServers(sandbox: Sandbox): Promise<void> {
  await Promise.all([...registries].map((r) => r.dispose(sandbox).catch(() => undefined)));
}
