/**
 * What DOCKER_HOST names, read as the docker CLI reads it: the local socket (unix://), plain HTTP
 * or TLS (tcp://, TLS from DOCKER_TLS_VERIFY / DOCKER_CERT_PATH or port 2376), or ssh://; as the
 * options dockerode connects with. A bad value is an InputError naming DOCKER_HOST.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { InputError } from '../errors';

/** Which engine to connect to. */
export interface DockerConnectionOptions {
  /** unix:///var/run/docker.sock, tcp://host:2376, ssh://user@host; default the local socket. */
  host?: string;
  /** TLS client files: a directory with ca.pem, cert.pem and key.pem (tcp:// only). */
  certPath?: string;
  tlsVerify?: boolean;
}

export const DEFAULT_SOCKET = '/var/run/docker.sock';

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
