/**
 * Reaching a Docker engine the way the docker CLI does: the local socket, or DOCKER_HOST
 * (unix://, tcp:// with TLS from DOCKER_TLS_VERIFY / DOCKER_CERT_PATH, or ssh://).
 */
import type Docker from 'dockerode';
import { DEFAULT_SOCKET, dockerodeOptions, type DockerConnectionOptions } from './dockerHost';

export type { DockerConnectionOptions };

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
