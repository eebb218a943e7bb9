/**
 * Reaching a Docker engine the way the docker CLI does: the local socket, or DOCKER_HOST
 * (unix://, tcp:// with TLS from DOCKER_TLS_VERIFY / DOCKER_CERT_PATH, or ssh://).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { InputError } from '../errors';

export interface DockerConnectionOptions {
  /** unix:///var/run/docker.sock, tcp://host:2376, ssh://user@host; default the local socket. */
  host?: string;
  /** TLS client files: a directory with ca.pem, cert.pem and key.pem (tcp:// only). */
  certPath?: string;
  tlsVerify?: boolean;
}

const DEFAULT_SOCKET = '/var/run/docker.sock';

export function connectDocker(options: DockerConnectionOptions = {}): Docker {
  // Loaded on first use, not with this module: dockerode brings ssh2, whose poly1305 takes a
  // 16 MB heap as it loads, and gRPC and protobufjs, which indexing, inspecting and converting
  // recordings (the index worker, most CLI commands) never use.
  const Dockerode = require('dockerode') as typeof Docker;
  return new Dockerode(dockerodeOptions(options));
}

/** The engine named by DOCKER_HOST, DOCKER_TLS_VERIFY and DOCKER_CERT_PATH (docker CLI semantics). */
export function dockerFromEnv(env: NodeJS.ProcessEnv = process.env): Docker {
  return connectDocker(connectionOptionsFromEnv(env));
}

export function connectionOptionsFromEnv(env: NodeJS.ProcessEnv): DockerConnectionOptions {
  return {
    ...(env.DOCKER_HOST ? { host: env.DOCKER_HOST } : {}),
    ...(env.DOCKER_CERT_PATH ? { certPath: env.DOCKER_CERT_PATH } : {}),
    ...(env.DOCKER_TLS_VERIFY ? { tlsVerify: env.DOCKER_TLS_VERIFY !== '0' && env.DOCKER_TLS_VERIFY !== '' } : {}),
  };
}

/** A short description of where the engine is, for messages. */
export function describeDockerHost(options: DockerConnectionOptions): string {
  return options.host ?? `unix://${DEFAULT_SOCKET}`;
}

/** @internal */
export function dockerodeOptions(options: DockerConnectionOptions): Docker.DockerOptions {
  const host = options.host ?? `unix://${DEFAULT_SOCKET}`;
  const bad = (problem: string) => new InputError(undefined, 'DOCKER_HOST', `'${host}': ${problem}`);
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) || DEFAULT_SOCKET };
  let url: URL;
  try {
    url = new URL(host.includes('://') ? host : `tcp://${host}`);
  } catch {
    throw bad('expected unix:///path, tcp://host:port or ssh://user@host');
  }
  if (url.protocol === 'ssh:') {
    return {
      protocol: 'ssh',
      host: url.hostname,
      port: url.port ? Number(url.port) : 22,
      username: url.username || undefined,
      sshOptions: { agent: process.env.SSH_AUTH_SOCK },
    } as Docker.DockerOptions;
  }
  if (url.protocol !== 'tcp:' && url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`unsupported scheme '${url.protocol}'`);
  const tls = options.tlsVerify === true || url.port === '2376' || url.protocol === 'https:';
  const result: Docker.DockerOptions = { protocol: tls ? 'https' : 'http', host: url.hostname, port: url.port ? Number(url.port) : tls ? 2376 : 2375 };
  if (options.certPath) {
    const read = (name: string) => {
      try {
        return readFileSync(join(options.certPath!, name));
      } catch (err) {
        throw new InputError(join(options.certPath!, name), undefined, `cannot read the TLS file named by DOCKER_CERT_PATH: ${(err as Error).message}`);
      }
    };
    Object.assign(result, { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') });
  }
  return result;
}

/** Resolves when the engine answers a ping within `timeoutMs`; rejects with the reason otherwise. */
export async function pingDocker(docker: Docker, timeoutMs = 3000, signal?: AbortSignal): Promise<void> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const abortSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    // @types/dockerode lags dockerode 5, whose ping takes an abortSignal.
    await (docker as unknown as { ping(o: { abortSignal: AbortSignal }): Promise<unknown> }).ping({ abortSignal });
  } catch (err) {
    if (timeout.aborted) throw new Error(`no answer within ${timeoutMs} ms`);
    throw err;
  }
}
