/**
 * Sandbox costs, measured side by side in one run against the same engine and image:
 *   ready:      DockerSandbox.create (container + repository copied + shell answering)
 *               vs raw dockerode createContainer + start
 *   round trip: a bare persistent shell (one exec, stdin attached, end marker)
 *               vs DockerSandbox.exec vs a fresh `docker exec` per command
 *   read file:  the archive API (getArchive) vs DockerSandbox.readFile (base64 through the shell)
 * Run: node --import tsx bench/aci/sandbox.ts [--image IMAGE] [--rounds N]
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import type Docker from 'dockerode';
import { dockerFromEnv } from '../../extension/core/runtime/dockerConnection';
import { DockerSandbox } from '../../extension/core/runtime/dockerSandbox';
import { SANDBOX_LABEL } from '../../extension/core/runtime/sandboxLabels';
import tar from 'tar-stream';
import { median, timed } from '../timing';

const { values } = parseArgs({ options: { image: { type: 'string', default: 'swe-workbench/base:bookworm' }, rounds: { type: 'string', default: '5' } } });

/** The contents of the one regular file in a tar stream (getArchive of a file): the archive API's read, which the product no longer uses. */
async function readSingleFile(stream: NodeJS.ReadableStream, what: string): Promise<Buffer> {
  const extract = tar.extract();
  stream.pipe(extract);
  for await (const entry of extract) {
    if (entry.header.type !== 'file') throw new Error(`${what} is not a regular file (${entry.header.type})`);
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    (stream as Readable).destroy?.();
    return Buffer.concat(chunks);
  }
  throw new Error(`${what}: empty archive`);
}
const image = values.image;
const rounds = Number(values.rounds);
const repoDir = resolve(__dirname, '../../test/fixtures/sample-repo/tree');
const docker = dockerFromEnv();

async function rawReady(): Promise<number> {
  let container: Docker.Container | undefined;
  const ms = await timed(async () => {
    container = await docker.createContainer({
      Image: image,
      Entrypoint: ['/bin/sh', '-c', 'while :; do sleep 3600; done'],
      Labels: { [SANDBOX_LABEL]: '1' },
      HostConfig: { NetworkMode: 'none' },
    });
    await container.start();
  });
  await container?.remove({ force: true });
  return ms;
}

async function oursReady(): Promise<number> {
  let sb: DockerSandbox | undefined;
  const ms = await timed(async () => {
    sb = await DockerSandbox.create({ image, repoPath: '/testbed', repoDir }, docker);
  });
  await sb?.dispose();
  return ms;
}

/** The raw operation our exec wraps: write a line to one attached bash, read until the marker. */
async function bareShell(container: Docker.Container): Promise<{ run(cmd: string): Promise<string>; close(): void }> {
  const exec = await container.exec({ Cmd: ['bash', '--norc', '--noprofile'], AttachStdin: true, AttachStdout: true, AttachStderr: true });
  const stream = (await exec.start({ hijack: true, stdin: true })) as Duplex;
  const out = new PassThrough();
  container.modem.demuxStream(stream, out, new PassThrough());
  let buffer = '';
  let waiting: { marker: string; done: (s: string) => void } | undefined;
  out.on('data', (c: Buffer) => {
    buffer += c.toString();
    if (waiting && buffer.includes(waiting.marker)) {
      const result = buffer;
      buffer = '';
      waiting.done(result);
    }
  });
  return {
    run: (cmd) =>
      new Promise((done) => {
        const marker = `END_${randomBytes(4).toString('hex')}`;
        waiting = { marker, done };
        stream.write(`${cmd}; echo ${marker}\n`);
      }),
    close: () => stream.destroy(),
  };
}

async function freshExec(container: Docker.Container, cmd: string): Promise<void> {
  const exec = await container.exec({ Cmd: ['bash', '-c', cmd], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  stream.resume();
  await new Promise((done) => stream.on('end', done));
}

async function main(): Promise<void> {
  const raw: number[] = [];
  const ours: number[] = [];
  await rawReady(); // warm the engine's caches for both sides
  for (let i = 0; i < rounds; i++) {
    raw.push(await rawReady());
    ours.push(await oursReady());
  }
  const sb = await DockerSandbox.create({ image, repoPath: '/testbed', repoDir }, docker);
  const container = docker.getContainer(sb.id);
  const bare = await bareShell(container);
  const n = 50;
  const rt = { bare: [] as number[], ours: [] as number[], fresh: [] as number[], archive: [] as number[], cat: [] as number[] };
  try {
    for (let i = 0; i < n; i++) {
      rt.bare.push(await timed(() => bare.run('echo hi')));
      rt.ours.push(await timed(() => sb.exec('echo hi')));
      if (i < 20) rt.fresh.push(await timed(() => freshExec(container, 'echo hi')));
      rt.archive.push(await timed(async () => readSingleFile(await container.getArchive({ path: '/testbed/ledger/money.py' }), 'money.py')));
      rt.cat.push(await timed(() => sb.readFile('ledger/money.py')));
    }
  } finally {
    bare.close();
    await sb.dispose();
  }
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`image ${image}, ${rounds} ready rounds, ${n} round trips (medians)`);
  console.log(`ready: ours ${f(median(ours))}  raw create+start ${f(median(raw))}  ratio ${(median(ours) / median(raw)).toFixed(2)}x (target <= 1.3x)`);
  console.log(`round trip: bare shell ${f(median(rt.bare))}  ours ${f(median(rt.ours))}  fresh docker exec ${f(median(rt.fresh))}`);
  console.log(`  ours / bare shell ${(median(rt.ours) / median(rt.bare)).toFixed(2)}x; fresh exec / ours ${(median(rt.fresh) / median(rt.ours)).toFixed(1)}x`);
  console.log(
    `read a file: archive API ${f(median(rt.archive))}  ours (shell) ${f(median(rt.cat))}  archive / ours ${(median(rt.archive) / median(rt.cat)).toFixed(1)}x`,
  );
}

void main();
