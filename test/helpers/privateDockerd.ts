/**
 * A second Docker engine of the test's own, for faults the shared engine must never see (a
 * restart) and for a remote engine over tcp:// with TLS. Its data, exec root, socket and pid
 * file live in a temp folder; it has no bridge network and touches no iptables. The base image
 * is copied in with `docker save | docker load`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { connectDocker } from '../../extension/core/runtime/dockerConnection';

export interface PrivateEngine {
  dir: string;
  /** unix:// socket of the engine. */
  socketHost: string;
  /** tcp://127.0.0.1:PORT with TLS, when asked for. */
  tlsHost?: string;
  /** Client ca.pem, cert.pem and key.pem (DOCKER_CERT_PATH), when TLS. */
  certDir?: string;
  docker(): Docker;
  /** Environment that points the docker CLI and `swe-workbench` at the TLS listener. */
  tlsEnv(): NodeJS.ProcessEnv;
  /** Stops the engine (SIGTERM, as a service manager does) and starts it again on the same folders. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function openssl(dir: string, args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate, valid one day. */
function makeCertificates(dir: string): { server: string; client: string } {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca-key.pem',
    '-out',
    'ca.pem',
    '-days',
    '1',
    '-subj',
    '/CN=swe-workbench test CA',
  ]);
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server-key.pem', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'server-cert.pem',
    '-days',
    '1',
    '-extfile',
    'server.ext',
  ]);
  const client = join(dir, 'client');
  spawnSync('mkdir', ['-p', client]);
  openssl(dir, ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'client/key.pem', '-out', 'client.csr', '-subj', '/CN=swe-workbench test client']);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca-key.pem',
    '-CAcreateserial',
    '-out',
    'client/cert.pem',
    '-days',
    '1',
    '-extfile',
    'client.ext',
  ]);
  writeFileSync(join(client, 'ca.pem'), readFileSync(join(dir, 'ca.pem')));
  return { server: dir, client };
}

function ip(args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`);
}

export async function startPrivateEngine(options: { tls?: boolean; image: string }): Promise<PrivateEngine> {
  // Short: unix socket paths are limited to 108 bytes, and containerd's live under the exec root.
  const dir = mkdtempSync('/tmp/swbd-');
  const socketHost = `unix://${dir}/docker.sock`;
  // A bridge of its own. Never `--bridge=none`: a dockerd started with it deletes the host's
  // docker0, which the shared engine's networked containers need.
  const bridge = `swbd${dir
    .slice(-6)
    .replace(/[^A-Za-z0-9]/g, '')
    .toLowerCase()}`.slice(0, 15);
  const subnet = `10.254.${1 + Math.floor(Math.random() * 250)}`;
  ip(['link', 'add', 'name', bridge, 'type', 'bridge']);
  ip(['addr', 'add', `${subnet}.1/24`, 'dev', bridge]);
  ip(['link', 'set', bridge, 'up']);
  const args = [
    '--data-root',
    join(dir, 'data'),
    '--exec-root',
    join(dir, 'exec'),
    '--pidfile',
    join(dir, 'docker.pid'),
    '-H',
    socketHost,
    `--bridge=${bridge}`,
    '--iptables=false',
    '--ip-masq=false',
  ];
  let tlsHost: string | undefined;
  let certDir: string | undefined;
  if (options.tls) {
    const certs = makeCertificates(dir);
    certDir = certs.client;
    tlsHost = `tcp://127.0.0.1:${await freePort()}`;
    args.push(
      '--tlsverify',
      '--tlscacert',
      join(dir, 'ca.pem'),
      '--tlscert',
      join(dir, 'server-cert.pem'),
      '--tlskey',
      join(dir, 'server-key.pem'),
      '-H',
      tlsHost,
    );
  }
  let child: ChildProcess | undefined;
  const docker = () => connectDocker({ host: socketHost });
  const start = async () => {
    const log = openSync(join(dir, 'dockerd.log'), 'a');
    child = spawn('dockerd', args, { stdio: ['ignore', log, log] });
    closeSync(log);
    await until('the private dockerd did not answer', async () => (await docker().ping()) !== undefined);
  };
  const halt = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  try {
    await start();
  } catch (err) {
    await halt();
    spawnSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
    throw err;
  }
  const load = spawnSync('sh', ['-c', `docker save "$1" | DOCKER_HOST="$2" docker load -q`, 'sh', options.image, socketHost], { encoding: 'utf8' });
  if (load.status !== 0) {
    await halt();
    spawnSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
    throw new Error(`cannot copy ${options.image} into the private engine: ${load.stderr}`);
  }
  return {
    dir,
    socketHost,
    ...(tlsHost ? { tlsHost } : {}),
    ...(certDir ? { certDir } : {}),
    docker,
    tlsEnv: () => ({ DOCKER_HOST: tlsHost, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certDir }),
    restart: async () => {
      await halt();
      await start();
    },
    stop: async () => {
      await halt();
      spawnSync('ip', ['link', 'delete', bridge], { stdio: 'ignore' });
      // Nothing may stay mounted under the folder before it is removed.
      const mounts = readFileSync('/proc/mounts', 'utf8')
        .split('\n')
        .filter((l) => l.includes(` ${dir}/`));
      if (mounts.length === 0 && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
